import { TidingsError, notFound } from '../../errors.js';
import { newId } from '../../ids.js';
import {
  subscriberIdListSchema,
  subscriptionIdentifierSchema,
  subscriptionPreferenceBatchSchema,
  subscriptionPreferenceUpdateSchema,
  topicKeySchema,
  topicSubscriptionCreateSchema,
  topicSubscriptionQuerySchema,
  topicSubscriptionUpdateSchema,
  type Subscriber,
  type SubscriptionPreferenceBatch,
  type SubscriptionPreferenceRecord,
  type SubscriptionPreferenceUpdate,
  type SubscriptionWorkflowPreference,
  type Topic,
  type TopicSubscriptionCreate,
  type TopicSubscriptionDetails,
  type TopicSubscriptionQuery,
  type TopicSubscriptionRecord,
  type TopicSubscriptionUpdate,
  type Workflow,
} from '../../schemas/index.js';
import type { StorageRepositories } from '../../storage.js';
import { parseInput } from '../../validation.js';
import type { EngineContext } from '../context.js';
import { ensureTopic, type topicsApi } from '../catalog/people-api.js';
import { preferencesFromFilters, subscribable, workflowsNamed } from './subscription-filters.js';
import {
  defaultIdentifier,
  deleteSubscriptions,
  deleteTopicSubscriptions,
  putSubscriptions,
  subscriptionByIdentifier,
  subscriptionKey,
  subscriptionsByKey,
  topicOfDefaultIdentifier,
} from './subscription-records.js';
import { subscriptionDetails, workflowPreferenceView, type Membership } from './subscription-view.js';

/** A subscriber's membership of a topic with its subscription record, when it has one. */
interface Held {
  readonly topic: Topic;
  readonly membership: Membership;
  readonly record: TopicSubscriptionRecord | null;
}

/** One subscription preference changed, and the subscription it belongs to after the change. */
export interface SubscriptionPreferenceChange {
  readonly subscription: TopicSubscriptionDetails;
  readonly preference: SubscriptionWorkflowPreference;
}

const identifierOf = (held: Held) => held.record?.identifier ?? held.membership.identifier;

/**
 * Topic subscriptions as Novu's `<Subscription />` keeps them: a subscriber's membership of a topic,
 * with an identifier, a name, and preferences per workflow that hold for what reaches them through
 * that topic. One subscription per membership; what a membership carries beyond being one is a
 * record of the record store. Every call is scoped to one subscriber.
 */
