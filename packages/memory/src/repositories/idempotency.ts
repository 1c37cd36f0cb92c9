import type { StorageRepositories } from '@tidings/core';
import { k, type Tables } from '../tables.js';

export function idempotencyRepositories(t: Tables): Pick<StorageRepositories, 'idempotency'> {
  return {
    idempotency: {
      async begin(env, key, fingerprint, now, inFlightUntil) {
        const found = t.idempotency.get(k(env, key));
        if (found && found.expiresAt > now) {
          return found.response ? { state: 'completed', fingerprint: found.fingerprint, response: t.copy(found.response) } : { state: 'in_flight', fingerprint: found.fingerprint };
        }
        t.put(t.idempotency, k(env, key), { fingerprint, response: null, expiresAt: inFlightUntil });
        return { state: 'started' };
      },
      async complete(env, key, response, expiresAt) {
        const found = t.idempotency.get(k(env, key));
        if (found) t.put(t.idempotency, k(env, key), { ...found, response: t.copy(response), expiresAt });
      },
      async purgeExpired(env, now) {
        let purged = 0;
        const prefix = k(env, '');
        for (const [key, record] of [...t.idempotency]) {
          if (key.startsWith(prefix) && record.expiresAt <= now && t.del(t.idempotency, key)) purged++;
        }
        return purged;
      },
      async release(env, key) {
        const found = t.idempotency.get(k(env, key));
        if (found && !found.response) t.del(t.idempotency, k(env, key));
      },
    },
  };
}
