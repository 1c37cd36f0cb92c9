import { type KernelRepositories } from '@tidings/core/internal';
import { chunk } from '../codec.js';
import type { RepoContext } from './context.js';

type People = Pick<KernelRepositories, 'topics'>;

/** Topic memberships (subscribers are core's, in the record store). */
export function peopleRepositories({ db, dialect }: RepoContext): People {
  const max = dialect.maxParams;
  return {
    topics: {
      async addMembers(env, topic, subscribers) {
        const rows = subscribers.map((s) => ({ env, topic_key: topic.key, subscriber_id: s.subscriberId, subscriber_internal_id: s._id }));
        for (const part of chunk(rows, 4, max)) {
          await dialect.skipTaken(db.insertInto('tidings_topic_members').values(part)).execute();
        }
      },
      async removeMembers(env, topicKey, subscriberIds) {
        let removed = 0;
        for (const part of chunk([...subscriberIds], 1, max - 2)) {
          let q = db.deleteFrom('tidings_topic_members').where('env', '=', env).where('subscriber_id', 'in', part);
          if (topicKey !== null) q = q.where('topic_key', '=', topicKey);
          const result = await q.executeTakeFirst();
          removed += Number(result.numDeletedRows);
        }
        return removed;
      },
      async memberPage(env, topicKeys, { after, until, limit }) {
        if (topicKeys.length === 0 || limit <= 0) return [];
        let query = db.selectFrom('tidings_topic_members').select('subscriber_id').distinct().where('env', '=', env).where('topic_key', 'in', [...topicKeys]);
        if (after !== null) query = query.where('subscriber_id', '>', after);
        if (until !== undefined) query = query.where('subscriber_id', '<=', until);
        const rows = await query.orderBy('subscriber_id').limit(limit).execute();
        return rows.map((r) => r.subscriber_id);
      },
      async memberOf(env, topicKey, subscriberId) {
        const row = await db.selectFrom('tidings_topic_members').select('subscriber_internal_id').where('env', '=', env).where('topic_key', '=', topicKey).where('subscriber_id', '=', subscriberId).executeTakeFirst();
        return row?.subscriber_internal_id ?? null;
      },
    },
  };
}
