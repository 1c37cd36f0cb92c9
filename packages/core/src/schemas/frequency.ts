import { z } from 'zod';
import { channelSchema } from './enums.js';

const WINDOW_UNIT_MS = { seconds: 1_000, minutes: 60_000, hours: 3_600_000, days: 86_400_000, weeks: 604_800_000 } as const;
/**
 * The longest window: 3650 days. Hits are stored with the instant they stop counting, compared as
 * ISO text; a window reaching past year 9999 (or past what a Date holds) would never count, or fail
 * the whole batch's commit.
 */
export const MAX_WINDOW_DAYS = 3_650;
const windowFits = (w: { amount: number; unit: keyof typeof WINDOW_UNIT_MS }) => w.amount * WINDOW_UNIT_MS[w.unit] <= MAX_WINDOW_DAYS * WINDOW_UNIT_MS.days;
const windowTooLong = { path: ['amount'], message: `the window must be at most ${MAX_WINDOW_DAYS} days`, abort: true };

/** The length of a sliding window: fixed lengths only, so "the last day" means the last 24 hours. */
export const windowSchema = z
  .strictObject({
    amount: z.number().positive('must be more than 0'),
    unit: z.enum(['seconds', 'minutes', 'hours', 'days', 'weeks']),
  })
  .refine(windowFits, windowTooLong);
export type WindowLength = z.infer<typeof windowSchema>;

const limitSchema = z.number().int('must be a whole number').min(1, 'must be at least 1').max(10_000, 'must be at most 10000');

/**
 * A throttle step's rule: at most `limit` runs per subscriber in any window of `amount` `unit`s, counted
 * apart for each value of the payload path `key` when given.
 */
export const throttleMetadataSchema = z
  .strictObject({
    amount: windowSchema.shape.amount,
    unit: windowSchema.shape.unit,
    limit: limitSchema,
    key: z.string().trim().min(1, 'must not be empty').optional(),
  })
  .refine(windowFits, windowTooLong);
export type ThrottleMetadata = z.infer<typeof throttleMetadataSchema>;

/**
 * A cap on what one subscriber is sent across workflows: at most `limit` messages of the channel (every
 * channel when absent) from workflows with one of `tags` (every workflow when absent) in any window
 * `per`. Over it, a message is not sent (`skip`, a warning) or waits until the window has room (`defer`).
 */
export const capSchema = z.strictObject({
  /** Names the cap in `explain`, and keeps its count when the limit changes. @default channel, tags and window */
  id: z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters').optional(),
  channel: channelSchema.optional(),
  tags: z.array(z.string().trim().min(1, 'must not be empty')).min(1, 'leave tags out to cap every workflow').optional(),
  limit: limitSchema,
  per: windowSchema,
  mode: z.enum(['skip', 'defer']).default('skip'),
});
export type Cap = z.infer<typeof capSchema>;
export type CapInput = z.input<typeof capSchema>;

export const capsSchema = z.array(capSchema).max(50, 'at most 50 caps').superRefine((caps, ctx) => {
  const seen = new Map<string, number>();
  caps.forEach((cap, i) => {
    const id = capId(cap);
    if (seen.has(id)) ctx.addIssue({ code: 'custom', path: [i, 'id'], message: `two caps share the id "${id}": give each its own` });
    seen.set(id, i);
  });
});

/** A cap's id: its own, or one made of what it counts, so the same cap keeps its count as its limit changes. */
export function capId(cap: Pick<Cap, 'id' | 'channel' | 'tags' | 'per'>): string {
  return cap.id ?? `${cap.channel ?? 'any channel'}${cap.tags ? ` tagged ${[...cap.tags].sort().join('|')}` : ''} per ${cap.per.amount} ${cap.per.unit}`;
}

/** An integration's send rate: at most `messages` in any `seconds` seconds, shared by every process of one database. */
export const sendRateSchema = z.strictObject({
  messages: limitSchema,
  seconds: z.number().positive('must be more than 0').max(86_400, 'must be at most 86400').default(1),
});
export type SendRate = z.infer<typeof sendRateSchema>;
