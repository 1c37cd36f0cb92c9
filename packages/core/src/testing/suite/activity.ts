import { describe, expect, it } from 'vitest';
import { manualClock } from '../../clock.js';
import { createTidings } from '../../engine/create-tidings.js';
import { isTidingsError } from '../../errors.js';
import type { ActivityItem } from '../../schemas/index.js';
import type { SuiteContext } from '../storage-under-test.js';

const who = (items: readonly ActivityItem[]) => items.map((i) => `${i.notification.templateIdentifier}:${i.subscriberId}`);

/** The engine's activity list on every backend: what the activity page shows, for a library-only app. */
export function activitySuite({ get }: SuiteContext): void {
  describe('activity list over this storage', () => {
    async function engine() {
      const clock = manualClock('2026-05-04T08:00:00.000Z');
      // No email integration: an email step that is not skipped is not sent (a `warning` message).
      const tidings = createTidings({ storage: get(), clock, environmentId: 'activity', fanoutChunk: 1 });
      await tidings.workflows.upsert({ name: 'News', triggers: [{ identifier: 'news' }], steps: [{ template: { type: 'email', subject: 'News', content: 'Hello' } }] });
      await tidings.workflows.upsert({ name: 'Hello', triggers: [{ identifier: 'hello' }], steps: [{ template: { type: 'in_app', content: 'Hi' } }] });
      for (const subscriberId of ['ada', 'bob']) await tidings.subscribers.upsert({ subscriberId, firstName: subscriberId, email: `${subscriberId}@x.test` });
      await tidings.preferences.update('ada', { workflowId: 'news', channels: { email: false } });
      return { tidings, clock };
    }

    it('activity.list — a step skipped by a preference is listed with its reason; the email channel and the skipped status find it, also among a subscriber\u2019s notifications when it left them nothing else', async () => {
      const { tidings, clock } = await engine();
      const news = await tidings.trigger({ name: 'news', to: ['ada', 'bob'] });
      clock.advance(1_000);
      await tidings.trigger({ name: 'hello', to: 'ada' });
      clock.advance(1_000);
      // Through a topic's fan-out jobs: their walks' records are stored together, and still found by subscriber.
      await tidings.topics.upsert({ key: 'readers' });
      await tidings.topics.addSubscribers('readers', ['ada', 'bob']);
      const topical = await tidings.trigger({ name: 'news', to: [{ type: 'Topic', topicKey: 'readers' }] });
      await tidings.runDue();

      const ada = await tidings.activity.list({ subscriberIds: ['ada'] });
      expect(who(ada.items)).toEqual(['news:ada', 'hello:ada', 'news:ada']);
      expect(ada.items.map((i) => i.notification.transactionId)).toEqual([topical.transactionId, expect.any(String), news.transactionId]);
      for (const item of [ada.items[0]!, ada.items[2]!]) {
        expect(item.messages).toEqual([]);
        expect(item.skipped).toEqual([{ stepIndex: 0, channel: 'email', reason: expect.stringContaining('email'), at: expect.any(String) }]);
        expect(item.subscriber?.subscriberId).toBe('ada');
        expect(item.workflow?.identifier).toBe('news');
      }
      expect(ada.items[1]!.skipped).toEqual([]);
      expect(ada.items[1]!.messages.map((m) => [m.channel, m.status])).toEqual([['in_app', 'sent']]);

      expect(who((await tidings.activity.list({ channels: ['email'] })).items)).toEqual(['news:ada', 'news:bob', 'news:ada', 'news:bob']);
      expect(who((await tidings.activity.list({ statuses: ['skipped'] })).items)).toEqual(['news:ada', 'news:ada']);
      expect(who((await tidings.activity.list({ channels: ['email'], statuses: ['warning'] })).items)).toEqual(['news:bob', 'news:bob']);
      expect(who((await tidings.activity.list({ subscriberIds: ['ada'], channels: ['email'] })).items)).toEqual(['news:ada', 'news:ada']);
      expect(who((await tidings.activity.list({ subscriberIds: ['ada'], statuses: ['skipped'], workflows: ['hello'] })).items)).toEqual([]);
      const bob = (await tidings.activity.list({ transactionIds: [news.transactionId!], subscriberIds: ['bob'] })).items;
      expect(bob.map((i) => [i.skipped.length, i.messages.map((m) => m.status)])).toEqual([[0, ['warning']]]);
      const paged = await tidings.activity.list({ subscriberIds: ['ada'], limit: 2, page: 1 });
      expect(who(paged.items)).toEqual(['news:ada']);
      expect(paged).toMatchObject({ page: 1, limit: 2, hasMore: false });
    });

    it('activity.list — refuses a bad query naming the field; retention takes a trigger\u2019s skips with its records', async () => {
      const { tidings, clock } = await engine();
      for (const [query, field] of [[{ statuses: ['gone'] }, 'statuses[0]'], [{ after: '2026-05-05', before: '2026-05-04' }, 'after'], [{ limit: 51 }, 'limit'], [{ subscriber: 'ada' }, 'subscriber']] as const) {
        await expect(tidings.activity.list(query as never)).rejects.toSatisfy((e) => isTidingsError(e, 'validation_failed') && e.issues.some((i) => i.path === field));
      }
      await tidings.trigger({ name: 'news', to: 'ada' });
      await tidings.runDue();
      expect(await get().traces.skippedFor('activity', 'ada', { limit: 10 })).toHaveLength(1);
      clock.advance(3 * 86_400_000);
      await get().retention.deleteNotificationsBefore('activity', clock.now().toISOString(), 10);
      expect(await get().traces.skippedFor('activity', 'ada', { limit: 10 })).toEqual([]);
      expect((await tidings.activity.list({ subscriberIds: ['ada'] })).items).toEqual([]);
    });
  });
}
