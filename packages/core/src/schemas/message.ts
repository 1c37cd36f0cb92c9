import { z } from 'zod';
import { channelSchema, isoInstantSchema, jsonObjectSchema, messageStatusSchema, severitySchema } from './enums.js';
import { emailBlockSchema, messageCtaSchema } from './message-parts.js';

export const deliveryStateSchema = z.enum(['delivered', 'bounced', 'complained', 'opened', 'clicked', 'failed']);
export type DeliveryState = z.infer<typeof deliveryStateSchema>;

/** One thing a provider reported about a sent message, as kept in its history. */
export const deliveryEventSchema = z.object({
  state: deliveryStateSchema,
  at: isoInstantSchema,
  /** The provider's id of the event: the same callback twice is kept once. */
  eventId: z.string(),
  bounce: z.enum(['hard', 'soft']).optional(),
  permanent: z.boolean().optional(),
  reason: z.string().optional(),
});
export type DeliveryEvent = z.infer<typeof deliveryEventSchema>;

export const messageSchema = z.object({
  _id: z.string(),
  _templateId: z.string().nullable(),
  _environmentId: z.string(),
  _messageTemplateId: z.string().nullable(),
  _organizationId: z.string(),
  _notificationId: z.string(),
  _subscriberId: z.string(),
  /** The subscriber's own id (not part of Novu's message, kept so a message names its recipient). */
  subscriberId: z.string(),
  templateIdentifier: z.string(),
  createdAt: isoInstantSchema,
  deliveredAt: z.array(isoInstantSchema),
  lastSeenDate: isoInstantSchema.optional(),
  /** When it was first seen (marking seen again does not move it). */
  firstSeenDate: isoInstantSchema.optional(),
  lastReadDate: isoInstantSchema.optional(),
  content: z.union([z.string(), z.array(emailBlockSchema)]),
  transactionId: z.string(),
  subject: z.string().optional(),
  /** An email's HTML as sent: the body in its layout (see `composeEmail`); its text part is made from it. */
  html: z.string().optional(),
  /** An email's hidden preheader. */
  preheader: z.string().optional(),
  /** The layout an email was rendered in; null for none. */
  layoutId: z.string().nullable().optional(),
  channel: channelSchema,
  read: z.boolean(),
  seen: z.boolean(),
  archived: z.boolean(),
  archivedAt: isoInstantSchema.optional(),
  snoozedUntil: isoInstantSchema.optional(),
  /** From this instant the message is gone: out of every feed and count, and deleted by the sweeper. */
  expiresAt: isoInstantSchema.optional(),
  email: z.string().optional(),
  phone: z.string().optional(),
  directWebhookUrl: z.string().optional(),
  providerId: z.string().optional(),
  deviceTokens: z.array(z.string()).optional(),
  title: z.string().optional(),
  avatar: z.string().optional(),
  cta: messageCtaSchema,
  _feedId: z.string().nullable().optional(),
  status: messageStatusSchema,
  errorId: z.string().optional(),
  errorText: z.string().optional(),
  payload: jsonObjectSchema,
  overrides: jsonObjectSchema.optional(),
  contextKeys: z.array(z.string()).optional(),
  tags: z.array(z.string()),
  /** The workflow's severity when the message was made. */
  severity: severitySchema,
  /**
   * The in-app step's `data`, rendered like its content; on a push message, the members a code
   * workflow's push step returned beside `subject` and `body` (`badge`, `sound`, `data`, …).
   */
  data: jsonObjectSchema.optional(),
  /** The provider's id of the sent message (what its status callbacks name). */
  providerMessageId: z.string().optional(),
  /** The integration that sent it: only that integration's status callbacks change it (absent on messages sent before it was kept). */
  _integrationId: z.string().optional(),
  /**
   * `unknown`: the provider was asked to send it and gave no answer in time (`providerTimeoutMs`), and
   * its service has no idempotency key to ask again safely, so it may have sent it. Such a message is
   * `sent` (it was handed to the provider), never `error`; it is sent again at most once, after
   * `UNKNOWN_OUTCOME_RETRY_MS`, and what the provider answers then takes its place. Absent when the
   * provider answered.
   */
  outcome: z.literal('unknown').optional(),
  /** What the provider reported after accepting it: the furthest state reached, and every report in order. */
  delivery: z.object({ state: deliveryStateSchema, at: isoInstantSchema, history: z.array(deliveryEventSchema) }).optional(),
});
export type Message = z.infer<typeof messageSchema>;
