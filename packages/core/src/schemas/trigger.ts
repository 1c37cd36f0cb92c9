import { contextPayloadSchema } from './context.js';
import { z } from 'zod';
import { jobPrioritySchema, jsonObjectSchema, triggerStatusSchema } from './enums.js';
import { subscriberInputSchema } from './subscriber.js';
import { topicKeySchema } from './topic.js';
import { MAX_ID_LENGTH, MAX_RECIPIENTS_PER_EVENT, idSchema } from './limits.js';
import { expiresAtSchema } from './expiry.js';
import { triggerOverridesSchema } from './email-overrides.js';
import { emailAttachmentsSchema } from './email-attachments.js';
import { debounceSchema } from './debounce.js';

export const MAX_BULK_EVENTS = 100;

export const topicRecipientSchema = z.strictObject({
  type: z.literal('Topic'),
  topicKey: topicKeySchema,
  /** Members of the topic left out of this event (Novu's `exclude`); they still get it if named otherwise. */
  exclude: z.array(idSchema).max(MAX_RECIPIENTS_PER_EVENT).optional(),
});
export type TopicRecipient = z.infer<typeof topicRecipientSchema>;

/** One recipient: a subscriberId, a subscriber object (upserted), or a topic reference. */
// Most recipients are ids or subscriber objects: those are tried first (a failed branch costs an issue).
export const recipientSchema = z.union([
  z.string().max(MAX_ID_LENGTH, `must be at most ${MAX_ID_LENGTH} characters`),
  // `type: 'Subscriber'` is how Novu's API marks a subscriber recipient; it changes nothing.
  subscriberInputSchema.extend({ type: z.literal('Subscriber').optional() }),
  topicRecipientSchema,
]);
export type Recipient = z.input<typeof recipientSchema>;

/** One event. A member it does not know is refused (`workflowId` is `name` here), so nothing given is silently dropped. */
/** A BCP 47 language tag (`en`, `pt-BR`, `zh-Hant-TW`); Novu's `en_US` spelling is accepted. */
export const localeSchema = z
  .string()
  .trim()
  .max(35, 'must be at most 35 characters')
  .refine((tag) => {
    try {
      new Intl.Locale(tag.replace(/_/g, '-'));
      return true;
    } catch {
      return false;
    }
  }, 'must be a language tag such as en, pt-BR or zh-Hant-TW');

/**
 * A trigger's payload: any object, whose `attachments`, when present, are files its emails carry
 * (Novu's reserved member, checked as `emailAttachmentsSchema`; kept as given, and left out of the
 * messages' stored payload).
 */
export const triggerPayloadSchema = jsonObjectSchema.default({}).superRefine((payload, ctx) => {
  if (payload['attachments'] === undefined) return;
  const parsed = emailAttachmentsSchema.safeParse(payload['attachments']);
  if (!parsed.success) for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', path: ['attachments', ...issue.path], message: issue.message });
});

export const triggerEventSchema = z.strictObject({
  name: z.string({ error: 'is required: the workflow trigger identifier' }).trim().min(1, 'must not be empty').max(MAX_ID_LENGTH, `must be at most ${MAX_ID_LENGTH} characters`),
  payload: triggerPayloadSchema,
  /** Provider and channel overrides; `overrides.email`'s addresses are checked here (see `emailOverridesSchema`). */
  overrides: triggerOverridesSchema.default({}),
  // The array first: a list tried as one recipient fails all three of its kinds, and a union that fails
  // whole spells out every branch's error, which was a quarter of checking a list.
  to: z
    .union([z.array(recipientSchema), recipientSchema], { error: (issue) => `${issue.input === undefined ? 'is required:' : 'must be'} a subscriberId, a subscriber, a topic or an array of them` })
    .refine((to) => !Array.isArray(to) || to.length <= MAX_RECIPIENTS_PER_EVENT, `must hold at most ${MAX_RECIPIENTS_PER_EVENT} recipients (reach larger audiences through a topic)`),
  transactionId: idSchema.optional(),
  actor: z.union([idSchema, subscriberInputSchema]).optional(),
  tenant: z.union([idSchema, z.strictObject({ identifier: idSchema, name: z.string().optional(), data: jsonObjectSchema.optional() })]).optional(),
  /** Up to five contexts (Novu's): `{ tenant: 'acme', app: { id: 'jira', data } }`. */
  context: contextPayloadSchema.optional(),
  /** The locale its messages are written in (a BCP 47 tag: `pt-BR`), over the subscriber's. */
  locale: localeSchema.optional(),
  /** When the trigger's in-app messages expire: out of the feed and counts from then on, then deleted. */
  expiresAt: expiresAtSchema.optional(),
  /** The class of the trigger's jobs, over the workflow's: `transactional` jobs are claimed before `bulk` ones. @default by audience */
  priority: jobPrioritySchema.optional(),
  /** Folds a burst of such triggers into one run with the last one's event (over the workflow's own `debounce`). */
  debounce: debounceSchema.optional(),
});
export type TriggerEvent = z.input<typeof triggerEventSchema>;
export type ParsedTriggerEvent = z.output<typeof triggerEventSchema>;

/** A broadcast: one event to every subscriber of the environment, so it has no `to`; the rest is a trigger's. */
export const broadcastEventSchema = triggerEventSchema.omit({ to: true });
export type BroadcastEvent = z.input<typeof broadcastEventSchema>;
export type ParsedBroadcastEvent = z.output<typeof broadcastEventSchema>;

/**
 * What a trigger answers: `processed` always names its `transactionId` (given or generated); any
 * other status may (the one given) and says why in `error`, so code that checked `status` reads the
 * id without a cast.
 */
export const triggerResultSchema = z.discriminatedUnion('status', [
  z.object({
    acknowledged: z.boolean(),
    status: z.literal('processed'),
    error: z.array(z.string()).optional(),
    transactionId: z.string(),
  }),
  z.object({
    acknowledged: z.boolean(),
    status: triggerStatusSchema.exclude(['processed']),
    error: z.array(z.string()).optional(),
    transactionId: z.string().optional(),
  }),
]);
export type TriggerResult = z.infer<typeof triggerResultSchema>;