export function topicSubscriptionsApi(ctx: EngineContext) {
  const { storage, env } = ctx;

  async function subscriberOf(repos: StorageRepositories, subscriberId: string): Promise<Subscriber> {
    const [subscriber] = await repos.subscribers.getMany(env, [subscriberId]);
    if (!subscriber) throw notFound('Subscriber', subscriberId);
    return subscriber;
  }

  /** The subscriber's membership of the topic and its record, or null when they are not a member. */
  async function held(repos: StorageRepositories, topicKey: string, subscriber: Subscriber): Promise<Held | null> {
    const [topic, member] = await Promise.all([repos.topics.get(env, topicKey), repos.topics.getSubscription(env, topicKey, subscriber.subscriberId)]);
    if (!topic || !member) return null;
    const key = subscriptionKey(topic._id, subscriber._id);
    const record = (await subscriptionsByKey(repos.records, env, [key])).get(key) ?? null;
    const membership = { id: `${member._topicId}${member._subscriberId}`, identifier: defaultIdentifier(topicKey, subscriber.subscriberId), topicKey, subscriberId: subscriber.subscriberId };
    return { topic, membership, record };
  }

  /** The subscriber's subscription of this identifier, whatever its topic: a record's, or a plain membership's default one. */
  async function heldByIdentifier(repos: StorageRepositories, subscriber: Subscriber, identifier: string): Promise<Held | null> {
    const record = await subscriptionByIdentifier(repos.records, env, subscriber._id, identifier);
    const topicKey = record?.topicKey ?? topicOfDefaultIdentifier(identifier, subscriber.subscriberId);
    if (topicKey === null) return null;
    const found = await held(repos, topicKey, subscriber);
    return found && identifierOf(found) === identifier ? found : null;
  }

  /** The subscriber's subscription of the topic with this identifier; not_found naming both otherwise. */
  async function heldAs(repos: StorageRepositories, topicKey: string, subscriber: Subscriber, identifier: string): Promise<Held> {
    const found = await held(repos, topicKey, subscriber);
    if (!found || identifierOf(found) !== identifier) throw new TidingsError('not_found', `Subscription "${identifier}" of topic "${topicKey}" was not found`);
    return found;
  }

  /** The record a membership gets when something is first stored for it. */
  const newRecord = (found: Held, subscriber: Subscriber, now: string): TopicSubscriptionRecord => ({
    _id: newId(ctx.clock.now()),
    identifier: found.membership.identifier,
    topicKey: found.topic.key,
    _topicId: found.topic._id,
    subscriberId: subscriber.subscriberId,
    _subscriberId: subscriber._id,
    preferences: [],
    createdAt: now,
    updatedAt: now,
  });

  const detailsOf = async (repos: StorageRepositories, found: Held, record: TopicSubscriptionRecord | null, listed: readonly Workflow[] = []) =>
    subscriptionDetails(found.membership, record, await repos.workflows.list(env), listed);

  /**
   * The workflow a preference change names; not_found when there is none, validation_failed naming
   * `workflowId` for a critical one (they always send) or one not live.
   */
  async function preferenceTarget(repos: StorageRepositories, workflowRef: string, path: string): Promise<Workflow> {
    const workflow = await repos.workflows.find(env, workflowRef);
    if (!workflow) throw notFound('Workflow', workflowRef);
    if (!subscribable(workflow)) {
      const message = workflow.critical ? `"${workflow.identifier}" is critical: it always sends, whatever a subscription says` : `"${workflow.identifier}" is not active`;
      throw new TidingsError('validation_failed', `Invalid subscription preference: ${path}: ${message}`, { issues: [{ path, message }] });
    }
    return workflow;
  }

  /** Applies one preference change to the subscription's record (made for a plain membership). */
  async function changePreference(repos: StorageRepositories, subscriber: Subscriber, identifier: string, workflow: Workflow, change: { enabled?: boolean | undefined; channels?: SubscriptionPreferenceRecord['channels'] | undefined }, records: Map<string, TopicSubscriptionRecord>): Promise<{ found: Held; record: TopicSubscriptionRecord; preference: SubscriptionWorkflowPreference }> {
    const found = await heldByIdentifier(repos, subscriber, identifier);
    if (!found) throw new TidingsError('not_found', `Subscription "${identifier}" was not found`);
    const key = subscriptionKey(found.topic._id, subscriber._id);
    const now = ctx.now();
    const base = records.get(key) ?? found.record ?? newRecord(found, subscriber, now);
    const before = base.preferences.find((p) => p.workflowId === workflow._id) ?? { workflowId: workflow._id, enabled: true, channels: {} };
    const after: SubscriptionPreferenceRecord = { workflowId: workflow._id, enabled: change.enabled ?? before.enabled, channels: { ...before.channels, ...change.channels } };
    const preferences = base.preferences.some((p) => p.workflowId === workflow._id) ? base.preferences.map((p) => (p.workflowId === workflow._id ? after : p)) : [...base.preferences, after];
    const record = { ...base, preferences, updatedAt: now };
    records.set(key, record);
    return { found, record, preference: workflowPreferenceView(workflow, after) };
  }

  return {
    /**
     * Subscribes the subscriber to the topic (made when missing, named `topicName`), with an
     * identifier (Novu's default `tk_<topicKey>:si_<subscriberId>` when none is given) and the
     * preferences its filters give. Subscribing again as the same identifier changes nothing and
     * answers the subscription; a subscriber has one subscription per topic, so another identifier
     * is a conflict, as is one the subscriber already uses for another topic.
     */
    async create(subscriberId: string, topicKey: string, input: TopicSubscriptionCreate = {}): Promise<TopicSubscriptionDetails> {
      const key = parseInput(topicKeySchema, topicKey, 'topic key');
      const parsed = parseInput(topicSubscriptionCreateSchema, input, 'subscription');
      return storage.transaction(async (tx) => {
        const subscriber = await subscriberOf(tx, subscriberId);
        const identifier = parsed.identifier || defaultIdentifier(key, subscriber.subscriberId);
        const existing = await held(tx, key, subscriber);
        if (existing?.record) {
          if (existing.record.identifier !== identifier) throw conflict(`${subscriber.subscriberId} already subscribes to topic "${key}" as "${existing.record.identifier}"`);
          return detailsOf(tx, existing, existing.record);
        }
        const other = await subscriptionByIdentifier(tx.records, env, subscriber._id, identifier);
        if (other && other.topicKey !== key) throw conflict(`${subscriber.subscriberId} already uses "${identifier}" for topic "${other.topicKey}"`);
        const topic = await ensureTopic(ctx, tx, key, parsed.topicName);
        if (!existing) await tx.topics.addMembers(env, topic, [subscriber]);
        const found = existing ?? (await held(tx, key, subscriber))!;
        const workflows = await tx.workflows.list(env);
        const now = ctx.now();
        const record: TopicSubscriptionRecord = {
          ...newRecord(found, subscriber, now),
          identifier,
          ...(parsed.name !== undefined && { name: parsed.name }),
          preferences: preferencesFromFilters(parsed.preferences ?? [], workflows),
        };
        await putSubscriptions(tx.records, env, [record]);
        return subscriptionDetails(found.membership, record, workflows);
      });
    },

    /**
     * The subscriber's subscription to the topic, or null when they are not a member (or `identifier`
     * names another). Besides its stored preferences it lists those of the workflows `workflowIds`
     * and `tags` name, as they hold while nothing is stored for them (on).
     */
    async get(subscriberId: string, topicKey: string, query: TopicSubscriptionQuery = {}): Promise<TopicSubscriptionDetails | null> {
      const parsed = parseInput(topicSubscriptionQuerySchema, query, 'subscription query');
      const subscriber = await subscriberOf(storage, subscriberId);
      const found = await held(storage, topicKey, subscriber);
      if (!found || (parsed.identifier !== undefined && identifierOf(found) !== parsed.identifier)) return null;
      const workflows = await storage.workflows.list(env);
      return subscriptionDetails(found.membership, found.record, workflows, workflowsNamed(workflows, parsed.workflowIds ?? [], parsed.tags ?? []));
    },

    /** The subscriber's subscriptions to the topic: one when they are a member, none otherwise. */
    async list(subscriberId: string, topicKey: string): Promise<TopicSubscriptionDetails[]> {
      const subscriber = await subscriberOf(storage, subscriberId);
      const found = await held(storage, topicKey, subscriber);
      return found ? [await detailsOf(storage, found, found.record)] : [];
    },

    /** Renames the subscription and (when `preferences` is given) replaces its preferences with those the filters give. */
    async update(subscriberId: string, topicKey: string, identifier: string, input: TopicSubscriptionUpdate): Promise<TopicSubscriptionDetails> {
      const parsed = parseInput(topicSubscriptionUpdateSchema, input, 'subscription');
      return storage.transaction(async (tx) => {
        const subscriber = await subscriberOf(tx, subscriberId);
        const found = await heldAs(tx, topicKey, subscriber, identifier);
        const workflows = await tx.workflows.list(env);
        const now = ctx.now();
        const base = found.record ?? newRecord(found, subscriber, now);
        const record: TopicSubscriptionRecord = {
          ...base,
          ...(parsed.name !== undefined && { name: parsed.name }),
          ...(parsed.preferences !== undefined && { preferences: preferencesFromFilters(parsed.preferences, workflows) }),
          updatedAt: now,
        };
        await putSubscriptions(tx.records, env, [record]);
        return subscriptionDetails(found.membership, record, workflows);
      });
    },

    /** Unsubscribes: the membership and what it carried go. not_found when the subscriber has no such subscription. */
    async delete(subscriberId: string, topicKey: string, identifier: string): Promise<void> {
      await storage.transaction(async (tx) => {
        const subscriber = await subscriberOf(tx, subscriberId);
        const found = await heldAs(tx, topicKey, subscriber, identifier);
        await tx.topics.removeMembers(env, topicKey, [subscriber.subscriberId]);
        await deleteSubscriptions(tx.records, env, [subscriptionKey(found.topic._id, subscriber._id)]);
      });
    },

    /**
     * Changes the subscription's preference for one workflow (internal id, identifier or slug): on or
     * off as a whole, and channel by channel. not_found for an unknown subscription or workflow.
     */
    async updatePreference(subscriberId: string, identifier: string, workflowRef: string, input: SubscriptionPreferenceUpdate): Promise<SubscriptionPreferenceChange> {
      const id = parseInput(subscriptionIdentifierSchema, identifier, 'subscription identifier');
      const change = parseInput(subscriptionPreferenceUpdateSchema, input, 'subscription preference');
      return storage.transaction(async (tx) => {
        const subscriber = await subscriberOf(tx, subscriberId);
        const workflow = await preferenceTarget(tx, workflowRef, 'workflowId');
        const records = new Map<string, TopicSubscriptionRecord>();
        const { found, record, preference } = await changePreference(tx, subscriber, id, workflow, change, records);
        await putSubscriptions(tx.records, env, [record]);
        return { subscription: await detailsOf(tx, found, record), preference };
      });
    },

    /** Several preference changes, each naming its subscription, in one transaction: all apply, or none. */
    async updatePreferences(subscriberId: string, input: SubscriptionPreferenceBatch): Promise<SubscriptionPreferenceChange[]> {
      const { preferences: items } = parseInput(subscriptionPreferenceBatchSchema, { preferences: input }, 'subscription preferences');
      return storage.transaction(async (tx) => {
        const subscriber = await subscriberOf(tx, subscriberId);
        const records = new Map<string, TopicSubscriptionRecord>();
        const changed: { found: Held; key: string; preference: SubscriptionWorkflowPreference }[] = [];
        for (const [i, item] of items.entries()) {
          const workflow = await preferenceTarget(tx, item.workflowId, `preferences[${i}].workflowId`);
          const { found, preference } = await changePreference(tx, subscriber, item.subscriptionIdentifier, workflow, item, records);
          changed.push({ found, key: subscriptionKey(found.topic._id, subscriber._id), preference });
        }
        await putSubscriptions(tx.records, env, [...records.values()]);
        const workflows = await tx.workflows.list(env);
        return changed.map(({ found, key, preference }) => ({ subscription: subscriptionDetails(found.membership, records.get(key)!, workflows), preference }));
      });
    },
  };
}

