import { describe, expect, it } from 'vitest';
import { manualClock } from '../../clock.js';
import { createTidings } from '../../engine/create-tidings.js';
import { isTidingsError } from '../../errors.js';
import type { Storage } from '../../storage.js';
import { wrapRepositories } from '../../wrap-repositories.js';
import type { SuiteContext } from '../describe-storage.js';

/**
 * The storage with its transactions counted. `holdNext(calls)` makes the next transaction wait until
 * `calls` workflow lookups (one per trigger call, made before its commit) have been answered, so the
 * calls behind it are certainly waiting for the next commit whatever the machine's speed.
 * `failNext(k)` makes the k-th transaction from now run whole and then throw at its commit.
 */
function instrumented(storage: Storage) {
  let transactions = 0;
  let failing = 0;
  let lookups = 0;
  let gate: { calls: number; open: () => void; opened: Promise<void>; taken: boolean } | null = null;
  const counted: Storage = {
    ...wrapRepositories(storage, async (call, name) => {
      const result = await call();
      if (name === 'workflows.find' && gate && ++lookups === gate.calls) setImmediate(gate.open);
      return result;
    }),
    capabilities: storage.capabilities,
    close: () => storage.close(),
    ...(storage.subscribeJobs && { subscribeJobs: storage.subscribeJobs.bind(storage) }),
    async transaction(fn) {
      const nth = ++transactions;
      if (gate && !gate.taken) {
        gate.taken = true;
        await gate.opened;
      }
      return storage.transaction(async (tx) => {
        const result = await fn(tx);
        if (nth === failing) throw new Error('the commit was lost');
        return result;
      });
    },
  };
  return {
    storage: counted,
    transactions: () => transactions,
    holdNext(calls: number) {
      lookups = 0;
      let open = () => undefined as void;
      const opened = new Promise<void>((resolve) => (open = resolve));
      gate = { calls, open, opened, taken: false };
    },
    failNext(k: number) {
      failing = transactions + k;
    },
  };
}

const hello = { name: 'Hello', triggers: [{ identifier: 'hello' }], steps: [{ template: { type: 'in_app' as const, content: 'Hi {{ payload.n }}' } }] };
const later = { name: 'Later', triggers: [{ identifier: 'later' }], steps: [{ template: { type: 'delay' as const }, metadata: { type: 'regular' as const, amount: 1, unit: 'minutes' as const } }, { template: { type: 'in_app' as const, content: 'Later {{ payload.n }}' } }] };

export function groupCommitSuite({ get }: SuiteContext): void {
  describe('group commit', () => {
    const engine = async (environmentId: string) => {
      const storage = instrumented(get());
      const clock = manualClock('2026-05-04T08:00:00.000Z');
      const tidings = createTidings({ storage: storage.storage, clock, environmentId });
      await tidings.workflows.upsert(hello);
      await tidings.workflows.upsert(later);
      return { tidings, storage, clock };
    };

    it('group commit — concurrent triggers share transactions; each call gets its own result and stores its own events', async () => {
      const { tidings, storage, clock } = await engine('env-group');
      const before = storage.transactions();
      storage.holdNext(16);
      const calls = Array.from({ length: 16 }, (_, n) => (n % 4 === 3 ? tidings.trigger({ name: 'later', to: `s${n}`, payload: { n }, transactionId: `g${n}` }) : tidings.trigger({ name: 'hello', to: `s${n}`, payload: { n }, transactionId: `g${n}` })));
      const results = await Promise.all(calls);
      expect(results.map((r) => r.transactionId)).toEqual(Array.from({ length: 16 }, (_, n) => `g${n}`));
      expect(results.every((r) => r.status === 'processed')).toBe(true);
      // Sixteen calls, two transactions: the first commits alone, the fifteen that came during it share the next.
      expect(storage.transactions() - before).toBe(2);
      await tidings.runDue();
      clock.advance(60_000);
      await tidings.runDue();
      for (let n = 0; n < 16; n++) {
        const [message] = await tidings.messages.byTransaction(`g${n}`);
        expect(message).toMatchObject({ subscriberId: `s${n}`, content: n % 4 === 3 ? `Later ${n}` : `Hi ${n}` });
      }
    });

    it('group commit — a refused event in one call of a group changes nothing; the other calls and events commit', async () => {
      const { tidings, storage } = await engine('env-group-refused');
      await tidings.trigger({ name: 'hello', to: 'ada', payload: { n: 0 }, transactionId: 'used' });
      const before = storage.transactions();
      storage.holdNext(3);
      const [first, dup, bulk, noOne] = await Promise.allSettled([
        tidings.trigger({ name: 'hello', to: 'bob', payload: { n: 1 }, transactionId: 'r1' }),
        tidings.trigger({ name: 'hello', to: 'cy', payload: { n: 2 }, transactionId: 'used' }),
        tidings.triggerBulk([
          { name: 'hello', to: 'dan', payload: { n: 3 }, transactionId: 'r3' },
          { name: 'hello', to: 'eve', payload: { n: 4 }, transactionId: 'used' },
          { name: 'hello', to: { type: 'Topic', topicKey: 'nobody' }, payload: { n: 5 }, transactionId: 'r5' },
        ]),
        tidings.trigger({ name: 'hello', to: [], payload: { n: 6 }, transactionId: 'r6' }),
      ]);
      expect(storage.transactions() - before).toBe(2);
      expect(first).toMatchObject({ status: 'fulfilled', value: { status: 'processed', transactionId: 'r1' } });
      expect(dup.status === 'rejected' && isTidingsError(dup.reason, 'conflict')).toBe(true);
      expect(bulk).toMatchObject({ status: 'fulfilled', value: [{ status: 'processed' }, { status: 'error', error: ['duplicate_transaction_id'] }, { status: 'invalid_recipients' }] });
      expect(noOne.status).toBe('rejected');
      expect((await tidings.messages.byTransaction('used')).map((m) => m.subscriberId)).toEqual(['ada']);
      expect((await tidings.messages.byTransaction('r3')).map((m) => m.subscriberId)).toEqual(['dan']);
      expect(await tidings.messages.byTransaction('r5')).toEqual([]);
      for (const id of ['cy', 'eve']) expect(await tidings.subscribers.get(id).catch(() => null)).toBeNull();
    });

    it('group commit — a group whose commit fails fails each of its calls, and stores nothing of them; a call retried alone then commits', async () => {
      const { tidings, storage } = await engine('env-group-fault');
      storage.holdNext(4);
      storage.failNext(2);
      const outcomes = await Promise.allSettled(Array.from({ length: 4 }, (_, n) => tidings.trigger({ name: 'hello', to: `f${n}`, payload: { n }, transactionId: `f${n}` })));
      // The first call committed alone; the three that came during its commit shared the one that failed.
      expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'rejected']);
      for (const o of outcomes) if (o.status === 'rejected') expect((o.reason as Error).message).toBe('the commit was lost');
      for (const n of [1, 2, 3]) expect(await tidings.messages.byTransaction(`f${n}`)).toEqual([]);
      for (const n of [1, 2, 3]) expect((await tidings.trigger({ name: 'hello', to: `f${n}`, payload: { n }, transactionId: `f${n}` })).status).toBe('processed');
      for (let n = 0; n < 4; n++) expect(await tidings.messages.byTransaction(`f${n}`)).toHaveLength(1);
    });
  });
}
