import { type Subscriber } from '@tidings/core';
import { type KernelRepositories } from '@tidings/core/internal';
import { chunk, encodeJson } from '../codec.js';
import { docsByKeys } from '../docs-by-keys.js';
import { rowInserter } from '../row-inserter.js';
import type { RepoContext } from './context.js';

const upsertSubscribers = rowInserter('tidings_subscribers', ['env', 'subscriber_id', 'id', 'doc'], { upsert: { key: ['env', 'subscriber_id'], update: ['id', 'doc'] } });

const subscriberDocs = docsByKeys('tidings_subscribers', 'subscriber_id');

type People = Pick<KernelRepositories, 'subscribers' | 'topics'>;

export function peopleRepositories({ db, dialect, atomic }: RepoContext): People {
  const max = dialect.maxParams;
  return {
    subscribers: {
      async putMany(env, subscribers) {
        if (subscribers.length === 0) return;
        await upsertSubscribers(db, dialect, subscribers.map((s) => [env, s.subscriberId, s._id, encodeJson(s)]));
      },
      async getMany(env, subscriberIds) {
        if (subscriberIds.length === 0) return [];
        const found = new Map((await subscriberDocs<Subscriber>(db, dialect, env, subscriberIds)).map((s) => [s.subscriberId, s] as const));
        return subscriberIds.flatMap((id) => {
          const s = found.get(id);
          return s ? [s] : [];
        });
      },
      async idPage(env, { after, until, limit }) {
        if (limit <= 0) return [];
        let query = db.selectFrom('tidings_subscribers').select('subscriber_id').where('env', '=', env);
        if (after !== null) query = query.where('subscriber_id', '>', after);
        if (until !== undefined) query = query.where('subscriber_id', '<=', until);
        const rows = await query.orderBy('subscriber_id').limit(limit).execute();
        return rows.map((r) => r.subscriber_id);
      },
      delete: (env, subscriberId) =>
        atomic(async (tx) => {
          const result = await tx.deleteFrom('tidings_subscribers').where('env', '=', env).where('subscriber_id', '=', subscriberId).executeTakeFirst();
          if (Number(result.numDeletedRows) === 0) return false;
          await tx.deleteFrom('tidings_topic_members').where('env', '=', env).where('subscriber_id', '=', subscriberId).execute();
          return true;
        }),
    },
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
          const result = await db.deleteFrom('tidings_topic_members').where('env', '=', env).where('topic_key', '=', topicKey).where('subscriber_id', 'in', part).executeTakeFirst();
          removed += Number(result.numDeletedRows);
        }
        return removed;
      },
      async memberIds(env, topicKeys) {
        if (topicKeys.length === 0) return [];
        const rows = await db.selectFrom('tidings_topic_members').select('subscriber_id').distinct().where('env', '=', env).where('topic_key', 'in', [...topicKeys]).execute();
        return rows.map((r) => r.subscriber_id);
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
