import { describe, expect, it } from 'vitest';
import { manualClock } from '../../clock.js';
import { createTidings } from '../../engine/create-tidings.js';
import { isTidingsError } from '../../errors.js';
import type { Storage } from '../../storage.js';
import { storageWith } from '../storage-with.js';
import type { SuiteContext } from '../storage-under-test.js';
import type { JsonObject } from '../../schemas/index.js';
import { scriptedCodeWorkflow } from '../scripted-code-workflow.js';

/**
 * The storage with its transactions counted. `failGroup()` makes the first transaction that stores
 * the notifications of more than one call run whole and then throw at its commit.
 */
function instrumented(storage: Storage) {
  let transactions = 0;
  let failGroup = false;
  const counted = storageWith(storage, {
    async transaction(fn) {
      transactions++;
      return storage.transaction(async (tx) => {
        let notifications = 0;
        const insertMany: typeof tx.notifications.insertMany = (env, list) => {
          notifications += list.length;
          return tx.notifications.insertMany(env, list);
        };
        const result = await fn({ ...tx, notifications: { ...tx.notifications, insertMany } });
        if (failGroup && notifications > 1) {
          failGroup = false;
          throw new Error('the commit was lost');
        }
        return result;
      });
    },
  });
  return {
    storage: counted,
    transactions: () => transactions,
    failGroup() {
      failGroup = true;
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

    it('group commit — concurrent triggers share one transaction; each call gets its own result and stores its own events', async () => {
      const { tidings, storage, clock } = await engine('env-group');
      const before = storage.transactions();
      const calls = Array.from({ length: 16 }, (_, n) => (n % 4 === 3 ? tidings.trigger({ name: 'later', to: `s${n}`, payload: { n }, transactionId: `g${n}` }) : tidings.trigger({ name: 'hello', to: `s${n}`, payload: { n }, transactionId: `g${n}` })));
      const results = await Promise.all(calls);
      expect(results.map((r) => r.transactionId)).toEqual(Array.from({ length: 16 }, (_, n) => `g${n}`));
      expect(results.every((r) => r.status === 'processed')).toBe(true);
      // Sixteen calls begun together, one transaction, whatever the time each one's reads took.
      expect(storage.transactions() - before).toBe(1);
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
      expect(storage.transactions() - before).toBe(1);
      expect(first).toMatchObject({ status: 'fulfilled', value: { status: 'processed', transactionId: 'r1' } });
      expect(dup.status === 'rejected' && isTidingsError(dup.reason, 'conflict')).toBe(true);
      expect(bulk).toMatchObject({ status: 'fulfilled', value: [{ status: 'processed' }, { status: 'error', error: ['duplicate_transaction_id'] }, { status: 'invalid_recipients' }] });
      expect(noOne.status).toBe('rejected');
      expect((await tidings.messages.byTransaction('used')).map((m) => m.subscriberId)).toEqual(['ada']);
      expect((await tidings.messages.byTransaction('r3')).map((m) => m.subscriberId)).toEqual(['dan']);
      expect(await tidings.messages.byTransaction('r5')).toEqual([]);
      for (const id of ['cy', 'eve']) expect(await tidings.subscribers.get(id).catch(() => null)).toBeNull();
    });

    it('group commit — a slow payload check (the user\'s code) delays no other trigger: a group waits only for calls at their own engine work', async () => {
      const storage = instrumented(get());
      let releaseCheck: () => void = () => undefined;
      const checking = new Promise<void>((resolve) => (releaseCheck = resolve));
      const slow = { ...scriptedCodeWorkflow('slow-check', [{ stepId: 'note', type: 'in_app', outputs: () => ({ body: 'checked' }) }]), preparePayload: async (payload: JsonObject) => {
        await checking;
        return { ok: true as const, payload };
      } };
      const tidings = createTidings({ storage: storage.storage, clock: manualClock('2026-05-04T08:00:00.000Z'), environmentId: 'env-group-slow', workflows: [slow] });
      await tidings.workflows.upsert(hello);
      const pending = tidings.trigger({ name: 'slow-check', to: 'ada', payload: {}, transactionId: 'slow-1' });
      let slowSettled = false;
      void pending.finally(() => (slowSettled = true));
      // The check has not settled, and never will until released: the other trigger commits anyway.
      const other = await tidings.trigger({ name: 'hello', to: 'bob', payload: { n: 1 }, transactionId: 'fast-1' });
      expect(other.status).toBe('processed');
      expect(slowSettled).toBe(false);
      expect((await tidings.messages.byTransaction('fast-1')).map((m) => m.content)).toEqual(['Hi 1']);
      releaseCheck();
      expect((await pending).status).toBe('processed');
    });

    it('group commit — a group whose commit fails fails each of its calls, and stores nothing of them; a call retried alone then commits', async () => {
      const { tidings, storage } = await engine('env-group-fault');
      storage.failGroup();
      const outcomes = await Promise.allSettled(Array.from({ length: 4 }, (_, n) => tidings.trigger({ name: 'hello', to: `f${n}`, payload: { n }, transactionId: `f${n}` })));
      const failed = outcomes.flatMap((o, n) => (o.status === 'rejected' ? [n] : []));
      // The four calls begun together share the commit that failed: each fails, with the commit's error.
      expect(failed).toEqual([0, 1, 2, 3]);
      for (const n of failed) expect((outcomes[n] as PromiseRejectedResult).reason).toMatchObject({ message: 'the commit was lost' });
      for (let n = 0; n < 4; n++) expect(await tidings.messages.byTransaction(`f${n}`)).toHaveLength(failed.includes(n) ? 0 : 1);
      for (const n of failed) expect((await tidings.trigger({ name: 'hello', to: `f${n}`, payload: { n }, transactionId: `f${n}` })).status).toBe('processed');
      for (let n = 0; n < 4; n++) expect(await tidings.messages.byTransaction(`f${n}`)).toHaveLength(1);
    });
  });
}
