import type { RecordStore } from './record-store.js';
import type { Topic } from '../schemas/index.js';
import type { TopicRepository } from '../storage.js';
import type { KernelTopicMembers } from '../kernel/kernel.js';
import { docsOf, firstDoc } from './docs.js';

const TABLE = 'topics';
/** Topic subscriptions' own data (identifier, per-workflow preferences), by subscriber internal id (`i2`). */
export const TOPIC_SUBSCRIPTIONS = 'topic-subscriptions';

/** Topics keyed (and ordered) by key; their memberships are the backend's (`members`). */
/** Reads every member of the topics a page at a time (memberships are the backend's, read in pages). */
const MEMBER_PAGE = 5_000;

export function topicRepository(records: RecordStore, members: KernelTopicMembers): TopicRepository {
  const get = async (env: string, key: string) => firstDoc<Topic>(await records.get(env, TABLE, [key]));
  return {
    addMembers: (env, topic, subscribers) => members.addMembers(env, topic, subscribers),
    removeMembers: (env, topicKey, subscriberIds) => members.removeMembers(env, topicKey, subscriberIds),
    memberPage: (env, topicKeys, page) => members.memberPage(env, topicKeys, page),
    async memberIds(env, topicKeys) {
      const ids: string[] = [];
      for (let after: string | null = null; ; ) {
        const page = await members.memberPage(env, topicKeys, { after, limit: MEMBER_PAGE });
        ids.push(...page);
        if (page.length < MEMBER_PAGE) return ids;
        after = page[page.length - 1]!;
      }
    },
    get,
    async upsert(env, topic) {
      // Renaming keeps what the topic was made with: its id and creation time.
      const existing = await get(env, topic.key);
      const stored = existing ? { ...existing, name: topic.name, updatedAt: topic.updatedAt } : topic;
      await records.put(env, TABLE, [{ key: stored.key, sort: stored.key, doc: stored }]);
      return stored;
    },
    async getSubscription(env, topicKey, subscriberId) {
      const [topic, internalId] = await Promise.all([get(env, topicKey), members.memberOf(env, topicKey, subscriberId)]);
      if (!topic || internalId === null) return null;
      return { _organizationId: topic._organizationId, _environmentId: env, _subscriberId: internalId, _topicId: topic._id, topicKey, externalSubscriberId: subscriberId };
    },
    delete: async (env, key) => (await records.delete(env, TABLE, [key])) > 0,
    list: async (env, { after, limit }) => docsOf<Topic>(await records.find(env, TABLE, { ...(after !== null && { sort: { gt: after } }), limit })),
  };
}
