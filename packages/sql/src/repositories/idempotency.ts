import type { StorageRepositories, StoredResponse } from '@tidings/core';
import { decodeJson, encodeJson } from '../codec.js';
import type { RepoContext } from './context.js';

export function idempotencyRepositories({ db, atomic }: RepoContext): Pick<StorageRepositories, 'idempotency'> {
  return {
    idempotency: {
      begin: (env, key, fingerprint, { now, inFlightUntil, keepUntil }) =>
        atomic(async (tx) => {
          const found = await tx.selectFrom('tidings_idempotency').selectAll().where('env', '=', env).where('key', '=', key).executeTakeFirst();
          if (found && found.expires_at > now) {
            if (found.response !== null) return { state: 'completed' as const, fingerprint: found.fingerprint, response: decodeJson<StoredResponse>(found.response) };
            if (Number(found.released) === 0) return { state: 'in_flight' as const, fingerprint: found.fingerprint };
          }
          // Rows from before `since` was kept (null) start afresh.
          const resumed = found && found.response === null && found.since !== null && found.keep_until !== null && found.keep_until > now ? found : null;
          const since = resumed?.since ?? now;
          const row = { fingerprint, response: null, expires_at: inFlightUntil, since, keep_until: resumed?.keep_until ?? keepUntil, released: 0 };
          await tx
            .insertInto('tidings_idempotency')
            .values({ env, key, ...row })
            .onConflict((oc) => oc.columns(['env', 'key']).doUpdateSet(row))
            .execute();
          return { state: 'started' as const, since };
        }),
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
