import { z } from 'zod';
import { idSchema } from './limits.js';
import { isoInstantSchema, jsonObjectSchema } from './enums.js';

export const topicKeySchema = idSchema;

export const topicInputSchema = z.object({ key: topicKeySchema, name: z.string().optional() });
export type TopicInput = z.input<typeof topicInputSchema>;

export const topicSchema = z.object({
  _id: z.string(),
  key: z.string(),
  name: z.string(),
  _environmentId: z.string(),
  _organizationId: z.string(),
  createdAt: isoInstantSchema,
  updatedAt: isoInstantSchema,
});
export type Topic = z.infer<typeof topicSchema>;

export const topicSubscriptionSchema = z.object({
  /** The membership's id: the topic's id and the subscriber's internal id, so it is stable without being stored. */
  _id: z.string(),
  _organizationId: z.string(),
  _environmentId: z.string(),
  _subscriberId: z.string(),
  _topicId: z.string(),
  topicKey: z.string(),
  externalSubscriberId: z.string(),
});
export type TopicSubscription = z.infer<typeof topicSubscriptionSchema>;
/** A membership as storage returns it; the engine adds the `_id`. */
export type StoredTopicSubscription = Omit<TopicSubscription, '_id'>;

export const subscriberIdListSchema = z.array(idSchema).max(10_000);

export const tenantInputSchema = z.object({
  identifier: idSchema,
  name: z.string().optional(),
  data: jsonObjectSchema.optional(),
});
export type TenantInput = z.input<typeof tenantInputSchema>;

export const tenantSchema = z.object({
  _id: z.string(),
  identifier: z.string(),
  name: z.string(),
  data: jsonObjectSchema,
  _environmentId: z.string(),
  createdAt: isoInstantSchema,
  updatedAt: isoInstantSchema,
});
export type Tenant = z.infer<typeof tenantSchema>;
