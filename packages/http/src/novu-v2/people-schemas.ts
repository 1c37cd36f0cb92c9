import { idSchema, subscriberInputSchema, topicKeySchema } from '@tidings/core/schemas';
import { z } from 'zod';

/**
 * The inputs of Novu's subscriber and topic routes as `@novu/api` 3.x and `@novu/node` 2.x send them
 * (CreateSubscriberRequestDto, PatchSubscriberRequestDto, BulkSubscriberCreateDto, the topic DTOs and
 * the list queries), one zod schema per shape. A member Tidings cannot honour is refused by name
 * ("is not supported: …") instead of being dropped.
 */

/** A member accepted only when left out (or null): Tidings has nowhere to keep it. */
const refused = (why: string) => z.unknown().refine((value) => value === undefined || value === null, `is not supported: ${why}`).optional();

/** Most subscribers in one `POST /v1/subscribers/bulk`, as Novu. */
export const MAX_BULK_SUBSCRIBERS = 500;

const v2SubscriberMembers = subscriberInputSchema.pick({ firstName: true, lastName: true, email: true, phone: true, avatar: true, locale: true, timezone: true, data: true }).shape;

/** `POST /v2/subscribers` (CreateSubscriberRequestDto). */
export const createSubscriberSchema = z.strictObject({ subscriberId: idSchema, ...v2SubscriberMembers });

/** `PATCH /v2/subscribers/:subscriberId` (PatchSubscriberRequestDto): only the members given change; null clears one. */
export const patchSubscriberSchema = z.strictObject(v2SubscriberMembers);

/** `POST /v1/subscribers/bulk` (BulkSubscriberCreateDto): each item is a v1 subscriber (channels included). */
export const bulkSubscribersSchema = z.strictObject({
  subscribers: z
    .array(subscriberInputSchema)
    .min(1, 'must not be empty')
    .max(MAX_BULK_SUBSCRIBERS, `must contain no more than ${MAX_BULK_SUBSCRIBERS} elements`),
});

export const booleanQuery = z.enum(['true', 'false']).transform((v) => v === 'true');

/** `?failIfExists=true`: a create that finds the record refuses (409) instead of updating it. */
export const failIfExistsQuery = z.strictObject({ failIfExists: booleanQuery.optional() });

export const limitSchema = z
  .string()
  .regex(/^\d{1,4}$/, 'must be a whole number from 1 to 100')
  .transform(Number)
  .pipe(z.number().min(1, 'must be a whole number from 1 to 100').max(100, 'must be a whole number from 1 to 100'));

const forwardOnly = 'pages go forward only, in subscriberId order (follow next)';

/** Novu's cursor query (CursorPaginationQueryDto), as far as a forward scan in subscriberId order can serve it. */
const cursorQuery = {
  after: z.string().min(1, 'must not be empty').optional(),
  before: refused(forwardOnly),
  limit: limitSchema.default(10),
  orderDirection: z.enum(['ASC', 'DESC']).refine((d) => d === 'ASC', `is not supported: ${forwardOnly}, so only ASC`).optional(),
  orderBy: z.string().refine((by) => by === 'subscriberId', `is not supported: ${forwardOnly}; leave orderBy out`).optional(),
  includeCursor: booleanQuery.optional(),
};
const contextKeysRefused = refused('Tidings has no contexts on topic subscriptions');

/** `GET /v2/subscribers` (ListSubscribersQueryDto): each filter given narrows the results to values containing it (any case). */
export const searchSubscribersQuery = z.strictObject({
  ...cursorQuery,
  email: z.string().optional(),
  phone: z.string().optional(),
  subscriberId: z.string().optional(),
  name: z.string().optional(),
});
export type SearchSubscribersQuery = z.output<typeof searchSubscribersQuery>;

/** `GET /v2/topics` (ListTopicsQueryDto): every topic in key order, or the one with `key`; `name` a part of the name. */
export const listTopicsQuery = z.strictObject({
  ...cursorQuery,
  key: z.string().optional(),
  name: z.string().optional(),
});
export type ListTopicsQuery = z.output<typeof listTopicsQuery>;

