import { describe, expect, it } from 'vitest';
import type { SuiteContext } from '../describe-storage.js';
import { notificationRecord } from '../fixtures.js';

export function notificationsSuite({ get }: SuiteContext): void {
  describe('notifications', () => {
    it('notifications.insert — a transactionId is unique per environment; the loser stores nothing', async () => {
      const s = get();
      const first = notificationRecord('env-a', { transactionId: 'tx-1', payload: { n: 1, nested: { ok: true } } });
      expect(await s.notifications.insert('env-a', first)).toBe(true);
      const second = notificationRecord('env-a', { transactionId: 'tx-1' });
      expect(await s.notifications.insert('env-a', second)).toBe(false);
      expect(await s.notifications.getMany('env-a', [second._id])).toEqual([]);
      expect(await s.notifications.getByTransactionId('env-a', 'tx-1')).toEqual(first);
      expect(await s.notifications.insert('env-b', notificationRecord('env-b', { transactionId: 'tx-1' }))).toBe(true);
    });

    it('notifications.insert — of racing inserts with one transactionId exactly one wins', async () => {
      const s = get();
      const results = await Promise.all(
        Array.from({ length: 8 }, () => s.notifications.insert('env-a', notificationRecord('env-a', { transactionId: 'race' }))),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
    });

    it('notifications — another environment cannot read them', async () => {
      const s = get();
      const n = notificationRecord('env-a');
      await s.notifications.insert('env-a', n);
      expect(await s.notifications.getMany('env-b', [n._id])).toEqual([]);
      expect(await s.notifications.getByTransactionId('env-b', n.transactionId)).toBeNull();
      expect(await s.notifications.getMany('env-a', [n._id, 'missing'])).toEqual([n]);
    });
  });
}
