import { describe, expect, it, vi } from 'vitest';
import { manualClock, type Clock } from '../../clock.js';
import type { Provider } from '../../delivery/provider.js';
import { createTidings } from '../../engine/create-tidings.js';
import type { WorkflowInput } from '../../schemas/index.js';
import type { Storage } from '../../storage.js';
import type { SuiteContext } from '../storage-under-test.js';
import { faultyStorage } from '../faulty-storage.js';
import { T0 } from '../fixtures.js';

const digestFlow = (amount = 5, unit: 'seconds' | 'minutes' = 'minutes', before: WorkflowInput['steps'] = []): WorkflowInput => ({
  name: 'digest',
  triggers: [{ identifier: 'digest' }],
  steps: [...(before ?? []), { template: { type: 'digest' }, metadata: { type: 'regular', amount, unit } }, { template: { type: 'in_app', content: '{{ step.total_count }} events' } }],
});

const engine = (storage: Storage, options: { clock?: Clock; leaseMs?: number; providers?: Provider[]; env?: string; providerTimeoutMs?: number } = {}) =>
  createTidings({ storage, clock: options.clock ?? manualClock(T0), environmentId: options.env ?? 'env-r', inlineInApp: false, leaseMs: options.leaseMs ?? 30_000, ...(options.providers && { providers: options.providers }), ...(options.providerTimeoutMs && { providerTimeoutMs: options.providerTimeoutMs }), onError: () => undefined });

/**
 * Waits for a condition the engine's own timers bring about: the bound only ends a hang (the engine
 * never does it), it is no speed the machine must reach.
 */
const eventually = (check: () => Promise<void> | void) => vi.waitFor(check, { timeout: 30_000, interval: 10 });

