import type { StorageRepositories } from '@tidings/core';
import { k, type Tables } from '../tables.js';

export function idempotencyRepositories(t: Tables): Pick<StorageRepositories, 'idempotency'> {
  return {
    idempotency: {
      async begin(env, key, fingerprint, { now, inFlightUntil, keepUntil }) {
        const found = t.idempotency.get(k(env, key));
        if (found && found.expiresAt > now) {
          if (found.response) return { state: 'completed', fingerprint: found.fingerprint, response: t.copy(found.response) };
          if (!found.released) return { state: 'in_flight', fingerprint: found.fingerprint };
        }
        const resumed = found && !found.response && found.keepUntil > now ? found : null;
        const since = resumed?.since ?? now;
        t.put(t.idempotency, k(env, key), { fingerprint, response: null, expiresAt: inFlightUntil, since, keepUntil: resumed?.keepUntil ?? keepUntil, released: false });
        return { state: 'started', since };
      },
      async complete(env, key, response, expiresAt) {
        const found = t.idempotency.get(k(env, key));
        if (found) t.put(t.idempotency, k(env, key), { ...found, response: t.copy(response), expiresAt, released: false });
      },
      async purgeExpired(env, now) {
        let purged = 0;
        const prefix = k(env, '');
        for (const [key, record] of [...t.idempotency]) {
          const gone = record.expiresAt <= now && (record.response !== null || record.keepUntil <= now);
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
