import { describe, expect, it } from 'vitest';
import type { SuiteContext } from '../describe-storage.js';
import { T0, plus } from '../fixtures.js';

const response = { status: 201, body: '{"data":[1]}', headers: { 'content-type': 'application/json' } };

export function idempotencySuite({ get }: SuiteContext): void {
  describe('idempotency', () => {
    it('idempotency.begin — started once, in flight until completed, then the stored response', async () => {
      const s = get();
      expect(await s.idempotency.begin('env-a', 'k1', 'fp', T0, plus(T0, 60_000))).toEqual({ state: 'started' });
      expect(await s.idempotency.begin('env-a', 'k1', 'other', plus(T0, 1), plus(T0, 60_000))).toEqual({ state: 'in_flight', fingerprint: 'fp' });
      await s.idempotency.complete('env-a', 'k1', response, plus(T0, 86_400_000));
      expect(await s.idempotency.begin('env-a', 'k1', 'fp', plus(T0, 2), plus(T0, 60_000))).toEqual({ state: 'completed', fingerprint: 'fp', response });
      expect(await s.idempotency.begin('env-b', 'k1', 'fp', plus(T0, 2), plus(T0, 60_000))).toEqual({ state: 'started' });
    });

    it('idempotency.begin — of racing callers exactly one starts; expired and released keys start again', async () => {
      const s = get();
      const results = await Promise.all(Array.from({ length: 8 }, () => s.idempotency.begin('env-a', 'race', 'fp', T0, plus(T0, 60_000))));
      expect(results.filter((r) => r.state === 'started')).toHaveLength(1);
      expect((await s.idempotency.begin('env-a', 'race', 'fp', plus(T0, 60_000), plus(T0, 120_000))).state).toBe('started');
      await s.idempotency.release('env-a', 'race');
      expect((await s.idempotency.begin('env-a', 'race', 'fp', plus(T0, 60_001), plus(T0, 120_000))).state).toBe('started');
      await s.idempotency.complete('env-a', 'race', response, plus(T0, 1_000_000));
      await s.idempotency.release('env-a', 'race');
      expect((await s.idempotency.begin('env-a', 'race', 'fp', plus(T0, 60_002), plus(T0, 120_000))).state).toBe('completed');
    });

    it('idempotency.purgeExpired — deletes expired records of the environment only', async () => {
      const s = get();
      await s.idempotency.begin('env-a', 'old', 'fp', T0, plus(T0, 1_000));
      await s.idempotency.begin('env-a', 'new', 'fp', T0, plus(T0, 60_000));
      await s.idempotency.begin('env-b', 'old', 'fp', T0, plus(T0, 1_000));
      expect(await s.idempotency.purgeExpired('env-a', plus(T0, 1_000))).toBe(1);
      expect(await s.idempotency.begin('env-a', 'new', 'fp', plus(T0, 2_000), plus(T0, 60_000))).toEqual({ state: 'in_flight', fingerprint: 'fp' });
      expect(await s.idempotency.purgeExpired('env-b', plus(T0, 1_000))).toBe(1);
    });
  });
}
