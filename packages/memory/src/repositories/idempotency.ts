import type { StorageRepositories } from '@tidings/core/internal';
import { k, type Tables } from '../tables.js';

export function idempotencyRepositories(t: Tables): Pick<StorageRepositories, 'idempotency'> {
  return {
    idempotency: {
      async get(env, key) {
        const found = t.idempotency.get(k(env, key));
        return found ? t.copy(found) : null;
      },
      async put(env, key, record) {
        t.put(t.idempotency, k(env, key), t.copy(record));
      },
      async complete(env, key, response, expiresAt) {
        const found = t.idempotency.get(k(env, key));
        if (found) t.put(t.idempotency, k(env, key), { ...found, response: t.copy(response), expiresAt, released: false });
      },
      async purgeExpired(env, now) {
        let purged = 0;
        const prefix = k(env, '');
        for (const [key, record] of [...t.idempotency]) {
          const gone = record.expiresAt <= now && (record.response !== null || record.keepUntil === null || record.keepUntil <= now);
          if (key.startsWith(prefix) && gone && t.del(t.idempotency, key)) purged++;
        }
        return purged;
      },
      async release(env, key) {
        const found = t.idempotency.get(k(env, key));
        if (found && !found.response) t.put(t.idempotency, k(env, key), { ...found, released: true });
      },
    },
  };
}
