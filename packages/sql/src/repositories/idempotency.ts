import type { StorageRepositories, StoredResponse } from '@tidings/core/internal';
import { decodeJson, encodeJson } from '../codec.js';
import type { RepoContext } from './context.js';

export function idempotencyRepositories({ db }: RepoContext): Pick<StorageRepositories, 'idempotency'> {
  return {
    idempotency: {
      async get(env, key) {
        const found = await db.selectFrom('tidings_idempotency').selectAll().where('env', '=', env).where('key', '=', key).executeTakeFirst();
        if (!found) return null;
        return {
          fingerprint: found.fingerprint,
          response: found.response === null ? null : decodeJson<StoredResponse>(found.response),
          expiresAt: found.expires_at,
          since: found.since,
          keepUntil: found.keep_until,
          released: Number(found.released) !== 0,
        };
      },
      async put(env, key, record) {
        const row = {
          fingerprint: record.fingerprint,
          response: record.response === null ? null : encodeJson(record.response),
          expires_at: record.expiresAt,
          since: record.since,
          keep_until: record.keepUntil,
          released: record.released ? 1 : 0,
        };
        await db
          .insertInto('tidings_idempotency')
          .values({ env, key, ...row })
          .onConflict((oc) => oc.columns(['env', 'key']).doUpdateSet(row))
          .execute();
      },
      async complete(env, key, response, expiresAt) {
        await db.updateTable('tidings_idempotency').set({ response: encodeJson(response), expires_at: expiresAt, released: 0 }).where('env', '=', env).where('key', '=', key).execute();
      },
      async purgeExpired(env, now) {
        const result = await db
          .deleteFrom('tidings_idempotency')
          .where('env', '=', env)
          .where('expires_at', '<=', now)
          .where((eb) => eb.or([eb('response', 'is not', null), eb('keep_until', 'is', null), eb('keep_until', '<=', now)]))
          .executeTakeFirst();
        return Number(result.numDeletedRows);
      },
      async release(env, key) {
        await db.updateTable('tidings_idempotency').set({ released: 1 }).where('env', '=', env).where('key', '=', key).where('response', 'is', null).execute();
      },
    },
  };
}
