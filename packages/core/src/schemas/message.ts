import { z } from 'zod';
import { channelSchema, isoInstantSchema, jsonObjectSchema, messageStatusSchema, severitySchema } from './enums.js';
import { emailBlockSchema, messageCtaSchema } from './message-parts.js';

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
  channel: channelSchema,
  read: z.boolean(),
  seen: z.boolean(),
  archived: z.boolean(),
  archivedAt: isoInstantSchema.optional(),
  snoozedUntil: isoInstantSchema.optional(),
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
  /** The in-app step's `data`, rendered like its content. */
  data: jsonObjectSchema.optional(),
});
export type Message = z.infer<typeof messageSchema>;
