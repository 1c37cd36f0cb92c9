import { TidingsError, type FieldIssue, type Subscriber, type Topic } from '@tidings/core';
import { notFound, parseInput } from '@tidings/core/internal';
import { HttpError } from '../errors.js';
import { route, type RouteDefinition, type RouteInput } from '../routes/route.js';
import {
  createTopicSchema,
  createTopicSubscriptionsSchema,
  deleteTopicSubscriptionsSchema,
  failIfExistsQuery,
  listSubscriberSubscriptionsQuery,
  listTopicsQuery,
  listTopicSubscriptionsQuery,
  subscriptionIdentifier,
  updateTopicSchema,
  updateTopicSubscriptionSchema,
  type ListSubscriberSubscriptionsQuery,
  type ListTopicsQuery,
  type ListTopicSubscriptionsQuery,
} from './people-schemas.js';
import { countMatches, cursor, scanPage, type IdPager } from './scan-page.js';

type RouteTidings = RouteInput['tidings'];

/** TopicResponseDto. */
const topicToWire = (topic: Topic) => ({ _id: topic._id, key: topic.key, name: topic.name, createdAt: topic.createdAt, updatedAt: topic.updatedAt });

/**
 * A subscription as Novu's v2 DTOs show it. Tidings keeps one membership per subscriber and topic,
 * with no dates of its own: `createdAt`/`updatedAt` are empty, as Novu answers for a subscription
 * without them; the `_id` is the one `/v1/topics/:key/subscribers/:id` answers.
 */
function subscriptionToWire(topic: Topic, subscriber: Subscriber) {
  return {
    _id: `${topic._id}${subscriber._id}`,
    identifier: subscriptionIdentifier(topic.key, subscriber.subscriberId),
    topic: { _id: topic._id, key: topic.key, name: topic.name },
    subscriber: { _id: subscriber._id, subscriberId: subscriber.subscriberId, avatar: subscriber.avatar, firstName: subscriber.firstName, lastName: subscriber.lastName, email: subscriber.email },
    createdAt: '',
    updatedAt: '',
  };
}

/** TopicSubscriptionResponseDto, a list item: the whole topic. */
const listedSubscription = (topic: Topic, subscriber: Subscriber) => ({ ...subscriptionToWire(topic, subscriber), topic: topicToWire(topic) });

async function requireTopic(tidings: RouteTidings, key: string): Promise<Topic> {
  const topic = await tidings.topics.get(key);
  if (!topic) throw notFound('Topic', key);
  return topic;
}

const memberIds = (tidings: RouteTidings, key: string): IdPager => (after, limit) => tidings.topics.memberPage(key, { after, limit });
const loadSubscribers = (tidings: RouteTidings) => (ids: string[]) => tidings.subscribers.getMany(ids);

/** The subscriberId an identifier Tidings gave names, or null when it is not one for this topic. */
function subscriberOfIdentifier(topicKey: string, identifier: string): string | null {
  const prefix = subscriptionIdentifier(topicKey, '');
  return identifier.startsWith(prefix) && identifier.length > prefix.length ? identifier.slice(prefix.length) : null;
}

/** A list of at most one item (the query named its topic by key): Novu's page with its count. */
function singlePage<T>(item: T | null, query: { after?: string | undefined; includeCursor?: boolean | undefined }, idOf: (item: T) => string) {
  const after = query.after === undefined ? null : cursor.decode(query.after, 'after');
  const shown = item !== null && (after === null || (query.includeCursor === true && after === idOf(item)) || after < idOf(item));
  return { data: shown ? [item] : [], next: null, previous: null, totalCount: item === null ? 0 : 1, totalCountCapped: false };
}

/** The environment's topic keys in order, the topics read with them kept for `load`. */
function topicSource(tidings: RouteTidings) {
  const read = new Map<string, Topic>();
  const ids: IdPager = async (after, limit) => {
    const page = await tidings.topics.list({ after, limit });
    for (const topic of page) read.set(topic.key, topic);
    return page.map((t) => t.key);
  };
  const load = async (keys: string[]) => (await Promise.all(keys.map(async (key) => read.get(key) ?? (await tidings.topics.get(key))))).filter((t): t is Topic => t !== null);
  return { ids, load };
}

