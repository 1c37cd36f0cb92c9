import { describe, expect, it } from 'vitest';
import { manualClock } from '../../clock.js';
import { createTidings } from '../../engine/create-tidings.js';
import type { Job } from '../../schemas/index.js';
import { storageWith } from '../storage-with.js';
import type { SuiteContext } from '../storage-under-test.js';

/** Fairness: a broadcast's queued fan-out never stands before a transactional trigger made after it, on every backend. */
export function fairnessSuite({ get }: SuiteContext): void {
  describe('fairness over this storage', () => {
    it('a trigger after a large fan-out is claimed in the next batch; the fan-out and its walks are bulk; a workflow or trigger may set the class', async () => {
      const s = get();
      const claims: Job[][] = [];
      const watched = storageWith(s, {
        jobs: {
          ...s.jobs,
          claimDue: async (options) => {
            const claimed = await s.jobs.claimDue(options);
            if (claimed.length > 0) claims.push(claimed);
            return claimed;
          },
        },
      });
      const tidings = createTidings({ storage: watched, clock: manualClock('2026-05-04T08:00:00.000Z'), environmentId: 'env-fair', inlineInApp: false, fanoutChunk: 2, batchSize: 4 });
      const inApp = (identifier: string, more: Record<string, unknown> = {}) => tidings.workflows.upsert({ name: identifier, triggers: [{ identifier }], steps: [{ template: { type: 'in_app', content: identifier } }], ...more });
      await inApp('news');
      await inApp('password-reset');
      await inApp('alert', { priority: 'bulk' });
      const members = Array.from({ length: 40 }, (_, i) => `m${String(i).padStart(2, '0')}`);
      for (const id of members) await tidings.subscribers.upsert({ subscriberId: id });
      await tidings.topics.addSubscribers('everyone', members);

      const news = await tidings.trigger({ name: 'news', to: { type: 'Topic', topicKey: 'everyone' } });
      const queued = await tidings.storage.jobs.list(tidings.environmentId, { transactionId: news.transactionId! });
      expect(queued.length).toBeGreaterThan(4);
      expect(queued.every((j) => j.kind === 'fanout' && j.priority === 'bulk')).toBe(true);
      const reset = await tidings.trigger({ name: 'password-reset', to: 'zed' });
      const urgent = await tidings.trigger({ name: 'news', to: 'yan', priority: 'transactional' });
      const slow = await tidings.trigger({ name: 'alert', to: 'xia' });
      expect((await tidings.storage.jobs.list(tidings.environmentId, { transactionId: slow.transactionId! }))[0]!.priority).toBe('bulk');

      await tidings.runDue();
      expect(claims[0]!.map((j) => j.transactionId).slice(0, 2)).toEqual([reset.transactionId, urgent.transactionId]);
      expect(claims[0]!.slice(2).every((j) => j.priority === 'bulk')).toBe(true);
      // Every member got the news once, from walks the fan-out made bulk.
      const walks = claims.flat().filter((j) => j.kind === 'walk' && j.transactionId === news.transactionId);
      expect(walks).toHaveLength(40);
      expect(walks.every((j) => j.priority === 'bulk')).toBe(true);
      expect((await tidings.messages.byTransaction(news.transactionId!)).map((m) => m.subscriberId).sort()).toEqual(members);
    });
  });
}
