import type { KernelRepositories } from '@tidings/core/internal';
import { k, type Tables } from '../tables.js';

/** Topic memberships (subscribers, preferences and topics' own records are core's, in the record store). */
export function peopleRepositories(t: Tables): Pick<KernelRepositories, 'topics'> {
  return {
    topics: {
      async addMembers(env, topic, subscribers) {
        const members = t.inner(t.topicMembers, k(env, topic.key));
        for (const s of subscribers) if (!members.has(s.subscriberId)) t.put(members, s.subscriberId, s._id);
      },
      async removeMembers(env, topicKey, subscriberIds) {
        const topics = topicKey === null ? [...t.topicMembers].flatMap(([key, members]) => (key.startsWith(k(env, '')) ? [members] : [])) : [t.topicMembers.get(k(env, topicKey))];
        let removed = 0;
        for (const members of topics) if (members) for (const id of subscriberIds) if (t.del(members, id)) removed++;
        return removed;
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