/**
 * `@novu/api` 3.x's `topics` namespace (`/v2/topics`: list, create, get, update, delete, and
 * `topics.subscriptions`) and `@novu/node`'s `topics.delete` (`DELETE /v1/topics/:topicKey`), on
 * `tidings.topics`.
 */
export function topicV2Routes(): RouteDefinition[] {
  return [
    route({
      method: 'get',
      path: '/v2/topics',
      summary: 'List topics in key order (`key`: that topic alone), `name` a part of the name in any case',
      status: 200,
      envelope: 'raw',
      query: listTopicsQuery,
      async handle({ tidings, query }) {
        const q = query as unknown as ListTopicsQuery;
        const named = (topic: Topic) => q.name === undefined || topic.name.toLowerCase().includes(q.name.toLowerCase());
        if (q.key !== undefined) {
          const topic = await tidings.topics.get(q.key);
          return singlePage(topic && named(topic) ? topicToWire(topic) : null, q, (t) => t.key);
        }
        const source = topicSource(tidings);
        const filter = q.name === undefined ? undefined : named;
        const [page, count] = await Promise.all([
          scanPage({ ...source, idOf: (t: Topic) => t.key, matches: filter ?? (() => true), after: q.after === undefined ? null : cursor.decode(q.after, 'after'), includeCursor: q.includeCursor ?? false, limit: q.limit }),
          countMatches({ ...topicSource(tidings), ...(filter && { matches: filter }) }),
        ]);
        return { data: page.items.map(topicToWire), next: page.next, previous: null, ...count };
      },
    }),
    route({
      method: 'post',
      path: '/v2/topics',
      summary: 'Create a topic, or rename the one with this key (`failIfExists=true`: 409 instead)',
      status: 201,
      envelope: 'data',
      body: createTopicSchema,
      query: failIfExistsQuery,
      async handle({ tidings, body, query }) {
        const input = parseInput(createTopicSchema, body ?? {}, 'topic');
        if ((query as { failIfExists?: boolean }).failIfExists) {
          const existing = await tidings.topics.get(input.key);
          // Novu answers a TopicResponseDto with the 409: @novu/api throws it as its TopicResponseDto error.
          if (existing) throw new HttpError(409, `Topic ${input.key} already exists`, topicToWire(existing));
        }
        return topicToWire(await tidings.topics.upsert({ key: input.key, ...(input.name !== undefined && { name: input.name }) }));
      },
    }),
    route({ method: 'get', path: '/v2/topics/:topicKey', summary: 'Retrieve a topic', status: 200, envelope: 'data', handle: async ({ tidings, params }) => topicToWire(await requireTopic(tidings, params['topicKey']!)) }),
    route({
      method: 'patch',
      path: '/v2/topics/:topicKey',
      summary: 'Rename a topic (404 when it does not exist)',
      status: 200,
      envelope: 'data',
      body: updateTopicSchema,
      async handle({ tidings, params, body }) {
        const patch = parseInput(updateTopicSchema, body ?? {}, 'topic change');
        const topic = await requireTopic(tidings, params['topicKey']!);
        return topicToWire(patch.name === undefined ? topic : await tidings.topics.upsert({ key: topic.key, name: patch.name }));
      },
    }),
    route({
      method: 'delete',
      path: '/v2/topics/:topicKey',
      summary: 'Delete a topic with every subscription to it (404 when it does not exist)',
      status: 200,
      envelope: 'data',
      async handle({ tidings, params }) {
        await tidings.topics.delete(params['topicKey']!);
        return { acknowledged: true };
      },
    }),
    route({
      method: 'delete',
      path: '/v1/topics/:topicKey',
      summary: 'Delete a topic that has no subscribers (409 while it has)',
      status: 204,
      envelope: 'raw',
      async handle({ tidings, params }) {
        const topic = await requireTopic(tidings, params['topicKey']!);
        if ((await memberIds(tidings, topic.key)(null, 1)).length > 0) {
          throw new HttpError(409, `Topic with key ${topic.key} in the environment ${tidings.environmentId} can't be deleted as it still has subscribers assigned`);
        }
        await tidings.topics.delete(topic.key);
      },
    }),
    route({
      method: 'get',
      path: '/v2/topics/:topicKey/subscriptions',
      summary: 'The subscriptions of a topic (`subscriberId` for one), forward pages in subscriberId order',
      status: 200,
      envelope: 'raw',
      query: listTopicSubscriptionsQuery,
      async handle({ tidings, params, query }) {
        const q = query as unknown as ListTopicSubscriptionsQuery;
        const topic = await requireTopic(tidings, params['topicKey']!);
        if (q.subscriberId !== undefined) {
          const member = (await tidings.topics.getSubscription(topic.key, q.subscriberId)) ? await tidings.subscribers.get(q.subscriberId) : null;
          return singlePage(member && listedSubscription(topic, member), q, (s) => s.subscriber.subscriberId);
        }
        const source = { ids: memberIds(tidings, topic.key), load: loadSubscribers(tidings) };
        const [page, count] = await Promise.all([
          scanPage({ ...source, idOf: (s: Subscriber) => s.subscriberId, matches: () => true, after: q.after === undefined ? null : cursor.decode(q.after, 'after'), includeCursor: q.includeCursor ?? false, limit: q.limit }),
          countMatches(source),
        ]);
        return { data: page.items.map((s) => listedSubscription(topic, s)), next: page.next, previous: null, ...count };
      },
    }),
    route({
      method: 'post',
      path: '/v2/topics/:topicKey/subscriptions',
      summary: 'Subscribe up to 100 subscribers to a topic (created when missing); unknown ones are listed in errors',
      status: 201,
      envelope: 'data',
      body: createTopicSubscriptionsSchema,
      async handle({ tidings, params, body }) {
        const key = params['topicKey']!;
        const input = parseInput(createTopicSubscriptionsSchema, body ?? {}, 'topic subscriptions');
        const issues: FieldIssue[] = [];
        const ids = [
          ...(input.subscriberIds ?? []),
          ...(input.subscriptions ?? []).map((s, i) => {
            if (typeof s === 'string') return s;
            if (s.identifier !== subscriptionIdentifier(key, s.subscriberId)) {
              issues.push({ path: `subscriptions[${i}].identifier`, message: `is not supported: Tidings keeps one subscription per subscriber and topic, identified as "${subscriptionIdentifier(key, s.subscriberId)}"` });
            }
            return s.subscriberId;
          }),
        ];
        if (ids.length === 0) issues.push({ path: 'subscriptions', message: 'is required: give subscriptions (or subscriberIds)' });
        if (issues.length > 0) throw new TidingsError('validation_failed', `Invalid topic subscriptions: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, { issues });
        const unique = [...new Set(ids)];
        const notFoundErrors = (missing: readonly string[]) => missing.map((id) => ({ subscriberId: id, code: 'SUBSCRIBER_NOT_FOUND', message: `Subscriber with ID '${id}' could not be found.` }));
        // As Novu: when no subscriber is known, the answer comes with a 400 (and, refused, it changes nothing: no topic is made).
        if ((await loadSubscribers(tidings)(unique)).length === 0) {
          throw new HttpError(400, 'No subscriber could be subscribed to the topic', { data: [], meta: { totalCount: unique.length, successful: 0, failed: unique.length }, errors: notFoundErrors(unique) });
        }
        const { succeeded, notFound: unknown } = await tidings.topics.addSubscribers(key, unique);
        const topic = await requireTopic(tidings, key);
        const subscribers = await loadSubscribers(tidings)(succeeded);
        return {
          data: subscribers.map((s) => subscriptionToWire(topic, s)),
          meta: { totalCount: unique.length, successful: succeeded.length, failed: unknown.length },
          ...(unknown.length > 0 && { errors: notFoundErrors(unknown) }),
        };
      },
    }),
    route({
      method: 'delete',
      path: '/v2/topics/:topicKey/subscriptions',
      summary: 'Unsubscribe up to 100 subscribers from a topic; those unknown or not subscribed are listed in errors',
      status: 200,
      envelope: 'data',
      body: deleteTopicSubscriptionsSchema,
      async handle({ tidings, params, body }) {
        const topic = await requireTopic(tidings, params['topicKey']!);
        const input = parseInput(deleteTopicSubscriptionsSchema, body ?? {}, 'topic subscriptions');
        const errors: { subscriberId: string; code: string; message: string }[] = [];
        const ids: string[] = [...(input.subscriberIds ?? [])];
        for (const s of input.subscriptions ?? []) {
          if (typeof s === 'string') ids.push(s);
          else if (s.subscriberId !== undefined) ids.push(s.subscriberId);
          else {
            const id = s.identifier === undefined ? null : subscriberOfIdentifier(topic.key, s.identifier);
            if (id === null) errors.push({ subscriberId: s.identifier ?? '', code: 'SUBSCRIPTION_NOT_FOUND', message: `Subscription '${s.identifier ?? ''}' not found.` });
            else ids.push(id);
          }
        }
        const unique = [...new Set(ids)];
        const found = new Map((await loadSubscribers(tidings)(unique)).map((s) => [s.subscriberId, s] as const));
        const removed: Subscriber[] = [];
        for (const id of unique) {
          const subscriber = found.get(id);
          if (!subscriber) errors.push({ subscriberId: id, code: 'SUBSCRIBER_NOT_FOUND', message: `Subscriber with ID '${id}' could not be found.` });
          else if (!(await tidings.topics.getSubscription(topic.key, id))) errors.push({ subscriberId: id, code: 'SUBSCRIPTION_NOT_FOUND', message: `Subscription for subscriber '${id}' not found.` });
          else removed.push(subscriber);
        }
        if (removed.length > 0) await tidings.topics.removeSubscribers(topic.key, removed.map((s) => s.subscriberId));
        const answer = {
          data: removed.map((s) => subscriptionToWire(topic, s)),
          meta: { totalCount: removed.length + errors.length, successful: removed.length, failed: errors.length },
          ...(errors.length > 0 && { errors }),
        };
        if (removed.length === 0 && errors.length > 0) throw new HttpError(400, 'No subscription could be removed from the topic', answer);
        return answer;
      },
    }),
    route({
      method: 'get',
      path: '/v2/topics/:topicKey/subscriptions/:identifier',
      summary: 'Retrieve a subscription by its identifier (tk_<topicKey>:si_<subscriberId>)',
      status: 200,
      envelope: 'data',
      async handle({ tidings, params }) {
        const topic = await requireTopic(tidings, params['topicKey']!);
        const subscription = await requireSubscription(tidings, topic, params['identifier']!);
        return { id: subscription._id, identifier: subscription.identifier };
      },
    }),
    route({
      method: 'patch',
      path: '/v2/topics/:topicKey/subscriptions/:identifier',
      summary: 'Update a subscription: Tidings keeps neither names nor preferences on one, so only an empty change is taken',
      status: 200,
      envelope: 'data',
      body: updateTopicSubscriptionSchema,
      async handle({ tidings, params, body }) {
        parseInput(updateTopicSubscriptionSchema, body ?? {}, 'topic subscription change');
        const topic = await requireTopic(tidings, params['topicKey']!);
        return requireSubscription(tidings, topic, params['identifier']!);
      },
    }),
    route({
      method: 'get',
      path: '/v2/subscribers/:subscriberId/subscriptions',
      summary: "A subscriber's subscription to the topic `key` (the storage cannot list a subscriber's topics)",
      status: 200,
      envelope: 'raw',
      query: listSubscriberSubscriptionsQuery,
      async handle({ tidings, params, query }) {
        const q = query as unknown as ListSubscriberSubscriptionsQuery;
        const subscriber = await tidings.subscribers.get(params['subscriberId']!);
        if (!subscriber) throw notFound('Subscriber', params['subscriberId']!);
        const topic = await tidings.topics.get(q.key);
        const member = topic && (await tidings.topics.getSubscription(topic.key, subscriber.subscriberId)) ? listedSubscription(topic, subscriber) : null;
        return singlePage(member, q, (s) => s.topic.key);
      },
    }),
  ];
}

/** The subscription an identifier names, as SubscriptionResponseDto; 404 when there is none. */
async function requireSubscription(tidings: RouteTidings, topic: Topic, identifier: string) {
  const subscriberId = subscriberOfIdentifier(topic.key, identifier);
  const subscriber = subscriberId !== null && (await tidings.topics.getSubscription(topic.key, subscriberId)) ? await tidings.subscribers.get(subscriberId) : null;
  if (!subscriber) throw notFound('Subscription', identifier);
  return subscriptionToWire(topic, subscriber);
}