/** `GET /v2/topics/:topicKey/subscriptions` (ListTopicSubscriptionsQueryDto). */
export const listTopicSubscriptionsQuery = z.strictObject({ ...cursorQuery, subscriberId: z.string().optional(), contextKeys: contextKeysRefused });
export type ListTopicSubscriptionsQuery = z.output<typeof listTopicSubscriptionsQuery>;

/** `GET /v2/subscribers/:subscriberId/subscriptions` (ListSubscriberSubscriptionsQueryDto): served for one topic, by its key. */
export const listSubscriberSubscriptionsQuery = z.strictObject({
  ...cursorQuery,
  key: z.string({ error: "is required: Tidings' storage cannot list the topics of a subscriber; give the key of the topic" }),
  contextKeys: contextKeysRefused,
});
export type ListSubscriberSubscriptionsQuery = z.output<typeof listSubscriberSubscriptionsQuery>;

const topicDataRefused = refused('Tidings topics hold a key and a name only');

/** `POST /v2/topics` (CreateUpdateTopicRequestDto). */
export const createTopicSchema = z.strictObject({ key: topicKeySchema, name: z.string().optional(), data: topicDataRefused });

/** `PATCH /v2/topics/:topicKey` (UpdateTopicRequestDto). */
export const updateTopicSchema = z.strictObject({ name: z.string().optional(), data: topicDataRefused });

/** The identifier Novu gives a subscription made without one: `tk_<topicKey>:si_<subscriberId>`. */
export const subscriptionIdentifier = (topicKey: string, subscriberId: string) => `tk_${topicKey}:si_${subscriberId}`;

const subscriptionNameRefused = refused('Tidings keeps no name on a topic subscription');
const subscriptionPreferencesRefused = refused('Tidings keeps no preferences per topic subscription (set them on the subscriber)');

/** Most subscriptions one call makes or removes, as Novu (with its words). */
const MAX_SUBSCRIPTIONS = 100;
const listOf = <T extends z.ZodType>(item: T, verb: 'subscribe' | 'unsubscribe', what: 'subscribers' | 'subscriptions') =>
  z
    .array(item)
    .min(1, what === 'subscribers' ? 'At least one subscriber identifier is required' : 'At least one subscription is required')
    .max(MAX_SUBSCRIPTIONS, `Cannot ${verb} more than ${MAX_SUBSCRIPTIONS} ${what} at once`)
    .optional();

/**
 * `POST /v2/topics/:topicKey/subscriptions` (CreateTopicSubscriptionsRequestDto): subscriberIds, or
 * subscriptions given as subscriberIds or `{ identifier, subscriberId }` (the identifier must be the
 * one Tidings gives, as Tidings keeps one subscription per subscriber and topic).
 */
export const createTopicSubscriptionsSchema = z.strictObject({
  subscriberIds: listOf(idSchema, 'subscribe', 'subscribers'),
  subscriptions: listOf(z.union([idSchema, z.strictObject({ identifier: z.string(), subscriberId: idSchema, name: subscriptionNameRefused })]), 'subscribe', 'subscriptions'),
  name: subscriptionNameRefused,
  context: refused('Tidings has no contexts on topic subscriptions'),
  preferences: subscriptionPreferencesRefused,
});
export type CreateTopicSubscriptionsBody = z.output<typeof createTopicSubscriptionsSchema>;

/** `DELETE /v2/topics/:topicKey/subscriptions` (DeleteTopicSubscriptionsRequestDto): subscriberIds, or subscriptions by subscriberId or identifier. */
export const deleteTopicSubscriptionsSchema = z.strictObject({
  subscriberIds: listOf(idSchema, 'unsubscribe', 'subscribers'),
  subscriptions: listOf(z.union([idSchema, z.strictObject({ identifier: z.string().optional(), subscriberId: idSchema.optional() })]), 'unsubscribe', 'subscriptions'),
});
export type DeleteTopicSubscriptionsBody = z.output<typeof deleteTopicSubscriptionsSchema>;

/** `PATCH /v2/topics/:topicKey/subscriptions/:identifier` (UpdateTopicSubscriptionRequestDto): nothing Tidings keeps can change. */
export const updateTopicSubscriptionSchema = z.strictObject({ name: subscriptionNameRefused, preferences: subscriptionPreferencesRefused });
