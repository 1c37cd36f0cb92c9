import type { RecordStore } from './record-store.js';
import type { Topic } from '../schemas/index.js';
import type { TopicMemberRepository, TopicRepository } from '../storage.js';
import { docsOf, firstDoc } from './docs.js';

const TABLE = 'topics';

/** Topics keyed (and ordered) by key; their memberships are the backend's (`members`). */
export function topicRepository(records: RecordStore, members: TopicMemberRepository): TopicRepository {
  const get = async (env: string, key: string) => firstDoc<Topic>(await records.get(env, TABLE, [key]));
  return {
    ...members,
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
