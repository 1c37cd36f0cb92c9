import type { KernelRepositories } from '@tidings/core/internal';
import { k, type Tables } from '../tables.js';

type People = Pick<KernelRepositories, 'subscribers' | 'topics'>;

/** Subscribers and topic memberships (preferences and topics' own records are core's, in the record store). */
export function peopleRepositories(t: Tables): People {
  return {
    subscribers: {
      async putMany(env, subscribers) {
        for (const subscriber of subscribers) t.put(t.subscribers, k(env, subscriber.subscriberId), t.copy(subscriber));
      },
      async getMany(env, subscriberIds) {
        const out = [];
        for (const id of subscriberIds) {
          const found = t.subscribers.get(k(env, id));
          if (found) out.push(t.copy(found));
        }
        return out;
      },
      async idPage(env, { after, until, limit }) {
        const prefix = k(env, '');
        const ids: string[] = [];
        for (const key of t.subscribers.keys()) {
          if (!key.startsWith(prefix)) continue;
          const id = key.slice(prefix.length);
          if ((after === null || id > after) && (until === undefined || id <= until)) ids.push(id);
        }
        return ids.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).slice(0, Math.max(0, limit));
      },
      async delete(env, subscriberId) {
        if (!t.del(t.subscribers, k(env, subscriberId))) return false;
        for (const [key, members] of t.topicMembers) {
          if (key.startsWith(k(env, '')) && members.has(subscriberId)) t.del(members, subscriberId);
        }
        return true;
      },
    },
    topics: {
      async addMembers(env, topic, subscribers) {
        const members = t.inner(t.topicMembers, k(env, topic.key));
        for (const s of subscribers) if (!members.has(s.subscriberId)) t.put(members, s.subscriberId, s._id);
      },
      async removeMembers(env, topicKey, subscriberIds) {
        const members = t.topicMembers.get(k(env, topicKey));
        if (!members) return 0;
        let removed = 0;
        for (const id of subscriberIds) if (t.del(members, id)) removed++;
        return removed;
      },
      async memberIds(env, topicKeys) {
        const ids = new Set<string>();
        for (const key of topicKeys) for (const id of t.topicMembers.get(k(env, key))?.keys() ?? []) ids.add(id);
        return [...ids];
      },
      async memberPage(env, topicKeys, { after, until, limit }) {
        const ids = new Set<string>();
        for (const key of topicKeys) {
          for (const id of t.topicMembers.get(k(env, key))?.keys() ?? []) if ((after === null || id > after) && (until === undefined || id <= until)) ids.add(id);
        }
        return [...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).slice(0, Math.max(0, limit));
      },
      async memberOf(env, topicKey, subscriberId) {
        return t.topicMembers.get(k(env, topicKey))?.get(subscriberId) ?? null;
      },
    },
  };
}
