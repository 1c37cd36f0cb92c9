import { createHash } from 'node:crypto';
import { docsOf } from '../../records/docs.js';
import type { RecordStore } from '../../records/record-store.js';
import type { TopicSubscriptionRecord } from '../../schemas/index.js';

import { TOPIC_SUBSCRIPTIONS } from '../../records/topics.js';

/**
 * One record per membership, keyed by the topic's and the subscriber's internal ids: a subscriber
 * deleted and made again under the same subscriberId does not inherit the old one's subscriptions.
 */
export const subscriptionKey = (topicId: string, subscriberInternalId: string) => `${topicId}:${subscriberInternalId}`;

/** Novu's identifier of a subscription made without one (its `buildDefaultSubscriptionIdentifier`, without context). */
export const defaultIdentifier = (topicKey: string, subscriberId: string) => `tk_${topicKey}:si_${subscriberId}`;

/** The topic key a default identifier of this subscriber names, or null when it is not one. */
export function topicOfDefaultIdentifier(identifier: string, subscriberId: string): string | null {
  const tail = `:si_${subscriberId}`;
  if (!identifier.startsWith('tk_') || !identifier.endsWith(tail) || identifier.length <= 3 + tail.length) return null;
  return identifier.slice(3, identifier.length - tail.length);
}

/** Identifiers are found by a digest of fixed length, however long they are (a default one holds a topic key and a subscriberId). */
const identifierIndex = (identifier: string) => createHash('sha256').update(identifier).digest('hex');

/** The record: found by identifier (`i1`) within one subscriber's (`i2`), and by topic (`i3`) when the topic goes. */
const recordOf = (subscription: TopicSubscriptionRecord) => ({
  key: subscriptionKey(subscription._topicId, subscription._subscriberId),
  i1: identifierIndex(subscription.identifier),
  i2: subscription._subscriberId,
  i3: subscription._topicId,
  sort: subscription.createdAt,
  doc: subscription,
});

export const putSubscriptions = (records: RecordStore, env: string, subscriptions: readonly TopicSubscriptionRecord[]) =>
  subscriptions.length === 0 ? Promise.resolve() : records.put(env, TOPIC_SUBSCRIPTIONS, subscriptions.map(recordOf));

/** The records of these keys (`subscriptionKey`), by key. */
export async function subscriptionsByKey(records: RecordStore, env: string, keys: readonly string[]): Promise<Map<string, TopicSubscriptionRecord>> {
  if (keys.length === 0) return new Map();
  const found = docsOf<TopicSubscriptionRecord>(await records.get(env, TOPIC_SUBSCRIPTIONS, keys));
  return new Map(found.map((s) => [subscriptionKey(s._topicId, s._subscriberId), s] as const));
}

/** The subscriber's subscription of this identifier, whatever its topic, or null. */
export async function subscriptionByIdentifier(records: RecordStore, env: string, subscriberInternalId: string, identifier: string): Promise<TopicSubscriptionRecord | null> {
  const found = docsOf<TopicSubscriptionRecord>(await records.find(env, TOPIC_SUBSCRIPTIONS, { i1: identifierIndex(identifier), i2: subscriberInternalId }));
  return found.find((s) => s.identifier === identifier) ?? null;
}

export const deleteSubscriptions = (records: RecordStore, env: string, keys: readonly string[]) => (keys.length === 0 ? Promise.resolve(0) : records.delete(env, TOPIC_SUBSCRIPTIONS, keys));

/** Removes every subscription record of a topic; returns how many there were. */
export const deleteTopicSubscriptions = async (records: RecordStore, env: string, topicId: string) => (await records.deleteWhere(env, TOPIC_SUBSCRIPTIONS, { i3: topicId })).length;
