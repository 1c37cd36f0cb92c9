import { z } from 'zod';
import { isoInstantSchema } from './enums.js';
import { MAX_ID_LENGTH, idSchema } from './limits.js';
import { channelPreferencesSchema } from './schedule.js';

/** Most preference filters, workflow ids or tags one subscription call takes. */
export const MAX_SUBSCRIPTION_FILTERS = 100;

/** A subscription's identifier as given: not empty, at most MAX_ID_LENGTH characters. */
export const subscriptionIdentifierSchema = idSchema;

const enabledFlag = z.boolean({ error: 'must be true or false' }).optional();
/** Novu's JSON Logic conditions are refused by name: Tidings evaluates no JSON Logic, and silently ignoring one would send what it meant to hold back. */
const noCondition = z.unknown().refine((value) => value === undefined, { message: 'is not supported: Tidings does not evaluate JSON Logic conditions; use enabled' }).optional();
const workflowRefsSchema = z.array(idSchema).max(MAX_SUBSCRIPTION_FILTERS, `must hold at most ${MAX_SUBSCRIPTION_FILTERS} items`);

/**
 * Which workflows a subscription holds preferences for, as Novu's `<Subscription preferences>` names
 * them: a workflow (id, identifier or slug), a workflow with its starting flag, or a group of
 * workflows by id and tag.
 */
// The labels Novu's UI shows travel with its filters and mean nothing to the engine.
const labelSchema = z.string().max(MAX_ID_LENGTH, `must be at most ${MAX_ID_LENGTH} characters`).optional();
export const subscriptionPreferenceFilterSchema = z.union([
  idSchema,
  z.strictObject({ workflowId: idSchema, enabled: enabledFlag, condition: noCondition, label: labelSchema }),
  z.strictObject({
    filter: z.strictObject({
      workflowIds: workflowRefsSchema.optional(),
      workflows: z.array(z.strictObject({ workflowId: idSchema, label: labelSchema })).max(MAX_SUBSCRIPTION_FILTERS, `must hold at most ${MAX_SUBSCRIPTION_FILTERS} items`).optional(),
      tags: workflowRefsSchema.optional(),
    }),
    enabled: enabledFlag,
    condition: noCondition,
    label: labelSchema,
  }),
]);
export type SubscriptionPreferenceFilter = z.input<typeof subscriptionPreferenceFilterSchema>;

const filtersSchema = z.array(subscriptionPreferenceFilterSchema).max(MAX_SUBSCRIPTION_FILTERS, `must hold at most ${MAX_SUBSCRIPTION_FILTERS} items`);

/** A new subscription of a subscriber to a topic (created when missing, named `topicName`). */
export const topicSubscriptionCreateSchema = z.strictObject({
  /** Absent or empty: Novu's default, `tk_<topicKey>:si_<subscriberId>`. */
  identifier: z.string().trim().max(MAX_ID_LENGTH, `must be at most ${MAX_ID_LENGTH} characters`).optional(),
  name: z.string().max(MAX_ID_LENGTH, `must be at most ${MAX_ID_LENGTH} characters`).optional(),
  topicName: z.string().max(MAX_ID_LENGTH, `must be at most ${MAX_ID_LENGTH} characters`).optional(),
  preferences: filtersSchema.optional(),
});
export type TopicSubscriptionCreate = z.input<typeof topicSubscriptionCreateSchema>;

/** A change of a subscription: its name, and its preferences replaced whole by those the filters give. */
export const topicSubscriptionUpdateSchema = z.strictObject({
  name: z.string().max(MAX_ID_LENGTH, `must be at most ${MAX_ID_LENGTH} characters`).optional(),
  preferences: filtersSchema.optional(),
});
export type TopicSubscriptionUpdate = z.input<typeof topicSubscriptionUpdateSchema>;

/** What a read of one subscription also lists: preferences for these workflows and tags, stored or not. */
export const topicSubscriptionQuerySchema = z.strictObject({
  identifier: subscriptionIdentifierSchema.optional(),
  workflowIds: workflowRefsSchema.optional(),
  tags: workflowRefsSchema.optional(),
});
export type TopicSubscriptionQuery = z.input<typeof topicSubscriptionQuerySchema>;

/** One subscription preference changed: the workflow on or off as a whole, and channel by channel. */
export const subscriptionPreferenceUpdateSchema = z
  .strictObject({ enabled: enabledFlag, channels: channelPreferencesSchema.optional(), condition: noCondition })
  // A condition is refused by itself: it is what the caller meant to send.
  .refine((update) => update.condition !== undefined || update.enabled !== undefined || (update.channels !== undefined && Object.keys(update.channels).length > 0), { path: ['enabled'], message: 'is required when no channel is given' });
export type SubscriptionPreferenceUpdate = z.input<typeof subscriptionPreferenceUpdateSchema>;

/**
 * Many subscription preferences changed together (Novu's bulk route), each naming its subscription;
 * under `preferences`, so an issue names its item (`preferences[2].workflowId`).
 */
export const subscriptionPreferenceBatchSchema = z.strictObject({
  preferences: z
    .array(z.strictObject({ subscriptionIdentifier: subscriptionIdentifierSchema, workflowId: idSchema, enabled: enabledFlag, channels: channelPreferencesSchema.optional(), condition: noCondition }))
    .max(MAX_SUBSCRIPTION_FILTERS, `must hold at most ${MAX_SUBSCRIPTION_FILTERS} items`),
});
export type SubscriptionPreferenceBatch = z.input<typeof subscriptionPreferenceBatchSchema>['preferences'];

/** A subscription's say over one workflow, as stored: off as a whole, or channel by channel (absent: on). */
export const subscriptionPreferenceRecordSchema = z.object({
  workflowId: z.string(),
  enabled: z.boolean(),
  channels: channelPreferencesSchema,
});
export type SubscriptionPreferenceRecord = z.infer<typeof subscriptionPreferenceRecordSchema>;

/** The record of a subscription: what a topic membership carries beyond being one. */
export const topicSubscriptionRecordSchema = z.object({
  _id: z.string(),
  identifier: z.string(),
  name: z.string().optional(),
  topicKey: z.string(),
  _topicId: z.string(),
  subscriberId: z.string(),
  _subscriberId: z.string(),
  preferences: z.array(subscriptionPreferenceRecordSchema),
  createdAt: isoInstantSchema,
  updatedAt: isoInstantSchema,
});
export type TopicSubscriptionRecord = z.infer<typeof topicSubscriptionRecordSchema>;

/** A subscription preference as read: the workflow, and each channel its active steps use, on or off. */
export const subscriptionWorkflowPreferenceSchema = z.object({
  /** The workflow's internal id. */
  workflowId: z.string(),
  workflowIdentifier: z.string(),
  enabled: z.boolean(),
  channels: channelPreferencesSchema,
  /** False when nothing is stored for the workflow and this is what holds until something is. */
  stored: z.boolean(),
});
export type SubscriptionWorkflowPreference = z.infer<typeof subscriptionWorkflowPreferenceSchema>;

/** A subscriber's subscription to a topic: its membership, identifier, name and per-workflow preferences. */
export const topicSubscriptionDetailsSchema = z.object({
  /** The record's id; a membership without a record has the membership's id. */
  _id: z.string(),
  identifier: z.string(),
  name: z.string().optional(),
  topicKey: z.string(),
  subscriberId: z.string(),
  preferences: z.array(subscriptionWorkflowPreferenceSchema),
  createdAt: isoInstantSchema.optional(),
  updatedAt: isoInstantSchema.optional(),
});
export type TopicSubscriptionDetails = z.infer<typeof topicSubscriptionDetailsSchema>;
