import { describe, expect, it } from 'vitest';
import { beginIdempotencyKey } from '../../idempotency/begin-key.js';
import type { Storage } from '../../storage.js';
import type { SuiteContext } from '../storage-under-test.js';
import { T0, plus } from '../fixtures.js';

const DAY = 86_400_000;
const response = { status: 201, body: '{"data":[1]}', headers: { 'content-type': 'application/json' } };

/** The begin rule over the backend's records, as the HTTP adapter runs it. */
const begin = (s: Storage, ...args: Parameters<typeof beginIdempotencyKey> extends [unknown, ...infer Rest] ? Rest : never) => beginIdempotencyKey(s, ...args);

export function idempotencySuite({ get }: SuiteContext): void {
  describe('idempotency', () => {
    it('beginIdempotencyKey — started once, in flight until completed, then the stored response', async () => {
      const s = get();
      expect(await begin(s, 'env-a', 'k1', 'fp', { now: T0, inFlightUntil: plus(T0, 60_000), keepUntil: plus(T0, DAY) })).toMatchObject({ state: 'started' });
      expect(await begin(s, 'env-a', 'k1', 'other', { now: plus(T0, 1), inFlightUntil: plus(T0, 60_000), keepUntil: plus(plus(T0, 1), DAY) })).toEqual({ state: 'in_flight', fingerprint: 'fp' });
      await s.idempotency.complete('env-a', 'k1', response, plus(T0, 86_400_000));
      expect(await begin(s, 'env-a', 'k1', 'fp', { now: plus(T0, 2), inFlightUntil: plus(T0, 60_000), keepUntil: plus(plus(T0, 2), DAY) })).toEqual({ state: 'completed', fingerprint: 'fp', response });
      expect(await begin(s, 'env-b', 'k1', 'fp', { now: plus(T0, 2), inFlightUntil: plus(T0, 60_000), keepUntil: plus(plus(T0, 2), DAY) })).toMatchObject({ state: 'started' });
    });

    it('beginIdempotencyKey — of racing callers exactly one starts; expired and released keys start again', async () => {
      const s = get();
      const results = await Promise.all(Array.from({ length: 8 }, () => begin(s, 'env-a', 'race', 'fp', { now: T0, inFlightUntil: plus(T0, 60_000), keepUntil: plus(T0, DAY) })));
      expect(results.filter((r) => r.state === 'started')).toHaveLength(1);
      expect((await begin(s, 'env-a', 'race', 'fp', { now: plus(T0, 60_000), inFlightUntil: plus(T0, 120_000), keepUntil: plus(plus(T0, 60_000), DAY) })).state).toBe('started');
      await s.idempotency.release('env-a', 'race');
      expect((await begin(s, 'env-a', 'race', 'fp', { now: plus(T0, 60_001), inFlightUntil: plus(T0, 120_000), keepUntil: plus(plus(T0, 60_001), DAY) })).state).toBe('started');
      await s.idempotency.complete('env-a', 'race', response, plus(T0, 1_000_000));
      await s.idempotency.release('env-a', 'race');
      expect((await begin(s, 'env-a', 'race', 'fp', { now: plus(T0, 60_002), inFlightUntil: plus(T0, 120_000), keepUntil: plus(plus(T0, 60_002), DAY) })).state).toBe('completed');
    });

    it('idempotency.purgeExpired — deletes expired records of the environment only', async () => {
      const s = get();
      await begin(s, 'env-a', 'old', 'fp', { now: T0, inFlightUntil: plus(T0, 1_000), keepUntil: plus(T0, 1_000) });
      await begin(s, 'env-a', 'new', 'fp', { now: T0, inFlightUntil: plus(T0, 60_000), keepUntil: plus(T0, DAY) });
      await begin(s, 'env-b', 'old', 'fp', { now: T0, inFlightUntil: plus(T0, 1_000), keepUntil: plus(T0, 1_000) });
      expect(await s.idempotency.purgeExpired('env-a', plus(T0, 1_000))).toBe(1);
      expect(await begin(s, 'env-a', 'new', 'fp', { now: plus(T0, 2_000), inFlightUntil: plus(T0, 60_000), keepUntil: plus(plus(T0, 2_000), DAY) })).toEqual({ state: 'in_flight', fingerprint: 'fp' });
      expect(await s.idempotency.purgeExpired('env-b', plus(T0, 1_000))).toBe(1);
    });

    it('beginIdempotencyKey — a released or timed-out key starts again with the since of its first start, until keepUntil', async () => {
      const s = get();
      expect(await begin(s, 'env-a', 'k', 'fp', { now: T0, inFlightUntil: plus(T0, 60_000), keepUntil: plus(T0, DAY) })).toEqual({ state: 'started', since: T0 });
      await s.idempotency.release('env-a', 'k');
      const later = plus(T0, 5_000);
      expect(await begin(s, 'env-a', 'k', 'fp', { now: later, inFlightUntil: plus(later, 60_000), keepUntil: plus(later, DAY) })).toEqual({ state: 'started', since: T0 });
      // Never released (its process died): once its in-flight time is over, it resumes too.
      const resumed = plus(T0, 70_000);
      expect(await begin(s, 'env-a', 'k', 'fp', { now: resumed, inFlightUntil: plus(resumed, 60_000), keepUntil: plus(resumed, DAY) })).toEqual({ state: 'started', since: T0 });
      expect(await s.idempotency.purgeExpired('env-a', plus(T0, 200_000))).toBe(0);
      const nextDay = plus(T0, DAY + 1);
      expect(await s.idempotency.purgeExpired('env-a', nextDay)).toBe(1);
      expect(await begin(s, 'env-a', 'k', 'fp', { now: nextDay, inFlightUntil: plus(nextDay, 60_000), keepUntil: plus(nextDay, DAY) })).toEqual({ state: 'started', since: nextDay });
    });
  });
}
