import type { StorageRepositories, StoredResponse } from '@tidings/core';
import { decodeJson, encodeJson } from '../codec.js';
import type { RepoContext } from './context.js';

export function idempotencyRepositories({ db, atomic }: RepoContext): Pick<StorageRepositories, 'idempotency'> {
  return {
    idempotency: {
      begin: (env, key, fingerprint, now, inFlightUntil) =>
        atomic(async (tx) => {
          const found = await tx.selectFrom('tidings_idempotency').selectAll().where('env', '=', env).where('key', '=', key).executeTakeFirst();
          if (found && found.expires_at > now) {
            return found.response === null
              ? { state: 'in_flight' as const, fingerprint: found.fingerprint }
              : { state: 'completed' as const, fingerprint: found.fingerprint, response: decodeJson<StoredResponse>(found.response) };
          }
          await tx
            .insertInto('tidings_idempotency')
            .values({ env, key, fingerprint, response: null, expires_at: inFlightUntil })
            .onConflict((oc) => oc.columns(['env', 'key']).doUpdateSet({ fingerprint, response: null, expires_at: inFlightUntil }))
            .execute();
          return { state: 'started' as const };
        }),
      async complete(env, key, response, expiresAt) {
        await db.updateTable('tidings_idempotency').set({ response: encodeJson(response), expires_at: expiresAt }).where('env', '=', env).where('key', '=', key).execute();
      },
      async purgeExpired(env, now) {
        const result = await db.deleteFrom('tidings_idempotency').where('env', '=', env).where('expires_at', '<=', now).executeTakeFirst();
        return Number(result.numDeletedRows);
      },
      async release(env, key) {
        await db.deleteFrom('tidings_idempotency').where('env', '=', env).where('key', '=', key).where('response', 'is', null).execute();
      },
    },
  };
}
