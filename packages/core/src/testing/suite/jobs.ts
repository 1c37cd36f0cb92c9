import { describe, expect, it } from 'vitest';
import type { Job } from '../../schemas/index.js';
import type { SuiteContext } from '../storage-under-test.js';
import { T0, jobRecord, plus } from '../fixtures.js';
import { hasEarlierJob } from '../../kernel/jobs.js';

const LEASE = 30_000;

export function jobsSuite({ get }: SuiteContext): void {
  describe('jobs', () => {
    it('jobs.claimDue — hands out only due jobs, earliest first, up to the limit, counting the attempt and setting the lease', async () => {
      const s = get();
      const late = jobRecord('env-a', { runAt: plus(T0, -1000) });
      const early = jobRecord('env-a', { runAt: plus(T0, -5000) });
      const future = jobRecord('env-a', { runAt: plus(T0, 60_000) });
      const third = jobRecord('env-a', { runAt: T0 });
      await s.jobs.enqueue('env-a', [late, early, future, third]);
      const claimed = await s.jobs.claimDue({ workerId: 'w1', now: T0, limit: 2, leaseMs: LEASE });
      expect(claimed.map((j) => j.id)).toEqual([early.id, late.id]);
      expect(claimed[0]).toMatchObject({ lockedBy: 'w1', lockedUntil: plus(T0, LEASE), attempts: 1, data: early.data });
      const rest = await s.jobs.claimDue({ workerId: 'w2', now: T0, limit: 10, leaseMs: LEASE });
      expect(rest.map((j) => j.id)).toEqual([third.id]);
    });

    it('jobs.claimDue — `kinds` and `exceptKinds` claim one lane\'s jobs only, earliest first, leaving the others due', async () => {
      const s = get();
      const walk = jobRecord('env-a', { runAt: plus(T0, -3000) });
      const hook = { ...jobRecord('env-a', { runAt: plus(T0, -2000) }), kind: 'webhook' as const, data: { deliveryId: 'd1' } };
      const page = { ...jobRecord('env-a', { runAt: plus(T0, -1000) }), kind: 'outbox' as const, data: { events: [] } };
      await s.jobs.enqueue('env-a', [walk, hook, page]);
      expect((await s.jobs.claimDue({ workerId: 'lane', now: T0, limit: 10, leaseMs: LEASE, kinds: ['webhook', 'outbox'] })).map((j) => j.id)).toEqual([hook.id, page.id]);
      expect((await s.jobs.claimDue({ workerId: 'main', now: T0, limit: 10, leaseMs: LEASE, exceptKinds: ['webhook', 'outbox'] })).map((j) => j.id)).toEqual([walk.id]);
      expect(await s.jobs.claimDue({ workerId: 'none', now: T0, limit: 10, leaseMs: LEASE, kinds: [] })).toEqual([]);
    });

    it('jobs.claimDue — every due transactional job before any bulk one: a job enqueued after many bulk pages is in the next claim; bulk fills the room left; the class survives a reschedule', async () => {
      const s = get();
      const pages = Array.from({ length: 30 }, (_, i) => jobRecord('env-a', { kind: 'fanout', priority: 'bulk', runAt: plus(T0, -10_000 + i), data: { notificationId: 'n', subscriberIds: [`m${i}`] } } as never));
      await s.jobs.enqueue('env-a', pages);
      const reset = jobRecord('env-a', { runAt: plus(T0, -1) });
      const later = jobRecord('env-a', { runAt: plus(T0, 5_000) });
      await s.jobs.enqueue('env-a', [reset, later]);
      const first = await s.jobs.claimDue({ workerId: 'w1', now: T0, limit: 10, leaseMs: LEASE });
      expect(first.map((j) => j.id)).toEqual([reset.id, ...pages.slice(0, 9).map((p) => p.id)]);
      expect(first[0]!.priority).toBeUndefined();
      expect(first.slice(1).every((j) => j.priority === 'bulk')).toBe(true);
      // A rescheduled bulk job stays bulk: a transactional job due at the same time goes first.
      expect(await s.jobs.reschedule('env-a', pages[0]!.id, 'w1', { runAt: plus(T0, 10_000), data: pages[0]!.data, lastError: null, resetAttempts: true })).toBe(true);
      const next = await s.jobs.claimDue({ workerId: 'w2', now: plus(T0, 10_000), limit: 3, leaseMs: LEASE });
      expect(next.map((j) => j.id)).toEqual([later.id, pages[9]!.id, pages[10]!.id]);
      const rest = await s.jobs.claimDue({ workerId: 'w3', now: plus(T0, 10_000), limit: 100, leaseMs: LEASE });
      expect(rest.map((j) => j.id)).toEqual([...pages.slice(11).map((p) => p.id), pages[0]!.id]);
      expect(rest.every((j) => j.priority === 'bulk')).toBe(true);
    });

    it('jobs.claimDue — never hands one job to two workers before its lease ends', async () => {
      const s = get();
      await s.jobs.enqueue('env-a', Array.from({ length: 40 }, () => jobRecord('env-a')));
      const batches = await Promise.all(
        ['w1', 'w2', 'w3', 'w4'].map((workerId) => s.jobs.claimDue({ workerId, now: T0, limit: 15, leaseMs: LEASE })),
      );
      const ids = batches.flat().map((j) => j.id);
      expect(ids).toHaveLength(40);
      expect(new Set(ids).size).toBe(40);
      expect(await s.jobs.claimDue({ workerId: 'w5', now: plus(T0, LEASE - 1), limit: 100, leaseMs: LEASE })).toEqual([]);
    });

    it('jobs.claimDue — a job whose lease expired is claimed again, and the old worker can no longer complete it', async () => {
      const s = get();
      const job = jobRecord('env-a');
      await s.jobs.enqueue('env-a', [job]);
      await s.jobs.claimDue({ workerId: 'dead', now: T0, limit: 1, leaseMs: LEASE });
      const later = plus(T0, LEASE);
      expect(await s.jobs.nextDueAt()).toBe(later);
      const [again] = await s.jobs.claimDue({ workerId: 'alive', now: later, limit: 1, leaseMs: LEASE });
      expect(again).toMatchObject({ id: job.id, lockedBy: 'alive', attempts: 2 });
      expect(await s.jobs.complete('env-a', [job.id], 'dead')).toEqual([]);
      expect(await s.jobs.complete('env-a', [job.id, 'missing'], 'alive')).toEqual([job.id]);
      expect(await s.jobs.list('env-a')).toEqual([]);
    });

    it('jobs.enqueue — a keyed job moves the stored job with its key (data and attempts kept), per environment; a completed job frees its key', async () => {
      const s = get();
      const first = jobRecord('env-a', { key: 'digest:d1', runAt: plus(T0, 60_000) });
      await s.jobs.enqueue('env-a', [first]);
      await s.jobs.enqueue('env-a', [jobRecord('env-a', { key: 'digest:d1', runAt: plus(T0, 90_000), data: { notificationId: 'other', stepIndex: 5 } })]);
      await s.jobs.enqueue('env-b', [jobRecord('env-b', { key: 'digest:d1', runAt: T0 })]);
      const [moved] = await s.jobs.list('env-a');
      expect(await s.jobs.list('env-a')).toHaveLength(1);
      expect(moved).toMatchObject({ id: first.id, key: 'digest:d1', runAt: plus(T0, 90_000), data: first.data, attempts: 0 });
      expect(await s.jobs.list('env-b')).toHaveLength(1);
      const [claimed] = await s.jobs.claimDue({ env: 'env-a', workerId: 'w1', now: plus(T0, 90_000), limit: 1, leaseMs: LEASE });
      expect(claimed?.id).toBe(first.id);
      expect(await s.jobs.complete('env-a', [first.id], 'w1')).toEqual([first.id]);
      const again = jobRecord('env-a', { key: 'digest:d1' });
      await s.jobs.enqueue('env-a', [again]);
      expect((await s.jobs.list('env-a')).map((j) => j.id)).toEqual([again.id]);
    });

    it('jobs — complete, renew and reschedule act only in the job’s environment', async () => {
      const s = get();
      const job = jobRecord('env-a');
      await s.jobs.enqueue('env-a', [job]);
      await s.jobs.claimDue({ env: 'env-a', workerId: 'w1', now: T0, limit: 1, leaseMs: LEASE });
      expect(await s.jobs.renew('env-b', [job.id], 'w1', plus(T0, LEASE * 2))).toEqual([]);
      expect(await s.jobs.reschedule('env-b', job.id, 'w1', { runAt: T0, data: job.data, lastError: null, resetAttempts: false })).toBe(false);
      expect(await s.jobs.complete('env-b', [job.id], 'w1')).toEqual([]);
      expect(await s.jobs.complete('env-a', [job.id], 'w1')).toEqual([job.id]);
    });

    it('jobs.renew — extends the lease of jobs the worker still holds and names only those', async () => {
      const s = get();
      const [a, b, c] = [jobRecord('env-a'), jobRecord('env-a'), jobRecord('env-a')];
      await s.jobs.enqueue('env-a', [a, b, c]);
      await s.jobs.claimDue({ workerId: 'w1', now: T0, limit: 2, leaseMs: LEASE });
      const later = plus(T0, LEASE);
      // w1's lease on the first job ran out and w2 took it; the third was never w1's.
      const [taken] = await s.jobs.claimDue({ workerId: 'w2', now: later, limit: 1, leaseMs: LEASE });
      const kept = [a, b].find((j) => j.id !== taken!.id)!;
      expect(await s.jobs.renew('env-a', [a.id, b.id, c.id, 'missing'], 'w1', plus(later, LEASE))).toEqual([kept.id]);
      expect((await s.jobs.list('env-a')).find((j) => j.id === kept.id)).toMatchObject({ lockedBy: 'w1', lockedUntil: plus(later, LEASE) });
      // Renewed past `later`, the kept job is not claimable then; a lease renewed to now is.
      expect((await s.jobs.claimDue({ workerId: 'w3', now: later, limit: 10, leaseMs: LEASE })).map((j) => j.id)).toEqual([c.id]);
      expect(await s.jobs.renew('env-a', [kept.id], 'w1', later)).toEqual([kept.id]);
      expect((await s.jobs.claimDue({ workerId: 'w3', now: later, limit: 10, leaseMs: LEASE })).map((j) => j.id)).toEqual([kept.id]);
    });

    it('jobs.releaseLeases — frees the leases of workers not named alive, in one environment only', async () => {
      const s = get();
      const [a, b, c, other] = [jobRecord('env-a'), jobRecord('env-a'), jobRecord('env-a'), jobRecord('env-b')];
      await s.jobs.enqueue('env-a', [a, b, c]);
      await s.jobs.enqueue('env-b', [other]);
      await s.jobs.claimDue({ env: 'env-a', workerId: 'dead', now: T0, limit: 1, leaseMs: LEASE });
      await s.jobs.claimDue({ env: 'env-a', workerId: 'alive', now: T0, limit: 1, leaseMs: LEASE });
      await s.jobs.claimDue({ env: 'env-b', workerId: 'dead', now: T0, limit: 1, leaseMs: LEASE });
      expect(await s.jobs.releaseLeases('env-a', ['alive'])).toBe(1);
      const claimed = await s.jobs.claimDue({ workerId: 'new', now: T0, limit: 10, leaseMs: LEASE });
      expect(claimed).toHaveLength(2);
      expect(claimed.every((j) => j.environmentId === 'env-a')).toBe(true);
      expect(await s.jobs.releaseLeases('env-a', [])).toBe(3);
    });

    it('jobs.reschedule — releases the lease with new data and run time, only for the holder', async () => {
      const s = get();
      const job = jobRecord('env-a');
      await s.jobs.enqueue('env-a', [job]);
      await s.jobs.claimDue({ workerId: 'w1', now: T0, limit: 1, leaseMs: LEASE });
      const runAt = plus(T0, 3_600_000);
      const change = { runAt, data: { notificationId: 'n', stepIndex: 2 }, lastError: 'boom', resetAttempts: false };
      expect(await s.jobs.reschedule('env-a', job.id, 'w2', change)).toBe(false);
      expect(await s.jobs.reschedule('env-a', job.id, 'w1', change)).toBe(true);
      const [stored] = await s.jobs.list('env-a');
      expect(stored).toMatchObject({ runAt, lockedBy: null, lockedUntil: null, attempts: 1, lastError: 'boom', data: { stepIndex: 2 } });
      expect(await s.jobs.claimDue({ workerId: 'w1', now: T0, limit: 1, leaseMs: LEASE })).toEqual([]);
      await s.jobs.claimDue({ workerId: 'w1', now: runAt, limit: 1, leaseMs: LEASE });
      await s.jobs.reschedule('env-a', job.id, 'w1', { ...change, resetAttempts: true });
      expect((await s.jobs.list('env-a'))[0]!.attempts).toBe(0);
    });

    it('jobs — environment scoping of claimDue, list, nextDueAt and cancelByTransaction', async () => {
      const s = get();
      const a = jobRecord('env-a', { transactionId: 'tx', runAt: plus(T0, 10) });
      const b = jobRecord('env-b', { transactionId: 'tx', runAt: plus(T0, 5) });
      await s.jobs.enqueue('env-a', [a]);
      await s.jobs.enqueue('env-b', [b]);
      expect(await s.jobs.nextDueAt('env-a')).toBe(a.runAt);
      expect(await s.jobs.nextDueAt()).toBe(b.runAt);
      expect((await s.jobs.list('env-b')).map((j) => j.id)).toEqual([b.id]);
      expect(await s.jobs.cancelByTransaction('env-a', 'tx')).toBe(1);
      expect((await s.jobs.claimDue({ env: 'env-a', workerId: 'w', now: plus(T0, 100), limit: 10, leaseMs: LEASE })).length).toBe(0);
      expect((await s.jobs.claimDue({ env: 'env-b', workerId: 'w', now: plus(T0, 100), limit: 10, leaseMs: LEASE })).map((j) => j.id)).toEqual([b.id]);
      expect(await s.jobs.nextDueAt('env-a')).toBeNull();
    });

    it("jobs.nextDueAt of a lane — only the lane's kinds count, waiting or leased", async () => {
      const s = get();
      const walk = jobRecord('env-a', { runAt: plus(T0, 5) });
      const hook = { ...jobRecord('env-a', { runAt: plus(T0, 20) }), kind: 'webhook', data: { deliveryId: 'd' } } as Job;
      const page = { ...jobRecord('env-a', { runAt: plus(T0, 30) }), kind: 'fanout', data: {} } as Job;
      await s.jobs.enqueue('env-a', [walk, hook, page]);
      const webhooks = { kinds: ['webhook', 'outbox'] } as const;
      const walks = { exceptKinds: ['webhook', 'outbox', 'fanout'] } as const;
      expect(await s.jobs.nextDueAt('env-a', webhooks)).toBe(hook.runAt);
      expect(await s.jobs.nextDueAt('env-a', { kinds: ['fanout'] })).toBe(page.runAt);
      expect(await s.jobs.nextDueAt('env-a', walks)).toBe(walk.runAt);
      expect(await s.jobs.nextDueAt('env-a', { kinds: [] })).toBeNull();
      // A leased job counts at its lease end, in its own lane only.
      await s.jobs.claimDue({ env: 'env-a', workerId: 'w', now: plus(T0, 20), limit: 10, leaseMs: LEASE, kinds: ['webhook'] });
      expect(await s.jobs.nextDueAt('env-a', webhooks)).toBe(plus(plus(T0, 20), LEASE));
      expect(await s.jobs.nextDueAt('env-a', walks)).toBe(walk.runAt);
    });

    it('jobs.cancelByTransaction / list — cancels leased and waiting jobs of one trigger; list filters by trigger and subscriber', async () => {
      const s = get();
      const jobs = [
        jobRecord('env-a', { transactionId: 't1', subscriberId: 'u1' }),
        jobRecord('env-a', { transactionId: 't1', subscriberId: 'u2', runAt: plus(T0, 1) }),
        jobRecord('env-a', { transactionId: 't2', subscriberId: 'u1', runAt: plus(T0, 2) }),
      ];
      await s.jobs.enqueue('env-a', jobs);
      await s.jobs.claimDue({ workerId: 'w', now: T0, limit: 1, leaseMs: LEASE });
      expect((await s.jobs.list('env-a', { subscriberId: 'u1' })).map((j) => j.transactionId)).toEqual(['t1', 't2']);
      expect((await s.jobs.list('env-a', { transactionId: 't1' })).length).toBe(2);
      expect(await s.jobs.cancelByTransaction('env-a', 't1')).toBe(2);
      expect((await s.jobs.list('env-a')).map((j) => j.transactionId)).toEqual(['t2']);
    });

    it('jobs.hasEarlier — the subscriber\'s jobs due before the instant, leased or not, less the ones left out; a backend\'s fast path answers as core\'s rule does', async () => {
      const s = get();
      const ada = (runAt: string) => jobRecord('env-a', { subscriberId: 'he-ada', runAt });
      const [early, leased, atInstant, late] = [ada(plus(T0, -5000)), ada(plus(T0, -4000)), ada(T0), ada(plus(T0, 5000))];
      await s.jobs.enqueue('env-a', [early, leased, atInstant, late, jobRecord('env-a', { subscriberId: 'he-bob', runAt: plus(T0, -9000) })]);
      await s.jobs.enqueue('env-b', [jobRecord('env-b', { subscriberId: 'he-ada', runAt: plus(T0, -9000) })]);
      await s.jobs.claimDue({ env: 'env-a', workerId: 'w1', now: plus(T0, -4000), limit: 2, leaseMs: LEASE });
      const cases: [env: string, subscriberId: string, before: string, except: string[], expected: boolean][] = [
        ['env-a', 'he-ada', T0, [], true],
        ['env-a', 'he-ada', T0, [early.id], true],
        ['env-a', 'he-ada', T0, [early.id, leased.id], false],
        ['env-a', 'he-ada', plus(T0, 1), [early.id, leased.id], true],
        ['env-a', 'he-ada', plus(T0, 10_000), [early.id, leased.id, atInstant.id, late.id], false],
        ['env-a', 'he-ada', plus(T0, -5000), [], false],
        ['env-a', 'he-cy', plus(T0, 10_000), [], false],
        ['env-b', 'he-bob', plus(T0, 10_000), [], false],
        ['env-b', 'he-ada', T0, [], true],
      ];
      for (const [env, subscriberId, before, except, expected] of cases) {
        expect(await s.jobs.hasEarlier(env, subscriberId, before, except), `${env} ${subscriberId} ${before} ${except.length}`).toBe(expected);
        expect(await hasEarlierJob(s.jobs, env, subscriberId, before, except)).toBe(expected);
      }
    });
  });
}
