import { z } from 'zod';
import { timeUnitSchema } from './enums.js';

const DAY_MS = 86_400_000;
const TTL_UNIT_MS = { seconds: 1_000, minutes: 60_000, hours: 3_600_000, days: DAY_MS, weeks: 7 * DAY_MS, months: 31 * DAY_MS } as const;
/** The longest ttl: 3650 days (an expiry past year 9999 would read as already past, or fail to be made). */
export const MAX_TTL_DAYS = 3_650;

/** How long an in-app message stays in the feed once it is made: an in-app step's `ttl`. */
export const ttlSchema = z
  .strictObject({ amount: z.number().positive(), unit: timeUnitSchema })
  .refine((ttl) => ttl.amount * TTL_UNIT_MS[ttl.unit] <= MAX_TTL_DAYS * DAY_MS, { path: ['amount'], message: `the ttl must be at most ${MAX_TTL_DAYS} days` });
export type Ttl = z.infer<typeof ttlSchema>;

/**
 * A trigger's `expiresAt`: an ISO 8601 date-time with `Z` or an offset, kept in `toISOString()` form
 * so storage compares it as text. (That it is still to come is checked against the engine's clock.)
 */
export const expiresAtSchema = z.iso
  .datetime({ offset: true, message: 'must be an ISO 8601 date-time, as 2026-06-01T12:00:00Z' })
  .transform((at) => new Date(at).toISOString());

const ageSchema = z.strictObject({ days: z.number().int('must be a whole number of days').min(1).max(36_500) });

/**
 * An environment's retention policy (`createTidings({ retention })`): messages and notifications
 * older than their `days` are deleted by the sweeper, `batchSize` rows per transaction.
 */
export const retentionPolicySchema = z.strictObject({
  messages: ageSchema.optional(),
  notifications: ageSchema.optional(),
  /** Audit log entries older than this are deleted (see `tidings.audit`). @default kept */
  audit: ageSchema.optional(),
  /** Rows the sweeper deletes per transaction, of each kind (expired messages too). @default 500 */
  batchSize: z.number().int().min(1).max(10_000).default(500),
});
export type RetentionPolicy = z.output<typeof retentionPolicySchema>;
export type RetentionPolicyInput = z.input<typeof retentionPolicySchema>;