const conflict = (message: string) => new TidingsError('conflict', message, { issues: [{ path: 'identifier', message }] });

/**
 * The topics API with its subscriptions (`topics.subscriptions`): removing members and deleting a
 * topic take their subscription records with them.
 */
export function withSubscriptions<T extends ReturnType<typeof topicsApi>>(ctx: EngineContext, topics: T) {
  const { storage, env } = ctx;
  return {
    ...topics,
    subscriptions: topicSubscriptionsApi(ctx),
    /** Removes members, and their subscriptions to the topic; returns how many were in the topic. */
    async removeSubscribers(key: string, subscriberIds: readonly string[]): Promise<{ removed: number }> {
      const ids = parseInput(subscriberIdListSchema, subscriberIds, 'subscriber ids');
      return storage.transaction(async (tx) => {
        const topic = await tx.topics.get(env, key);
        const removed = await tx.topics.removeMembers(env, key, ids);
        if (topic) await deleteSubscriptions(tx.records, env, (await tx.subscribers.getMany(env, ids)).map((s) => subscriptionKey(topic._id, s._id)));
        return { removed };
      });
    },
    /** Deletes the topic with its subscriptions (see `topics.delete`). */
    async delete(key: string): Promise<void> {
      const topic = await storage.topics.get(env, key);
      if (topic) await deleteTopicSubscriptions(storage.records, env, topic._id);
      await topics.delete(key);
    },
  };
}
