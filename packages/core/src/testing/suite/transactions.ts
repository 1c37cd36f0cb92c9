import { describe, expect, it } from 'vitest';
import type { SuiteContext } from '../storage-under-test.js';
import { upsertSubscribers } from '../../subscribers/upsert-subscribers.js';
import { ORG, T0, jobRecord, notificationRecord } from '../fixtures.js';

export function transactionsSuite({ get }: SuiteContext): void {
  describe('transactions', () => {
    it('transaction — commits every write together when the function resolves', async () => {
      const s = get();
      const n = notificationRecord('env-a');
      const result = await s.transaction(async (tx) => {
        await upsertSubscribers(tx, 'env-a', [{ _id: 'i1', patch: { subscriberId: 'u1' } }], T0, ORG);
        await tx.notifications.insertMany('env-a', [n]);
        await tx.jobs.enqueue('env-a', [jobRecord('env-a', { transactionId: n.transactionId })]);
        return 'done';
      });
      expect(result).toBe('done');
      expect(await s.subscribers.getMany('env-a', ['u1'])).toHaveLength(1);
      expect(await s.jobs.list('env-a')).toHaveLength(1);
    });

    it('transaction — undoes every write when the function throws, and rethrows', async () => {
      const s = get();
      await upsertSubscribers(s, 'env-a', [{ _id: 'i0', patch: { subscriberId: 'u0', firstName: 'Before' } }], T0, ORG);
      const n = notificationRecord('env-a');
      await expect(
        s.transaction(async (tx) => {
          await upsertSubscribers(tx, 'env-a', [{ _id: 'i1', patch: { subscriberId: 'u1' } }, { _id: 'x', patch: { subscriberId: 'u0', firstName: 'After' } }], T0, ORG);
          await tx.notifications.insertMany('env-a', [n]);
          await tx.jobs.enqueue('env-a', [jobRecord('env-a')]);
          throw new Error('boom');
        }),
      ).rejects.toThrow('boom');
      expect(await s.subscribers.getMany('env-a', ['u1'])).toEqual([]);
      expect((await s.subscribers.getMany('env-a', ['u0']))[0]?.firstName).toBe('Before');
      expect(await s.notifications.getByTransactionId('env-a', n.transactionId)).toBeNull();
      expect(await s.jobs.list('env-a')).toEqual([]);
      expect(await s.notifications.insertMany('env-a', [n])).toEqual([n._id]);
    });

    it('transaction — concurrent transactions do not interleave their read-then-write', async () => {
      const s = get();
      await upsertSubscribers(s, 'env-a', [{ _id: 'i', patch: { subscriberId: 'counter', data: { n: 0 } } }], T0, ORG);
      await Promise.all(
        Array.from({ length: 10 }, () =>
          s.transaction(async (tx) => {
            const [current] = await tx.subscribers.getMany('env-a', ['counter']);
            const n = (current!.data as { n: number }).n;
            await upsertSubscribers(tx, 'env-a', [{ _id: 'i', patch: { subscriberId: 'counter', data: { n: n + 1 } } }], T0, ORG);
          }),
        ),
      );
      expect((await s.subscribers.getMany('env-a', ['counter']))[0]!.data).toEqual({ n: 10 });
    });
  });
}
