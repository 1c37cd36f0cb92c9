import { z } from 'zod';
import { notFound } from '../../errors.js';
import { newId } from '../../ids.js';
import {
  MAX_ID_LENGTH,
  channelSettingsInputSchema,
  subscriberIdListSchema,
  subscriberInputSchema,
  topicInputSchema,
  topicKeySchema,
  type ChannelSettingsInput,
  type Subscriber,
  type SubscriberInput,
  type Topic,
  type TopicInput,
  type TopicSubscription,
} from '../../schemas/index.js';
import type { StorageRepositories } from '../../storage.js';
import { parseInput } from '../../validation.js';
import type { EngineContext } from '../context.js';
import { upsertSubscribers } from '../../subscribers/upsert-subscribers.js';
import { appendedSetting, withoutChannelSettings } from '../../subscribers/channel-credentials.js';

/** Most ids one page of ids (`subscribers.page`, `topics.memberPage`) holds, and most subscribers `getMany` reads. */
export const MAX_PEOPLE_PAGE = 10_000;

/** A page of ids in the backend's order: those after `after` (from the first when null or absent), at most `limit`. */
export const idPageQuerySchema = z
  .object({
    after: z.string().min(1, 'must not be empty').nullable().default(null),
    limit: z.number().int().min(1).max(MAX_PEOPLE_PAGE, `must be at most ${MAX_PEOPLE_PAGE}`),
  })
  .strict();

/** A key or id as stored (not trimmed: a read names what is there). */
const storedKeySchema = z.string().min(1, 'must not be empty').max(MAX_ID_LENGTH, `must be at most ${MAX_ID_LENGTH} characters`);
const readIdsSchema = z.array(z.string()).max(MAX_PEOPLE_PAGE, `must hold at most ${MAX_PEOPLE_PAGE} ids`);

export function subscribersApi(ctx: EngineContext) {
  const { storage, env } = ctx;
  return {
    /**
     * Creates the subscriber or changes only the members given (`data` is replaced whole).
     * validation_failed, with nothing changed, when its channels would give it more than
     * MAX_DEVICE_TOKENS_PER_PROVIDER device tokens of one provider.
     */
    async upsert(input: SubscriberInput): Promise<Subscriber> {
      const patch = parseInput(subscriberInputSchema, input, 'subscriber');
      const [stored] = await storage.transaction((tx) => upsertSubscribers(tx, env, [{ patch, _id: newId(ctx.clock.now()) }], ctx.now(), ctx.organizationId, undefined, { refuseOverCap: { what: 'subscriber' } }));
      return stored!;
    },
    /** The subscriber, or null when there is none. */
    async get(subscriberId: string): Promise<Subscriber | null> {
      const [found] = await storage.subscribers.getMany(env, [subscriberId]);
      return found ?? null;
    },
    /** The subscribers with these subscriberIds, in no given order; unknown ones are left out. */
    async getMany(subscriberIds: readonly string[]): Promise<Subscriber[]> {
      const ids = [...new Set(parseInput(readIdsSchema, subscriberIds, 'subscriber ids'))];
      return ids.length === 0 ? [] : storage.subscribers.getMany(env, ids);
    },
    /**
     * One page of the environment's subscriberIds in the backend's order: those after `after` (from
     * the first when null), at most `limit`; empty past the last. Reading page after page from the
     * last id visits every subscriber once (`getMany` reads their records).
     */
    async page(query: { after?: string | null; limit: number }): Promise<string[]> {
      const { after, limit } = parseInput(idPageQuerySchema, query, 'subscriber page');
      return storage.subscribers.idPage(env, { after, limit });
    },
    /**
     * Sets the subscriber's credentials for one chat or push provider (Novu's channel credentials):
     * `replace` (the default) puts these device tokens in place of the stored ones, `append` adds them
     * to those stored; other credentials given replace theirs. not_found when the subscriber is absent;
     * validation_failed naming `credentials.deviceTokens`, with nothing changed, when the subscriber
     * would hold more than MAX_DEVICE_TOKENS_PER_PROVIDER device tokens of the provider (over all its
     * integrations): an append past the cap is refused, never trimmed.
     */
    async setCredentials(subscriberId: string, input: ChannelSettingsInput, mode: 'replace' | 'append' = 'replace'): Promise<Subscriber> {
      const setting = parseInput(channelSettingsInputSchema, input, 'channel credentials');
      return storage.transaction(async (tx) => {
        const [stored] = await tx.subscribers.getMany(env, [subscriberId]);
        if (!stored) throw notFound('Subscriber', subscriberId);
        const channel = mode === 'append' ? appendedSetting(stored, setting) : setting;
        const [updated] = await upsertSubscribers(tx, env, [{ patch: { subscriberId, channels: [channel] }, _id: stored._id }], ctx.now(), ctx.organizationId, new Map([[subscriberId, stored]]), {
          refuseOverCap: { what: 'channel credentials', field: () => 'credentials.deviceTokens' },
        });
        return updated!;
      });
    },
    /** Removes the subscriber's credentials for a provider (one integration's, when named); not_found when the subscriber is absent. */
    async deleteCredentials(subscriberId: string, providerId: string, integrationIdentifier?: string): Promise<Subscriber> {
      return storage.transaction(async (tx) => {
        const [stored] = await tx.subscribers.getMany(env, [subscriberId]);
        if (!stored) throw notFound('Subscriber', subscriberId);
        const next = withoutChannelSettings(stored, providerId, ctx.now(), integrationIdentifier);
        if (next) await tx.subscribers.putMany(env, [next]);
        return next ?? stored;
      });
    },
    /** Deletes the subscriber with its preferences and topic memberships; not_found when absent. */
    async delete(subscriberId: string): Promise<void> {
      if (!(await storage.subscribers.delete(env, subscriberId))) throw notFound('Subscriber', subscriberId);
    },
  };
}

