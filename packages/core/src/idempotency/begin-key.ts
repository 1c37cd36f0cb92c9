import type { IdempotencyBegin, Storage } from '../storage.js';

/** The instants a begin is decided at. */
export interface BeginTimes {
  readonly now: string;
  /** How long a started request (whose process may have died) blocks the key. */
  readonly inFlightUntil: string;
  /** How long a key that is begun again after a release keeps the `since` of its first start. */
  readonly keepUntil: string;
}

/**
 * Claims idempotency `key` for a request with this `fingerprint` (a hash of what it asks), in one
 * transaction. Exactly one of racing callers gets `started`; the others see `in_flight` until it
 * completes, then `completed` with the stored response until that expires. A key begun again after
 * its request was released or its in-flight time ran out is `started` with the `since` of its first
 * start, until `keepUntil` of that first start; after it, the key starts afresh.
 */
export function beginIdempotencyKey(storage: Pick<Storage, 'transaction'>, env: string, key: string, fingerprint: string, { now, inFlightUntil, keepUntil }: BeginTimes): Promise<IdempotencyBegin> {
  return storage.transaction(async (tx) => {
    const found = await tx.idempotency.get(env, key);
    if (found && found.expiresAt > now) {
      if (found.response) return { state: 'completed', fingerprint: found.fingerprint, response: found.response };
      if (!found.released) return { state: 'in_flight', fingerprint: found.fingerprint };
    }
    // A record without `since` (stored before it was kept) starts afresh.
    const resumed = found && !found.response && found.since !== null && found.keepUntil !== null && found.keepUntil > now ? found : null;
    const since = resumed?.since ?? now;
    await tx.idempotency.put(env, key, { fingerprint, response: null, expiresAt: inFlightUntil, since, keepUntil: resumed?.keepUntil ?? keepUntil, released: false });
    return { state: 'started', since };
  });
}
