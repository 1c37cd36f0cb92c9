import { describe, expect, it } from 'vitest';
import type { SuiteContext } from '../storage-under-test.js';
import { T0, jobRecord, plus } from '../fixtures.js';

const opening = (env: string, key: string, id: string) => ({ id, environmentId: env, key, workflowId: 'wf', stepIndex: 1, subscriberId: 'ada', digestKey: null, openedAt: T0, dueAt: plus(T0, 60_000) });
const event = (n: number) => ({ transactionId: `tx-${n}`, notificationId: `n-${n}`, payload: {}, at: plus(T0, n) });

/** The counts metrics read on each scrape: jobs by kind and open digests, per environment. */
export function countsSuite({ get }: SuiteContext): void {
  describe('counts', () => {
    it('jobs.countByKind — every job of the environment by kind, due or not, leased or not; nothing once they are done', async () => {
      const s = get();
      expect(await s.jobs.countByKind('env-a')).toEqual({});
      const walks = [jobRecord('env-a'), jobRecord('env-a', { runAt: plus(T0, 3_600_000) }), jobRecord('env-a')];
      const flush = jobRecord('env-a', { kind: 'digest', key: 'digest:d1', data: { digestId: 'd1' } });
      await s.jobs.enqueue('env-a', [...walks, flush]);
      await s.jobs.enqueue('env-b', [jobRecord('env-b', { kind: 'unsnooze', data: { messageId: 'm' } })]);
      const claimed = await s.jobs.claimDue({ env: 'env-a', workerId: 'w', now: T0, limit: 1, leaseMs: 30_000 });
      expect(await s.jobs.countByKind('env-a')).toEqual({ walk: 3, digest: 1 });
      expect(await s.jobs.countByKind('env-b')).toEqual({ unsnooze: 1 });
      await s.jobs.complete('env-a', claimed.map((j) => j.id), 'w');
      const after = await s.jobs.countByKind('env-a');
      expect((after.walk ?? 0) + (after.digest ?? 0)).toBe(3);
    });

    it('digests.countOpen — open digests of the environment; a closed one is not counted', async () => {
      const s = get();
      expect(await s.digests.countOpen('env-a')).toBe(0);
      await s.digests.insertOpen('env-a', opening('env-a', 'k1', 'd1'), event(1));
      await s.digests.insertOpen('env-a', opening('env-a', 'k2', 'd2'), event(2));
      await s.digests.append('env-a', 'd2', 'k2', event(3), plus(T0, 60_000));
      await s.digests.insertOpen('env-b', opening('env-b', 'k1', 'd3'), event(4));
      expect(await s.digests.countOpen('env-a')).toBe(2);
      await s.digests.close('env-a', 'd1');
      expect(await s.digests.countOpen('env-a')).toBe(1);
      expect(await s.digests.countOpen('env-b')).toBe(1);
    });
  });
}