/** The defects the fault suite was built to find, each pinned by the probe that found it. */
export function reliabilitySuite({ get }: SuiteContext): void {
  describe('reliability', () => {
    it('reliability — a job batch whose commit fails neither loses its digest nor counts its event twice', async () => {
      const faulty = faultyStorage(get());
      const clock = manualClock(T0);
      const tidings = engine(faulty, { clock });
      await tidings.workflows.upsert(digestFlow());
      await tidings.trigger({ name: 'digest', to: 'ada', transactionId: 'one' });
      faulty.arm();
      await tidings.runDue();
      const commit = faulty.points.lastIndexOf('commit');
      // The same run again, on a fresh environment, with its batch commit failing.
      const env = 'env-r2';
      const later = manualClock(T0);
      const again = engine(faulty, { clock: later, env });
      await again.workflows.upsert(digestFlow());
      await again.trigger({ name: 'digest', to: 'ada', transactionId: 'one' });
      faulty.arm({ at: commit, mode: 'throw' });
      await expect(again.runDue()).rejects.toThrow(/injected fault/);
      const restarted = engine(faulty, { clock: later, env });
      await restarted.runDue();
      expect((await restarted.pending()).digests.map((d) => d.count)).toEqual([1]);
      later.advance(5 * 60_000);
      await restarted.runDue();
      expect((await restarted.messages.feed('ada')).items.map((m) => m.content)).toEqual(['1 events']);
    });

    it('reliability — a re-run walk job does not join its digest again', async () => {
      const storage = get();
      const clock = manualClock(T0);
      const tidings = engine(storage, { clock });
      await tidings.workflows.upsert(digestFlow());
      await tidings.trigger({ name: 'digest', to: 'ada', transactionId: 'one' });
      const [job] = await storage.jobs.list('env-r');
      await tidings.runDue();
      // A copy of the walk job, as a worker that crashed after committing would leave it to run again.
      await storage.jobs.enqueue('env-r', [{ ...job!, id: `${job!.id}-again` }]);
      await tidings.runDue();
      expect((await tidings.pending()).digests.map((d) => d.count)).toEqual([1]);
      clock.advance(5 * 60_000);
      await tidings.runDue();
      expect((await tidings.messages.feed('ada')).items.map((m) => m.content)).toEqual(['1 events']);
    });

    it('reliability — events refused in the transaction (used transactionId, no recipients) create or change no tenant', async () => {
      const tidings = engine(get());
      await tidings.workflows.upsert(digestFlow());
      await tidings.tenants.upsert({ identifier: 'kept', name: 'Kept' });
      await tidings.trigger({ name: 'digest', to: 'ada', transactionId: 'used' });
      const results = await tidings.triggerBulk([
        { name: 'digest', to: 'ada', transactionId: 'used', tenant: { identifier: 'new', name: 'New' } },
        { name: 'digest', to: [{ type: 'Topic', topicKey: 'empty' }], tenant: { identifier: 'kept', name: 'Changed' } },
        { name: 'digest', to: 'ada', tenant: { identifier: 'stored', name: 'Stored' } },
      ]);
      expect(results.map((r) => r.status)).toEqual(['error', 'invalid_recipients', 'processed']);
      expect(await tidings.tenants.get('new')).toBeNull();
      expect((await tidings.tenants.get('kept'))?.name).toBe('Kept');
      expect((await tidings.tenants.get('stored'))?.name).toBe('Stored');
    });

    it('reliability — a scheduled delay without a date in the payload is an error at trigger time, naming the path', async () => {
      const tidings = engine(get());
      await tidings.workflows.upsert({
        name: 'sched',
        triggers: [{ identifier: 'sched' }],
        steps: [{ template: { type: 'delay' }, metadata: { type: 'scheduled', delayPath: 'send.at' } }, { template: { type: 'in_app', content: 'later' } }],
      });
      for (const payload of [{}, { send: { at: 'next tuesday' } }]) {
        const [result] = await tidings.triggerBulk([{ name: 'sched', to: 'ada', payload, transactionId: `bad-${JSON.stringify(payload).length}` }]);
        expect(result).toMatchObject({ status: 'error', error: ['payload.send.at must hold an ISO 8601 date for the scheduled delay'] });
        expect(await tidings.runDue()).toBe(0);
      }
      expect(await tidings.subscribers.get('ada')).toBeNull();
      expect((await tidings.trigger({ name: 'sched', to: 'ada', payload: { send: { at: '2026-03-02T10:05:00Z' } } })).status).toBe('processed');
    });

    it('reliability — after a crash, a single-process storage runs the dead worker’s jobs at once; a shared one after the lease', async () => {
      const storage = get();
      const clock = manualClock(T0);
      const tidings = engine(storage, { clock });
      await tidings.workflows.upsert({ name: 'hi', triggers: [{ identifier: 'hi' }], steps: [{ template: { type: 'in_app', content: 'hi' } }] });
      await tidings.trigger({ name: 'hi', to: 'ada' });
      // A process claimed the job and died holding its 30 s lease.
      expect(await storage.jobs.claimDue({ env: 'env-r', workerId: 'died', now: T0, limit: 10, leaseMs: 30_000 })).toHaveLength(1);
      const restarted = engine(storage, { clock });
      const ranAtOnce = await restarted.runDue();
      if (storage.capabilities.multiProcess) {
        expect(ranAtOnce).toBe(0);
        clock.advance(30_000);
        expect(await restarted.runDue()).toBe(1);
      } else expect(ranAtOnce).toBe(1);
      expect((await restarted.messages.feed('ada')).items).toHaveLength(1);
    });

    it('reliability — a batch that outlasts its lease keeps it, and a worker that lost its lease stores nothing', async () => {
      const storage = get();
      let release: () => void = () => undefined;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const calls: string[] = [];
      const slow: Provider = {
        id: 'slow',
        channel: 'chat',
        async send(message) {
          calls.push(message.messageId);
          await gate;
          return {};
        },
      };
      // Lease time runs on the engine's clock, which only this test moves: a stalled event loop cannot
      // make the lease run out, and a lease kept by wall-clock time alone cannot pass.
      const clock = manualClock(T0);
      // The provider's timeout is wall time: it must not end the call however long the machine takes.
      const a = engine(storage, { clock, leaseMs: 400, providers: [slow], providerTimeoutMs: 600_000 });
      await a.integrations.upsert({ name: 'Slow', providerId: 'slow', channel: 'chat', primary: true, credentials: { webhookUrl: 'https://hooks.example/x' } });
      await a.workflows.upsert({ name: 'c', triggers: [{ identifier: 'c' }], steps: [{ template: { type: 'chat', content: 'hello' } }] });
      await a.trigger({ name: 'c', to: 'ada' });
      const running = a.runDue();
      // A's batch is in hand (its provider call waits on the gate).
      await eventually(() => expect(calls).toHaveLength(1));
      // Three leases pass while the provider call waits, in steps shorter than a lease. After each
      // step A's renewal (every third of a lease) must move the lease on from the clock's new time: a
      // lease not renewed, or renewed from the batch's start, ends 100 ms after the step at the latest.
      for (let step = 0; step < 4; step++) {
        const now = clock.advance(300).getTime();
        await eventually(async () => {
          const [job] = await storage.jobs.list('env-r');
          expect(Date.parse(job!.lockedUntil!)).toBeGreaterThanOrEqual(now + 400);
        });
      }
      const b = engine(storage, { clock, leaseMs: 400, providers: [slow] });
      // B would run it if A's lease had run out (on a single-process storage B also takes back only dead leases).
      expect(await b.runDue()).toBe(0);
      // Now the lease is taken from A by force; A's provider call returns and its commit must store nothing.
      const [job] = await storage.jobs.list('env-r');
      await storage.jobs.releaseLeases('env-r', []);
      // Past A's lease on the clock as well, for a shared storage (where releasing leases is not its business).
      expect(await storage.jobs.claimDue({ env: 'env-r', workerId: 'thief', now: new Date(clock.now().getTime() + 1_000).toISOString(), limit: 1, leaseMs: 60_000 })).toHaveLength(1);
      release();
      await running;
      expect(calls).toHaveLength(1);
      expect(await storage.messages.listByTransaction('env-r', job!.transactionId)).toEqual([]);
      expect((await storage.jobs.list('env-r'))[0]).toMatchObject({ id: job!.id, lockedBy: 'thief' });
    });

    it('reliability — a digest window is anchored at the first event’s trigger time, however late its job runs', async () => {
      const storage = get();
      const clock = manualClock(T0);
      const tidings = engine(storage, { clock });
      await tidings.workflows.upsert(digestFlow(15, 'seconds'));
      await tidings.trigger({ name: 'digest', to: 'ada', transactionId: 'e1' });
      clock.advance(10_000);
      await tidings.trigger({ name: 'digest', to: 'ada', transactionId: 'e2' });
      // A backlog: no job runs until well after the window (T0 + 15 s) closed.
      clock.advance(20_000);
      await tidings.runDue();
      expect((await tidings.messages.feed('ada')).items.map((m) => m.content)).toEqual(['2 events']);
      expect((await tidings.pending()).digests).toEqual([]);
    });

    it('reliability — a due flush waits for events of its window whose jobs another worker is still running', async () => {
      const storage = get();
      const clock = manualClock(T0);
      const tidings = engine(storage, { clock });
      await tidings.workflows.upsert(digestFlow(15, 'seconds'));
      await tidings.trigger({ name: 'digest', to: 'ada', transactionId: 'e1' });
      await tidings.runDue();
      clock.advance(14_000);
      await tidings.trigger({ name: 'digest', to: 'ada', transactionId: 'e2' });
      clock.advance(20_000);
      // Another worker holds e2's job (due before the flush) while this one reaches the flush.
      const [busy] = await storage.jobs.claimDue({ env: 'env-r', workerId: 'busy', now: clock.now().toISOString(), limit: 1, leaseMs: 30_000 });
      expect(busy?.transactionId).toBe('e2');
      await tidings.runDue();
      expect((await tidings.messages.feed('ada')).items).toEqual([]);
      // The busy worker never finishes: its lease runs out, e2 joins, then the flush sends both.
      for (let i = 0; i < 3; i++) {
        clock.advance(30_000);
        await tidings.runDue();
      }
      expect((await tidings.messages.feed('ada')).items.map((m) => m.content)).toEqual(['2 events']);
      expect((await tidings.pending()).digests).toEqual([]);
    });

    it('reliability — cancelling a digest’s first event leaves its one flush job, which sends the rest', async () => {
      const storage = get();
      const clock = manualClock(T0);
      const tidings = engine(storage, { clock });
      await tidings.workflows.upsert(digestFlow());
      await tidings.triggerBulk([{ name: 'digest', to: 'ada', transactionId: 'c1' }, { name: 'digest', to: 'ada', transactionId: 'c2' }]);
      await tidings.runDue();
      const before = await storage.jobs.list('env-r');
      await tidings.cancel('c1');
      expect(await storage.jobs.list('env-r')).toEqual(before);
      clock.advance(5 * 60_000);
      await tidings.runDue();
      expect((await tidings.messages.feed('ada')).items.map((m) => m.content)).toEqual(['1 events']);
    });
  });
}
