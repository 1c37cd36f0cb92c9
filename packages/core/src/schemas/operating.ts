import { z } from 'zod';
import { isoInstantSchema, jsonObjectSchema } from './enums.js';
import { messageSchema } from './message.js';
import { notificationSchema } from './notification.js';
import { preferenceChangeSchema, preferenceRowSchema } from './preferences.js';
import { subscriberSchema } from './subscriber.js';
import { suppressionSchema } from './suppression.js';

/** An instant a caller gives: any ISO 8601 date-time, stored in `toISOString()` form. */
const instantInputSchema = z.iso.datetime({ offset: true, message: 'must be an ISO 8601 date-time, as 2026-06-01T12:00:00Z' }).transform((at) => new Date(at).toISOString());

/*
 * API keys.
 */

/** What a key may do: `full` everything, `trigger` only trigger (and bulk, broadcast), `read` only GET requests. */
export const apiKeyScopeSchema = z.enum(['full', 'trigger', 'read']);
export type ApiKeyScope = z.infer<typeof apiKeyScopeSchema>;

const keyNameSchema = z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters');

/** `apiKeys.create`: a name people know it by, its scope, and when it stops working (never when absent). */
export const apiKeyCreateSchema = z.strictObject({
  name: keyNameSchema,
  /** @default 'full' */
  scope: apiKeyScopeSchema.default('full'),
  expiresAt: instantInputSchema.optional(),
});
export type ApiKeyCreateInput = z.input<typeof apiKeyCreateSchema>;

/**
 * `apiKeys.rotate`: a new key with the old one's name and scope; the old keeps working until it is
 * revoked, or until `retireOldAt` when given (no later than its own expiry).
 */
export const apiKeyRotateSchema = z.strictObject({
  retireOldAt: instantInputSchema.optional(),
  /** When the new key stops working. @default never */
  expiresAt: instantInputSchema.optional(),
});
export type ApiKeyRotateInput = z.input<typeof apiKeyRotateSchema>;

/** A stored key as `list` shows it: never its secret or the secret's hash. */
export const apiKeyViewSchema = z.object({
  id: z.string(),
  name: z.string(),
  scope: apiKeyScopeSchema,
  createdAt: isoInstantSchema,
  expiresAt: isoInstantSchema.nullable(),
  /** Who made it: `code`, `cli`, or the name of the key that made it over HTTP. */
  createdBy: z.string(),
  /** The key whose rotation made this one. */
  rotatedFrom: z.string().optional(),
});
export type ApiKeyView = z.infer<typeof apiKeyViewSchema>;

/** What `create` and `rotate` return: the key and its secret, shown this once (only its hash is stored). */
export type CreatedApiKey = ApiKeyView & { readonly secret: string };

/** The key a secret belongs to, as the HTTP adapter learns it. */
export type VerifiedApiKey = Pick<ApiKeyView, 'id' | 'name' | 'scope'>;

/*
 * The audit log.
 */

/** What an audit entry is about. */
export const auditKindSchema = z.enum(['workflow', 'layout', 'partial', 'translations', 'integration', 'webhook', 'api-key', 'preferences', 'settings', 'subscriber']);
export type AuditKind = z.infer<typeof auditKindSchema>;

/** One configuration change: who made it, what it changed, when. Never a value of a credential or secret. */
export const auditEntrySchema = z.object({
  id: z.string(),
  at: isoInstantSchema,
  /** `code` (a library call), `cli`, `api` (a configured API key), or `key:<name>` (a stored key's name). */
  who: z.string(),
  kind: auditKindSchema,
  action: z.enum(['created', 'updated', 'deleted', 'revoked', 'rotated', 'erased']),
  /** The id, identifier or name of what changed (a subscriber erased is named by a hash of their id). */
  target: z.string(),
  /** The members that changed (`credentials.apiKey`: only the names of credentials, never their values). */
  fields: z.array(z.string()).optional(),
});
export type AuditEntry = z.infer<typeof auditEntrySchema>;

/** `audit.list`: newest first, those at or after `since`, of one kind, the page after `cursor`. */
export const auditListQuerySchema = z.strictObject({
  since: instantInputSchema.optional(),
  kind: auditKindSchema.optional(),
  cursor: z.string().min(1).max(500).optional(),
  /** @default 50 */
  limit: z.number().int().min(1).max(500, 'must be at most 500').default(50),
});
export type AuditListQuery = z.input<typeof auditListQuerySchema>;

/*
 * Erase and export (GDPR articles 17 and 20).
 */

/** A decision record of one of the subscriber's runs (see `explain`). */
const exportedDecisionSchema = z.object({ transactionId: z.string(), jobId: z.string(), at: isoInstantSchema, entries: z.array(jsonObjectSchema) });

/** Everything the engine holds about one subscriber, as one JSON document (`subscribers.export`). */
export const subscriberExportSchema = z.object({
  format: z.literal('tidings.subscriber-export.v1'),
  exportedAt: isoInstantSchema,
  environmentId: z.string(),
  subscriber: subscriberSchema,
  preferences: z.array(preferenceRowSchema),
  preferenceChanges: z.array(preferenceChangeSchema),
  /** The topics they are a member of, with their subscription's own data when it has some. */
  topics: z.array(z.object({ topicKey: z.string(), subscription: jsonObjectSchema.optional() })),
  /** Every message of theirs (any channel, archived or not). */
  messages: z.array(messageSchema),
  /** The triggers that reached them (their payloads included). */
  notifications: z.array(notificationSchema),
  /** What is still to happen for them: pending jobs and open digests. */
  pending: z.object({ jobs: z.array(jsonObjectSchema), digests: z.array(jsonObjectSchema) }),
  /** Why each of their steps was or was not sent. */
  decisions: z.array(exportedDecisionSchema),
  /** Suppression entries of their email address and phone number. */
  suppressions: z.array(suppressionSchema),
});
export type SubscriberExport = z.infer<typeof subscriberExportSchema>;

/** What `subscribers.erase` removed, by kind (counts only: nothing of them is kept). */
export interface ErasedCounts {
  readonly messages: number;
  readonly jobs: number;
  readonly digests: number;
  readonly decisionRecords: number;
  readonly notifications: number;
  /** Suppression entries reduced to a hash of the address. */
  readonly suppressionsHashed: number;
}
