import fc from 'fast-check';
import { expect, it } from 'vitest';
import { JobQueue, type QueueEntry } from '../src/job-queue.js';
import { memoryStorage } from '../src/index.js';

const entry = fc.record({ runAt: fc.constantFrom('2026-01-01T00:00:00.000Z', '2026-01-01T00:00:01.000Z', '2026-01-02T00:00:00.000Z'), id: fc.string({ minLength: 1, maxLength: 4 }) });

it('the job queue hands entries out in (runAt, id) order, whatever the order of pushes and pops', () => {
  fc.assert(
    fc.property(fc.array(fc.oneof(entry.map((e) => ({ push: e })), fc.constant({ pop: true as const })), { maxLength: 200 }), (ops) => {
      const queue = new JobQueue();
      const model: QueueEntry[] = [];
      const order = (a: QueueEntry, b: QueueEntry) => (a.runAt < b.runAt ? -1 : a.runAt > b.runAt ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
      for (const op of ops) {
        if ('push' in op) {
          queue.push(op.push);
          model.push(op.push);
          model.sort(order);
        } else {
          const popped = queue.pop();
          const expected = model.shift();
          expect(popped === undefined ? undefined : order(popped, expected!)).toBe(expected === undefined ? undefined : 0);
        }
        expect(queue.size).toBe(model.length);
      }
    }),
  );
});

it('jobs enqueued or moved in a transaction that rolls back are claimable as before', async () => {
  const storage = memoryStorage();
  const job = (id: string, runAt: string) => ({ id, environmentId: 'e', kind: 'walk' as const, runAt, attempts: 0, lockedBy: null, lockedUntil: null, transactionId: 't', subscriberId: 's', data: { notificationId: 'n', stepIndex: 0 }, lastError: null });
  await storage.jobs.enqueue('e', [job('a', '2026-01-01T00:00:00.000Z'), job('b', '2026-01-01T00:00:01.000Z')]);
  const [claimed] = await storage.jobs.claimDue({ env: 'e', workerId: 'w', now: '2026-01-01T00:00:00.500Z', limit: 1, leaseMs: 1_000 });
  expect(claimed?.id).toBe('a');
  await expect(
    storage.transaction(async (tx) => {
      await tx.jobs.enqueue('e', [job('c', '2025-12-31T00:00:00.000Z')]);
      await tx.jobs.reschedule('e', 'a', 'w', { runAt: '2027-01-01T00:00:00.000Z', data: claimed!.data, lastError: null, resetAttempts: false });
      throw new Error('roll back');
    }),
  ).rejects.toThrow('roll back');
  // After the lease: a is due again at its old time, before b; c never existed.
  const again = await storage.jobs.claimDue({ env: 'e', workerId: 'w2', now: '2026-01-01T00:00:02.000Z', limit: 10, leaseMs: 1_000 });
  expect(again.map((j) => j.id)).toEqual(['a', 'b']);
});
