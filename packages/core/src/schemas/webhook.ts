import { z } from 'zod';
import { isoInstantSchema, jsonObjectSchema } from './enums.js';

/** The events an endpoint can subscribe to. */
export const WEBHOOK_EVENT_TYPES = [
  'message.sent',
  'message.failed',
  'message.warning',
  'message.delivered',
  'message.bounced',
  'message.complained',
  'message.opened',
  'message.clicked',
  'message.read',
  'message.seen',
  'message.action',
  'digest.flushed',
  'preference.updated',
  'workflow.run.completed',
  'webhook.endpoint.disabled',
] as const;
export const webhookEventTypeSchema = z.enum(WEBHOOK_EVENT_TYPES);
export type WebhookEventType = z.infer<typeof webhookEventTypeSchema>;

/** A Standard Webhooks secret: `whsec_` and the base64 of 24 to 64 random bytes. */
export const webhookSecretSchema = z.string().regex(/^whsec_[A-Za-z0-9+/]{32,88}={0,2}$/, 'must be a Standard Webhooks secret: whsec_ and the base64 of 24 to 64 bytes');

const urlSchema = z
  .string()
  .trim()
  .max(2048)
  .refine((value) => {
    try {
      const url = new URL(value);
      return url.protocol === 'https:' || url.protocol === 'http:';
    } catch {
      return false;
    }
  }, 'must be an http(s) URL');

/** What `webhooks.create` takes. */
export const webhookEndpointInputSchema = z.strictObject({
  url: urlSchema,
  events: z.array(webhookEventTypeSchema).min(1, 'must name at least one event type'),
  secret: webhookSecretSchema.optional(),
  description: z.string().max(500).optional(),
});
export type WebhookEndpointInput = z.input<typeof webhookEndpointInputSchema>;

/** What `webhooks.update` takes: the members given replace the stored ones; `active: true` enables a disabled endpoint. */
export const webhookEndpointPatchSchema = z.strictObject({
  url: urlSchema,
  events: webhookEndpointInputSchema.shape.events,
  description: z.string().max(500),
  active: z.boolean(),
}).partial();
export type WebhookEndpointPatch = z.input<typeof webhookEndpointPatchSchema>;

export const webhookEndpointSchema = z.object({
  _id: z.string(),
  url: z.string(),
  events: z.array(webhookEventTypeSchema),
  description: z.string().optional(),
  active: z.boolean(),
  /** Signs every delivery; returned once, by `create`. */
  secret: z.string(),
  /** Deliveries that failed in a row; a success sets it back to 0. */
  failures: z.number().int(),
  disabledAt: isoInstantSchema.optional(),
  disabledReason: z.string().optional(),
  createdAt: isoInstantSchema,
  updatedAt: isoInstantSchema,
});
export type WebhookEndpoint = z.infer<typeof webhookEndpointSchema>;

/** One event for one endpoint: written with the change that caused it, sent by the job loop. */
export const webhookDeliverySchema = z.object({
  /** Also the `webhook-id` header: the same on every attempt, so receivers drop duplicates. */
  _id: z.string(),
  endpointId: z.string(),
  eventType: webhookEventTypeSchema,
  /** The body: `{ type, timestamp, data }`. */
  payload: jsonObjectSchema,
  status: z.enum(['pending', 'delivered', 'failed']),
  attempts: z.number().int(),
  /** The receiver's last answer (0 when it could not be reached). */
  lastStatus: z.number().int().optional(),
  lastError: z.string().optional(),
  nextAttemptAt: isoInstantSchema.optional(),
  createdAt: isoInstantSchema,
  updatedAt: isoInstantSchema,
  deliveredAt: isoInstantSchema.optional(),
});
export type WebhookDelivery = z.infer<typeof webhookDeliverySchema>;
