import { describe, expect, it } from 'vitest';
import type { SuiteContext } from '../storage-under-test.js';
import { T0, notificationRecord, plus } from '../fixtures.js';
import { newCallTraceKey } from '../../records/traces.js';

export function notificationsSuite({ get }: SuiteContext): void {
  describe('notifications', () => {
    it('notifications.insertMany — a transactionId is unique per environment; the loser stores nothing', async () => {
      const s = get();
      const first = notificationRecord('env-a', { transactionId: 'tx-1', payload: { n: 1, nested: { ok: true } } });
      expect(await s.notifications.insertMany('env-a', [first])).toEqual([first._id]);
      const second = notificationRecord('env-a', { transactionId: 'tx-1' });
      expect(await s.notifications.insertMany('env-a', [second])).toEqual([]);
      expect(await s.notifications.getMany('env-a', [second._id])).toEqual([]);
      expect(await s.notifications.getByTransactionId('env-a', 'tx-1')).toEqual(first);
      const other = notificationRecord('env-b', { transactionId: 'tx-1' });
      expect(await s.notifications.insertMany('env-b', [other])).toEqual([other._id]);
    });

    it('notifications.insertMany — within one batch the first of a transactionId wins, and order is kept', async () => {
      const s = get();
      const a = notificationRecord('env-a', { transactionId: 'b-1' });
      const b = notificationRecord('env-a', { transactionId: 'b-2' });
      const dup = notificationRecord('env-a', { transactionId: 'b-1' });
      const c = notificationRecord('env-a', { transactionId: 'b-3' });
      expect(await s.notifications.insertMany('env-a', [a, b, dup, c])).toEqual([a._id, b._id, c._id]);
      expect(await s.notifications.insertMany('env-a', [])).toEqual([]);
    });

    it('notifications.insertMany — of racing inserts with one transactionId exactly one wins', async () => {
      const s = get();
      const results = await Promise.all(
        Array.from({ length: 8 }, () => s.notifications.insertMany('env-a', [notificationRecord('env-a', { transactionId: 'race' })])),
      );
      expect(results.flat()).toHaveLength(1);
    });

    it('notifications — another environment cannot read them; by transactionIds in the order asked', async () => {
      const s = get();
      const n = notificationRecord('env-a');
      await s.notifications.insertMany('env-a', [n]);
      expect(await s.notifications.getMany('env-b', [n._id])).toEqual([]);
      expect(await s.notifications.getByTransactionId('env-b', n.transactionId)).toBeNull();
      expect(await s.notifications.getMany('env-a', [n._id, 'missing'])).toEqual([n]);
      const m = notificationRecord('env-a');
      await s.notifications.insertMany('env-a', [m]);
      expect(await s.notifications.getByTransactionIds('env-a', [m.transactionId, 'missing', n.transactionId])).toEqual([m, n]);
      expect(await s.notifications.getByTransactionIds('env-b', [n.transactionId])).toEqual([]);
    });

    it('notifications.list — newest first (ties by id), within the time bounds, paged by a cursor, one environment only', async () => {
      const s = get();
      const made = [0, 1, 1, 2, 3].map((minutes, i) => notificationRecord('env-a', { _id: `n-${i}`, createdAt: plus(T0, minutes * 60_000) }));
      await s.notifications.insertMany('env-a', made);
      await s.notifications.insertMany('env-b', [notificationRecord('env-b', { createdAt: plus(T0, 10 * 60_000) })]);
      const ids = (page: { items: { _id: string }[] }) => page.items.map((n) => n._id);
      const first = await s.notifications.list('env-a', { limit: 2 });
      expect(ids(first)).toEqual(['n-4', 'n-3']);
      const second = await s.notifications.list('env-a', { limit: 2, cursor: first.nextCursor! });
      expect(ids(second)).toEqual(['n-2', 'n-1']);
      expect(second.items[0]).toEqual(made[2]);
      const last = await s.notifications.list('env-a', { limit: 2, cursor: second.nextCursor! });
      expect(last).toEqual({ items: [made[0]], nextCursor: null });
      expect(ids(await s.notifications.list('env-a', { limit: 10, createdGte: plus(T0, 60_000), createdLte: plus(T0, 120_000) }))).toEqual(['n-3', 'n-2', 'n-1']);
      expect(await s.notifications.list('env-c', { limit: 10 })).toEqual({ items: [], nextCursor: null });
    });
  });

  describe('traces', () => {
    it('traces.append / list — records of one trigger oldest first, per subscriber on request, scoped by environment', async () => {
      const s = get();
      const entry = { stepIndex: 0, stepId: 's1', type: 'in_app' as const, decision: 'skipped' as const, reason: 'a step filter did not pass', failedFilter: { on: 'payload' as const, field: 'n', operator: 'EQUAL' as const, expected: '1', actual: 2, passed: false } };
      const late = { environmentId: 'env-a', transactionId: 'tx', subscriberId: 'u2', jobId: 'j2', at: '2026-01-01T00:00:02.000Z', entries: [entry] };
      const early = { ...late, subscriberId: 'u1', jobId: 'j1', at: '2026-01-01T00:00:01.000Z' };
      await s.traces.append([late, early, { ...early, transactionId: 'other' }]);
      expect(await s.traces.list('env-a', 'tx')).toEqual([early, late]);
      expect(await s.traces.list('env-a', 'tx', 'u2')).toEqual([late]);
      expect(await s.traces.list('env-b', 'tx')).toEqual([]);
      await s.traces.append([]);
    });

    it('traces.appendCall — the records of a call’s several triggers, found through the notifications that name them; retention takes each trigger’s part', async () => {
      const s = get();
      const key = newCallTraceKey();
      const [a, b, c] = ['call-a', 'call-b', 'call-c'].map((transactionId, i) => notificationRecord('env-a', { transactionId, createdAt: plus(T0, i) }));
      await s.notifications.insertMany('env-a', [a!, b!], { callTraces: key });
      await s.notifications.insertMany('env-a', [c!]);
      const delivered = { stepIndex: 0, stepId: 's1', type: 'in_app' as const, decision: 'delivered' as const, reason: 'rendered for in_app' };
      const at = '2026-01-01T00:00:01.000Z';
      const of = (transactionId: string, subscriberId: string) => ({ environmentId: 'env-a', transactionId, subscriberId, jobId: `j-${transactionId}-${subscriberId}`, at, entries: [delivered] });
      // The records of two triggers under the call's key, each found through its notification; a third trigger's notification names none.
      await s.traces.appendCall(key, [of('call-a', 'u1'), of('call-a', 'u2'), of('call-b', 'u1')]);
      const later = { ...of('call-a', 'u1'), jobId: 'j-later', at: '2026-01-01T00:00:05.000Z' };
      await s.traces.append([later]);
      expect(await s.traces.list('env-a', 'call-a')).toEqual([of('call-a', 'u1'), of('call-a', 'u2'), later]);
      expect(await s.traces.list('env-a', 'call-a', 'u2')).toEqual([of('call-a', 'u2')]);
      expect(await s.traces.list('env-a', 'call-b')).toEqual([of('call-b', 'u1')]);
      expect(await s.traces.list('env-a', 'call-c')).toEqual([]);
      expect(await s.traces.list('env-b', 'call-a')).toEqual([]);

      // Retention deletes call-a with its part of the call's record; call-b's part stays, then goes with it.
      expect(await s.retention.deleteNotificationsBefore('env-a', plus(T0, 1), 5)).toEqual(['call-a']);
      expect(await s.traces.list('env-a', 'call-a')).toEqual([]);
      expect(await s.traces.list('env-a', 'call-b')).toEqual([of('call-b', 'u1')]);
      expect(await s.records.count('env-a', 'traces', { key: [key] })).toBe(1);
      expect(await s.retention.deleteNotificationsBefore('env-a', plus(T0, 2), 5)).toEqual(['call-b']);
      expect(await s.records.count('env-a', 'traces', { key: [key] })).toBe(0);
    });
  });
}
