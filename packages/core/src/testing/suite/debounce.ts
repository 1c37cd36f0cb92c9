import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { manualClock } from '../../clock.js';
import { createTidings } from '../../engine/create-tidings.js';
import { isTidingsError } from '../../errors.js';
import type { TidingsEvents } from '../../events.js';
import { storageWith } from '../storage-with.js';
import type { SuiteContext } from '../storage-under-test.js';

const SECOND = 1_000;
const T0 = '2026-06-01T12:00:00.000Z';

/** Debounce: a burst of triggers becomes one run with the last event, on every backend. */
export function debounceSuite({ get }: SuiteContext): void {
  describe('debounce over this storage', () => {
    async function engine(environmentId: string, storage = get()) {
      const clock = manualClock(T0);
      const tidings = createTidings({ storage, clock, environmentId });
      await tidings.workflows.upsert({
        name: 'Comments',
        triggers: [{ identifier: 'comments' }],
        debounce: { key: '{{ payload.taskId }}', period: { amount: 30, unit: 'seconds' }, maxWait: { amount: 2, unit: 'minutes' } },
        steps: [{ template: { type: 'in_app', content: '{{ payload.taskId }}:{{ payload.seq }}' } }],
      });
      const fired: TidingsEvents['debounce.fired'][] = [];
      tidings.events.on('debounce.fired', (e) => fired.push(e));
      const feed = async (subscriberId = 'ada') => (await tidings.messages.feed(subscriberId, { limit: 100 })).items.map((m) => m.content).sort();
      return { tidings, clock, fired, feed };
    }

    it('a burst — nothing runs while triggers keep coming; once the period passed quietly, one run with the last event; the earlier transactionIds are folded into it', async () => {
      const { tidings, clock, fired, feed } = await engine('debounce-burst');
      const ids: string[] = [];
      for (const seq of [1, 2, 3]) {
        const result = await tidings.trigger({ name: 'comments', to: 'ada', payload: { taskId: 't1', seq } });
        expect(result.status).toBe('processed');
        ids.push(result.transactionId!);
        clock.advance(20 * SECOND);
        await tidings.runDue();
        expect(await feed()).toEqual([]);
      }
      clock.advance(10 * SECOND);
      await tidings.runDue();
      expect(await feed()).toEqual(['t1:3']);
      expect(fired).toEqual([{ transactionId: ids[2], folded: ids.slice(0, 2), status: 'processed' }]);
      expect(await tidings.storage.notifications.getByTransactionId(tidings.environmentId, ids[0]!)).toBeNull();
      expect((await tidings.pending()).jobs).toEqual([]);
      // The burst is over: the next trigger begins a new one.
      await tidings.trigger({ name: 'comments', to: 'ada', payload: { taskId: 't1', seq: 4 } });
      clock.advance(30 * SECOND);
      await tidings.runDue();
      expect(await feed()).toEqual(['t1:3', 't1:4']);
    });

    it('maxWait — a burst that never goes quiet still runs, with the latest event, maxWait after its first trigger', async () => {
      const { tidings, clock, feed } = await engine('debounce-max-wait');
      for (let seq = 1; seq <= 8; seq++) {
        await tidings.trigger({ name: 'comments', to: 'ada', payload: { taskId: 't1', seq } });
        clock.advance(20 * SECOND);
        await tidings.runDue();
      }
      // Triggers at 0, 20 … 140 s: the burst begun at 0 ran at 120 s with the latest event then (seq 6, of 100 s); seq 7 began another.
      expect(await feed()).toEqual(['t1:6']);
      clock.advance(30 * SECOND);
      await tidings.runDue();
      expect(await feed()).toEqual(['t1:6', 't1:8']);
    });

    it('bursts are per workflow, recipients and rendered key; a trigger’s own debounce wins over the workflow’s', async () => {
      const { tidings, clock, feed } = await engine('debounce-groups');
      await tidings.trigger({ name: 'comments', to: 'ada', payload: { taskId: 't1', seq: 1 } });
      await tidings.trigger({ name: 'comments', to: 'ada', payload: { taskId: 't2', seq: 2 } });
      await tidings.trigger({ name: 'comments', to: 'bob', payload: { taskId: 't1', seq: 3 } });
      await tidings.trigger({ name: 'comments', to: ['ada', 'bob'], payload: { taskId: 't1', seq: 4 } });
      // A longer period given with the trigger: its burst has not run when the others have.
      await tidings.trigger({ name: 'comments', to: 'ada', payload: { taskId: 't3', seq: 5 }, debounce: { key: '{{ payload.taskId }}', period: { amount: 5, unit: 'minutes' } } });
      clock.advance(30 * SECOND);
      await tidings.runDue();
      expect(await feed('ada')).toEqual(['t1:1', 't1:4', 't2:2']);
      expect(await feed('bob')).toEqual(['t1:3', 't1:4']);
      clock.advance(5 * 60 * SECOND);
      await tidings.runDue();
      expect(await feed('ada')).toEqual(['t1:1', 't1:4', 't2:2', 't3:5']);
    });

    it('cancel — cancelling a burst’s last trigger cancels the burst: nothing runs', async () => {
      const { tidings, clock, feed } = await engine('debounce-cancel');
      await tidings.trigger({ name: 'comments', to: 'ada', payload: { taskId: 't1', seq: 1 } });
      const last = await tidings.trigger({ name: 'comments', to: 'ada', payload: { taskId: 't1', seq: 2 } });
      expect(await tidings.cancel(last.transactionId!)).toEqual({ cancelled: 1 });
      clock.advance(10 * 60 * SECOND);
      await tidings.runDue();
      expect(await feed()).toEqual([]);
      await expect(tidings.cancel(last.transactionId!)).rejects.toMatchObject({ code: 'not_found' });
    });

    it('bad debounces are refused naming the field, and store nothing', async () => {
      const { tidings, clock, feed } = await engine('debounce-invalid');
      const refused = async (debounce: unknown, path: string) => {
        const error = await tidings.trigger({ name: 'comments', to: 'ada', payload: { taskId: 't1' }, debounce: debounce as never }).catch((e: unknown) => e);
        expect(isTidingsError(error, 'validation_failed'), String(error)).toBe(true);
        expect((error as Error).message).toContain(path);
      };
      await refused({ key: 'x' }, 'debounce.period');
      await refused({ period: { amount: 0, unit: 'seconds' } }, 'debounce.period.amount');
      await refused({ period: { amount: 1, unit: 'weeks' } }, 'debounce.period.unit');
      await refused({ period: { amount: 5, unit: 'minutes' }, maxWait: { amount: 1, unit: 'minutes' } }, 'debounce.maxWait');
      await refused({ key: '{{ payload.taskId', period: { amount: 5, unit: 'minutes' } }, 'debounce.key');
      const workflow = await tidings.workflows.upsert({ name: 'Bad', triggers: [{ identifier: 'bad' }], debounce: { period: { amount: 40, unit: 'days' } } as never, steps: [] }).catch((e: unknown) => e);
      expect(isTidingsError(workflow, 'validation_failed')).toBe(true);
      expect(JSON.stringify((workflow as { issues: unknown }).issues)).toContain('debounce.period.amount');
      clock.advance(10 * 60 * SECOND);
      await tidings.runDue();
      expect(await feed()).toEqual([]);
      expect((await tidings.pending()).jobs).toEqual([]);
    });

    it('a burst’s run is once: a run whose commit failed after its trigger was stored runs again and stores nothing more; a trigger that joins while it runs makes a run of its own', async () => {
      const s = get();
      let failNext = true;
      // The first commit that would end a burst fails, after the burst's trigger was stored.
      const faulty = storageWith(s, {
        transaction: (fn) =>
          s.transaction((tx) => {
            const records = {
              ...tx.records,
              async delete(env: string, table: string, keys: readonly string[]) {
                if (failNext && table === 'debounces') {
                  failNext = false;
                  throw new Error('injected: the commit fails');
                }
                return tx.records.delete(env, table, keys);
              },
            };
            return fn(Object.defineProperty(Object.create(tx) as typeof tx, 'records', { value: records }));
          }),
      });
      const { tidings, clock, feed, fired } = await engine('debounce-once', faulty);
      await tidings.trigger({ name: 'comments', to: 'ada', payload: { taskId: 't1', seq: 1 } });
      clock.advance(30 * SECOND);
      await tidings.runDue().catch(() => 0);
      expect(await feed()).toEqual(['t1:1']);
      // The lease ends; the job runs again and finds its trigger stored.
      clock.advance(10 * 60 * SECOND);
      await tidings.runDue();
      expect(await feed()).toEqual(['t1:1']);
      expect(fired.map((f) => f.status)).toEqual(['processed']);
      expect((await tidings.pending()).jobs).toEqual([]);

      // A trigger sent while the burst's run is under way (the run stored its message, its job's commit is still to come).
      let joined: Promise<unknown> | null = null;
      tidings.events.on('notification.triggered', ({ notification }) => {
        if (notification.payload['seq'] === 2) joined = tidings.trigger({ name: 'comments', to: 'ada', payload: { taskId: 't1', seq: 3 } });
      });
      await tidings.trigger({ name: 'comments', to: 'ada', payload: { taskId: 't1', seq: 2 } });
      clock.advance(30 * SECOND);
      await tidings.runDue();
      await joined;
      clock.advance(30 * SECOND);
      await tidings.runDue();
      expect(await feed()).toEqual(['t1:1', 't1:2', 't1:3']);
      expect((await tidings.pending()).jobs).toEqual([]);
    });

    it('property — against a model on the manual clock: at most one run per burst, with its last event, never later than maxWait after its first trigger', async () => {
      const storage = get();
      let run = 0;
      const PERIOD = 30 * SECOND;
      // The workflow of `engine()`: a 30 s period, at most 2 minutes.
      const MAX_WAIT = 120 * SECOND;
      await fc.assert(
        fc.asyncProperty(fc.array(fc.record({ wait: fc.constantFrom(0, 5, 20, 29, 30, 31, 60) , key: fc.constantFrom('a', 'b') }), { minLength: 1, maxLength: 12 }), async (steps) => {
          const { tidings, clock, feed } = await engine(`debounce-model-${++run}`, storage);
          // The model: per key, the burst's first and last trigger and its last event.
          const open = new Map<string, { first: number; last: number; seq: number }>();
          const expected: string[] = [];
          const due = (b: { first: number; last: number }) => Math.min(b.last + PERIOD, b.first + MAX_WAIT);
          let now = 0;
          for (const [seq, { wait, key }] of steps.entries()) {
            now += wait * SECOND;
            clock.advance(wait * SECOND);
            for (const [k, b] of open) if (due(b) <= now) (expected.push(`${k}:${b.seq}`), open.delete(k));
            await tidings.runDue();
            await tidings.trigger({ name: 'comments', to: 'ada', payload: { taskId: key, seq } });
            const b = open.get(key);
            open.set(key, { first: b?.first ?? now, last: now, seq });
          }
          for (const [k, b] of open) expected.push(`${k}:${b.seq}`);
          clock.advance(MAX_WAIT);
          await tidings.runDue();
          expect(await feed()).toEqual(expected.sort());
        }),
        { numRuns: storage.capabilities.multiProcess ? 8 : 25 },
      );
    });
  });
}