export async function ensureTopic(ctx: EngineContext, tx: StorageRepositories, key: string, name?: string): Promise<Topic> {
  const existing = await tx.topics.get(ctx.env, key);
  if (existing && (name === undefined || name === existing.name)) return existing;
  const now = ctx.now();
  return tx.topics.upsert(ctx.env, {
    _id: existing?._id ?? newId(ctx.clock.now()),
    key,
    name: name ?? existing?.name ?? key,
    _environmentId: ctx.env,
    _organizationId: ctx.organizationId,
    createdAt: existing?.createdAt ?? now,
    updatedAt: now,
  });
}

/** Subscriptions removed per transaction when a topic is deleted. */
const TOPIC_DELETE_PAGE = 500;

export function topicsApi(ctx: EngineContext) {
  const { storage, env } = ctx;
  return {
    async upsert(input: TopicInput): Promise<Topic> {
      const parsed = parseInput(topicInputSchema, input, 'topic');
      return storage.transaction((tx) => ensureTopic(ctx, tx, parsed.key, parsed.name));
    },
    get: (key: string) => storage.topics.get(env, key),
    /** One page of the environment's topics in byte order of their keys: those after `after` (from the first when absent or null), at most `limit`. */
    async list(query: { after?: string | null; limit: number }): Promise<Topic[]> {
      const { after, limit } = parseInput(idPageQuerySchema, query, 'topic page');
      return storage.topics.list(env, { after, limit });
    },
    /**
     * Deletes the topic: its subscriptions a page at a time (each page a short transaction of its
     * own), then its record. not_found when there is none.
     */
    async delete(key: string): Promise<void> {
      const topicKey = parseInput(storedKeySchema, key, 'topic key');
      if (!(await storage.topics.get(env, topicKey))) throw notFound('Topic', topicKey);
      for (;;) {
        const page = await storage.topics.memberPage(env, [topicKey], { after: null, limit: TOPIC_DELETE_PAGE });
        if (page.length === 0) break;
        await storage.topics.removeMembers(env, topicKey, page);
      }
      await storage.topics.delete(env, topicKey);
    },
    /**
     * Adds existing subscribers to the topic (created when missing). Unknown subscriberIds are
     * reported in `notFound` and not added.
     */
    async addSubscribers(key: string, subscriberIds: readonly string[]): Promise<{ succeeded: string[]; notFound: string[] }> {
      const topicKey = parseInput(topicKeySchema, key, 'topic key');
      const ids = [...new Set(parseInput(subscriberIdListSchema, subscriberIds, 'subscriber ids'))];
      return storage.transaction(async (tx) => {
        const topic = await ensureTopic(ctx, tx, topicKey);
        const found = await tx.subscribers.getMany(env, ids);
        await tx.topics.addMembers(env, topic, found);
        const known = new Set(found.map((s) => s.subscriberId));
        return { succeeded: ids.filter((id) => known.has(id)), notFound: ids.filter((id) => !known.has(id)) };
      });
    },
    /**
     * One page of the topic's members (their subscriberIds) in the backend's order: those after
     * `after` (from the first when null), at most `limit`; empty past the last, or for an unknown topic.
     */
    async memberPage(key: string, query: { after?: string | null; limit: number }): Promise<string[]> {
      const topicKey = parseInput(storedKeySchema, key, 'topic key');
      const { after, limit } = parseInput(idPageQuerySchema, query, 'topic member page');
      return storage.topics.memberPage(env, [topicKey], { after, limit });
    },
    /** Removes members; returns how many were in the topic. */
    async removeSubscribers(key: string, subscriberIds: readonly string[]): Promise<{ removed: number }> {
      const ids = parseInput(subscriberIdListSchema, subscriberIds, 'subscriber ids');
      return { removed: await storage.topics.removeMembers(env, key, ids) };
    },
    /** The membership, or null when the subscriber is not in the topic (or the topic does not exist). */
    async getSubscription(key: string, subscriberId: string): Promise<TopicSubscription | null> {
      const stored = await storage.topics.getSubscription(env, key, subscriberId);
      return stored && { _id: `${stored._topicId}${stored._subscriberId}`, ...stored };
    },
  };
}
