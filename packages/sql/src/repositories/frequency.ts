import type { StorageRepositories } from '@tidings/core/internal';
import { chunk, decodeJson, encodeJson } from '../codec.js';
import { rowInserter } from '../row-inserter.js';
import type { RepoContext } from './context.js';

const insertHits = rowInserter('tidings_window_hits', ['env', 'key', 'id', 'at', 'expires_at'], (q) => q.onConflict((oc) => oc.columns(['env', 'key', 'id']).doNothing()));

export function frequencyRepositories({ db, dialect }: RepoContext): Pick<StorageRepositories, 'frequency' | 'settings'> {
  return {
    frequency: {
      async record(env, hits) {
        await insertHits(db, dialect, hits.map((h) => [env, h.key, h.id, h.at, h.expiresAt]));
      },
      async recent(env, keys, since) {
        const out = new Map<string, string[]>();
        for (const part of chunk([...new Set(keys)], 1, dialect.maxParams - 2)) {
          const rows = await db.selectFrom('tidings_window_hits').select(['key', 'at']).where('env', '=', env).where('key', 'in', part).where('at', '>', since).orderBy('key').orderBy('at').execute();
          for (const row of rows) {
            const list = out.get(row.key);
            if (list) list.push(row.at);
            else out.set(row.key, [row.at]);
          }
        }
        return out;
      },
      async prune(env, keys, now) {
        let pruned = 0;
        for (const part of chunk([...new Set(keys)], 1, dialect.maxParams - 2)) {
          const result = await db.deleteFrom('tidings_window_hits').where('env', '=', env).where('key', 'in', part).where('expires_at', '<=', now).executeTakeFirst();
          pruned += Number(result.numDeletedRows);
        }
        return pruned;
      },
      async forget(env, hits) {
        let forgotten = 0;
        for (const { key, id } of hits) {
          const result = await db.deleteFrom('tidings_window_hits').where('env', '=', env).where('key', '=', key).where('id', '=', id).executeTakeFirst();
          forgotten += Number(result.numDeletedRows);
        }
        return forgotten;
      },
      async pruneExpired(env, now, limit) {
        const rows = await db.selectFrom('tidings_window_hits').select(['key', 'id']).where('env', '=', env).where('expires_at', '<=', now).orderBy('expires_at').limit(limit).execute();
        const byKey = new Map<string, string[]>();
        for (const row of rows) byKey.set(row.key, [...(byKey.get(row.key) ?? []), row.id]);
        let pruned = 0;
        for (const [key, ids] of byKey) {
          for (const part of chunk(ids, 1, dialect.maxParams - 3)) {
            const result = await db.deleteFrom('tidings_window_hits').where('env', '=', env).where('key', '=', key).where('id', 'in', part).executeTakeFirst();
            pruned += Number(result.numDeletedRows);
          }
        }
        return pruned;
      },
    },
    settings: {
      async get(env, name) {
        const row = await db.selectFrom('tidings_settings').select('doc').where('env', '=', env).where('name', '=', name).executeTakeFirst();
        return row ? decodeJson<unknown>(row.doc) : null;
      },
      async put(env, name, value) {
        await db
          .insertInto('tidings_settings')
          .values({ env, name, doc: encodeJson(value) })
          .onConflict((oc) => oc.columns(['env', 'name']).doUpdateSet({ doc: encodeJson(value) }))
          .execute();
      },
    },
  };
}
