import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { manualClock } from '../../clock.js';
import { createTidings } from '../../engine/create-tidings.js';
import { SWEEP_KEY } from '../../engine/retention/sweep.js';
import { isExpired } from '../../messages/expiry.js';
import { retentionPolicySchema } from '../../schemas/expiry.js';
import type { Message, WebhookDelivery } from '../../schemas/index.js';
import type { DigestEvent, Storage } from '../../storage.js';
import { wrapRepositories } from '../../wrap-repositories.js';
import { storageWith } from '../storage-with.js';
import type { SuiteContext } from '../storage-under-test.js';
import { T0, jobRecord, messageRecord, notificationRecord, plus } from '../fixtures.js';

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
const ada = { _id: 'i-ada', subscriberId: 'ada' };
const ids = (messages: readonly Pick<Message, '_id'>[]) => messages.map((m) => m._id);
const delivery = (id: string, createdAt: string, status: WebhookDelivery['status']): WebhookDelivery => ({
  _id: id,
  endpointId: 'e1',
  eventType: 'message.sent',
  payload: { type: 'message.sent', timestamp: createdAt, data: {} },
  status,
  attempts: 1,
  createdAt,
  updatedAt: createdAt,
});
const event = (transactionId: string): DigestEvent => ({ transactionId, notificationId: `n-${transactionId}`, payload: {}, at: T0 });

/**
 * The storage with the sweeper's transactions watched: for each transaction that called a
 * `retention.delete…` method, the rows those calls deleted and how many turns of the event loop a
 * probe (one `setImmediate` per turn) had counted when it began.
 */
function sweepWatch(storage: Storage) {
  let turns = 0;
  let probing = true;
  const tick = () => {
    turns++;
    if (probing) setImmediate(tick);
  };
  setImmediate(tick);
  const deletes: { turn: number; rows: number }[] = [];
  const watched = storageWith(storage, {
    transaction: (fn) =>
      storage.transaction(async (tx) => {
        const turn = turns;
        let rows: number | null = null;
        const result = await fn(
          wrapRepositories(tx, async (call, name) => {
            const value = await call();
            if (name.startsWith('retention.delete')) rows = (rows ?? 0) + (typeof value === 'number' ? value : (value as unknown[]).length);
            return value;
          }),
        );
        if (rows !== null) deletes.push({ turn, rows });
        return result;
      }),
  });
  return {
    storage: watched,
    deletes,
    stop() {
      probing = false;
    },
  };
}

export function expirySuite({ get }: SuiteContext): void {
  describe('expiry and retention', () => {
    it('retention.deleteExpiredMessages / nextExpiry / deleteMessagesBefore / deleteDeliveriesBefore — expired or old rows of the environment only, a batch at a time, earliest first, messages with their provider references; pending webhook deliveries stay', async () => {
      const s = get();
      const first = messageRecord('env-a', ada, { expiresAt: plus(T0, -2_000) });
      const second = messageRecord('env-a', ada, { expiresAt: plus(T0, -1_000) });
      const later = messageRecord('env-a', ada, { expiresAt: plus(T0, MINUTE) });
      const plain = messageRecord('env-a', ada);
      const elsewhere = messageRecord('env-b', ada, { expiresAt: plus(T0, -5_000) });
      await s.messages.insertMany('env-a', [later, second, plain, first]);
      await s.messages.insertMany('env-b', [elsewhere]);
      const ref = (m: Message, id: string) => ({ providerId: 'p', providerMessageId: id, messageId: m._id, subscriberInternalId: ada._id });
      await s.deliveryStatus.link('env-a', [ref(first, 'pm-1'), ref(plain, 'pm-2')]);

      expect(await s.retention.nextExpiry('env-a')).toBe(plus(T0, -2_000));
      const batch = await s.retention.deleteExpiredMessages('env-a', T0, 1);
      expect(batch).toEqual([first]);
      expect(ids(await s.retention.deleteExpiredMessages('env-a', T0, 10))).toEqual([second._id]);
      expect(await s.retention.deleteExpiredMessages('env-a', T0, 10)).toEqual([]);
      expect(await s.retention.nextExpiry('env-a')).toBe(plus(T0, MINUTE));
      expect(ids(await s.messages.getMany('env-a', ada._id, ids([first, second, later, plain])))).toEqual(ids([later, plain]));
      expect(await s.messages.getMany('env-b', ada._id, [elsewhere._id])).toHaveLength(1);
      expect((await s.deliveryStatus.find('env-a', 'p', ['pm-1', 'pm-2'])).map((r) => r.messageId)).toEqual([plain._id]);
      // A message the subscriber deletes takes its provider reference along too.
      await s.messages.deleteMany('env-a', ada._id, [plain._id]);
      expect(await s.deliveryStatus.find('env-a', 'p', ['pm-2'])).toEqual([]);

      // Retention: the oldest first, a batch at a time; pending webhook deliveries stay.
      const oldest = messageRecord('env-a', ada, { createdAt: plus(T0, -3 * DAY) });
      const old = messageRecord('env-a', ada, { createdAt: plus(T0, -2 * DAY) });
      const recent = messageRecord('env-a', ada, { createdAt: T0 });
      await s.messages.insertMany('env-a', [recent, old, oldest]);
      expect(ids(await s.retention.deleteMessagesBefore('env-a', plus(T0, -DAY), 1))).toEqual([oldest._id]);
      expect(ids(await s.retention.deleteMessagesBefore('env-a', plus(T0, -DAY), 5))).toEqual([old._id]);
      expect(await s.retention.deleteMessagesBefore('env-a', plus(T0, -DAY), 5)).toEqual([]);
      expect(ids(await s.messages.getMany('env-a', ada._id, ids([oldest, old, recent])))).toEqual([recent._id]);

      await s.webhooks.insertDeliveries('env-a', [delivery('d1', plus(T0, -2 * DAY), 'delivered'), delivery('d2', plus(T0, -2 * DAY), 'pending'), delivery('d3', plus(T0, -3 * DAY), 'failed'), delivery('d4', T0, 'delivered')]);
      expect(await s.retention.deleteDeliveriesBefore('env-a', plus(T0, -DAY), 1)).toBe(1);
      expect(await s.webhooks.getDelivery('env-a', 'd3')).toBeNull();
      expect(await s.retention.deleteDeliveriesBefore('env-a', plus(T0, -DAY), 5)).toBe(1);
      expect((await s.webhooks.listDeliveries('env-a', { limit: 10 })).map((d) => d._id).sort()).toEqual(['d2', 'd4']);
    });

    it('messages — for any messages and any clock, the feed, counts and matching ids hold exactly the unexpired ones; with the expired ones they are all', async () => {
      const s = get();
      const at = fc.constantFrom(undefined, -MINUTE, 0, MINUTE);
      let run = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(fc.record({ expires: at, read: fc.boolean(), age: fc.nat({ max: 3 }) }), { maxLength: 6 }), fc.constantFrom(-2 * MINUTE, 0, 2 * MINUTE), async (specs, offset) => {
          const owner = { _id: `i-exp-${++run}`, subscriberId: `exp-${run}` };
          const messages = specs.map(({ expires, read, age }) => messageRecord('env-a', owner, { read, seen: read, createdAt: plus(T0, -age * 1_000), ...(expires !== undefined && { expiresAt: plus(T0, expires) }) }));
          await s.messages.insertMany('env-a', messages);
          const now = plus(T0, offset);
          const live = messages.filter((m) => !isExpired(m, now));
          const feed = (await s.messages.feed('env-a', owner._id, { limit: 100, now })).items;
          expect(ids(feed).sort()).toEqual(ids(live).sort());
          expect([...ids(feed), ...ids(messages.filter((m) => isExpired(m, now)))].sort()).toEqual(ids(messages).sort());
          expect((await s.messages.idsMatching('env-a', owner._id, { now, read: false })).sort()).toEqual(ids(live.filter((m) => !m.read)).sort());
          expect(await s.messages.countMatching('env-a', owner._id, [{ now }, { now, read: false }])).toEqual([live.length, live.filter((m) => !m.read).length]);
          expect(await s.messages.counts('env-a', owner._id, { now })).toEqual({ total: live.length, unread: live.filter((m) => !m.read).length, unseen: live.filter((m) => !m.seen).length });
        }),
        { numRuns: s.capabilities.multiProcess ? 10 : 25 },
      );
    });

    it('retention.deleteNotificationsBefore — keeps triggers still under way (a job, an event in an open digest); takes decision records and the closed digests they own', async () => {
      const s = get();
      const old = plus(T0, -2 * DAY);
      const [done, waiting, digested, recent, also] = ['done', 'waiting', 'digested', 'recent', 'also'].map((tx, i) => notificationRecord('env-a', { transactionId: tx, createdAt: tx === 'recent' ? T0 : plus(old, i) }));
      await s.notifications.insertMany('env-a', [done!, waiting!, digested!, recent!, also!]);
      await s.jobs.enqueue('env-a', [jobRecord('env-a', { transactionId: 'waiting', runAt: plus(T0, DAY) })]);
      const record = (transactionId: string) => ({ environmentId: 'env-a', transactionId, subscriberId: 'ada', jobId: 'j', at: old, entries: [] });
      await s.traces.append([record('done'), record('recent')]);
      const digest = (id: string, key: string) => ({ id, environmentId: 'env-a', key, workflowId: 'wf', stepIndex: 0, subscriberId: 'ada', digestKey: null, openedAt: old, dueAt: T0 });
      // A closed digest whose first event is `done`'s (with one of `recent`), and an open one holding `digested`.
      await s.digests.insertOpen('env-a', digest('dc', 'k1'), event('done'));
      await s.digests.append('env-a', 'dc', 'k1', event('recent'), T0);
      await s.digests.close('env-a', 'dc');
      await s.digests.insertOpen('env-a', digest('do', 'k2'), event('digested'));

      expect(await s.retention.deleteNotificationsBefore('env-a', plus(T0, -DAY), 1)).toEqual(['done']);
      expect(await s.notifications.getByTransactionId('env-a', 'done')).toBeNull();
      expect(await s.traces.list('env-a', 'done')).toEqual([]);
      expect(await s.traces.list('env-a', 'recent')).toHaveLength(1);
      expect(await s.digests.get('env-a', 'dc')).toBeNull();
      expect(await s.retention.deleteNotificationsBefore('env-a', plus(T0, -DAY), 5)).toEqual(['also']);
      expect(await s.retention.deleteNotificationsBefore('env-a', plus(T0, -DAY), 5)).toEqual([]);
      for (const kept of ['waiting', 'digested', 'recent']) expect(await s.notifications.getByTransactionId('env-a', kept)).not.toBeNull();
      expect((await s.digests.get('env-a', 'do'))?.events).toHaveLength(1);
    });

    it('engine — expiresAt and an in-app ttl: the message leaves the feed, the counts and mark-all-read the moment it expires; the sweep deletes it and explain says expired', async () => {
      const clock = manualClock(T0);
      const tidings = createTidings({ storage: get(), clock, environmentId: 'env-a' });
      const expired: string[] = [];
      tidings.events.on('message.expired', ({ message }) => expired.push(message._id));
      await tidings.workflows.upsert({ name: 'news', triggers: [{ identifier: 'news' }], steps: [{ template: { type: 'in_app', content: 'brief' }, ttl: { amount: 10, unit: 'minutes' } }, { template: { type: 'in_app', content: 'kept' } }] });
      const first = await tidings.trigger({ name: 'news', to: 'ada', expiresAt: '2026-03-02T11:00:00+00:00' });
      await tidings.trigger({ name: 'news', to: 'ada' });
      const byStep = (messages: Message[]) => messages.map((m) => [m.content, m.expiresAt ?? null]);
      expect(byStep(await tidings.messages.byTransaction(first.transactionId!))).toEqual([['brief', plus(T0, 10 * MINUTE)], ['kept', plus(T0, 60 * MINUTE)]]);
      expect(await tidings.messages.counts('ada')).toEqual({ total: 4, unread: 4, unseen: 4 });

      clock.advance(10 * MINUTE);
      const brief = (await tidings.messages.byTransaction(first.transactionId!))[0]!;
      expect((await tidings.messages.feed('ada')).items.map((m) => m.content)).toEqual(['kept', 'kept']);
      expect(await tidings.messages.counts('ada')).toEqual({ total: 2, unread: 2, unseen: 2 });
      expect((await tidings.messages.count('ada', [{ read: false }]))[0]!.count).toBe(2);
      expect(await tidings.messages.get('ada', brief._id)).toBeNull();
      await expect(tidings.messages.markAs('ada', { messageId: brief._id, markAs: 'read' })).rejects.toMatchObject({ code: 'not_found' });
      expect(await tidings.messages.readAll('ada')).toHaveLength(2);

      expect(await tidings.runDue()).toBe(1);
      expect(expired).toHaveLength(2);
      expect(byStep(await tidings.messages.byTransaction(first.transactionId!))).toEqual([['kept', plus(T0, 60 * MINUTE)]]);
      const entries = (await tidings.explain(first.transactionId!, 'ada')).flatMap((r) => r.entries);
      expect(entries.filter((e) => e.decision === 'expired')).toMatchObject([{ stepIndex: 0, type: 'in_app', reason: expect.stringContaining(plus(T0, 10 * MINUTE)) }]);
      // The sweep waits for the next expiry.
      expect((await get().jobs.list('env-a', { transactionId: SWEEP_KEY })).map((j) => j.runAt)).toEqual([plus(T0, 60 * MINUTE)]);

      clock.advance(50 * MINUTE);
      expect(await tidings.messages.counts('ada')).toEqual({ total: 1, unread: 0, unseen: 0 });
      await tidings.runDue();
      expect(await tidings.messages.byTransaction(first.transactionId!)).toEqual([]);
      expect((await tidings.explain(first.transactionId!, 'ada')).flatMap((r) => r.entries).filter((e) => e.decision === 'expired').map((e) => e.stepIndex)).toEqual([0, 1]);
    });

    it('engine — retention: the sweep deletes old notifications and messages in batches, again at once while rows remain, then hourly; a walk still under way keeps its notification', async () => {
      const clock = manualClock(T0);
      const tidings = createTidings({ storage: get(), clock, environmentId: 'env-a', retention: { messages: { days: 2 }, notifications: { days: 1 }, batchSize: 2 } });
      await tidings.workflows.upsert({ name: 'note', triggers: [{ identifier: 'note' }], steps: [{ template: { type: 'in_app', content: 'note' } }] });
      await tidings.workflows.upsert({ name: 'slow', triggers: [{ identifier: 'slow' }], steps: [{ template: { type: 'delay' }, metadata: { type: 'regular', amount: 5, unit: 'days' } }, { template: { type: 'in_app', content: 'slow' } }] });
      const notes = await tidings.triggerBulk([1, 2, 3].map(() => ({ name: 'note', to: 'ada' })));
      const slow = await tidings.trigger({ name: 'slow', to: 'ada' });
      const sweep = async () => (await get().jobs.list('env-a', { transactionId: SWEEP_KEY })).map((j) => j.runAt);
      // The first run makes sure of the sweep (nothing is old yet, so it waits an hour) and walks `slow` to its delay.
      expect(await tidings.runDue()).toBe(2);
      expect(await sweep()).toEqual([plus(T0, 60 * MINUTE)]);

      clock.advance(DAY + MINUTE);
      expect(await tidings.runDue()).toBe(2);
      for (const { transactionId } of notes) expect(await tidings.explain(transactionId!)).toEqual([]);
      expect(await get().notifications.getByTransactionId('env-a', slow.transactionId!)).not.toBeNull();
      expect((await tidings.messages.feed('ada')).items).toHaveLength(3);
      expect(await sweep()).toEqual([plus(T0, DAY + 61 * MINUTE)]);

      clock.advance(DAY);
      expect(await tidings.runDue()).toBe(2);
      expect((await tidings.messages.feed('ada')).items).toEqual([]);
    });

    it('engine — the sweep deletes at most retention.batchSize rows per transaction and lets the event loop turn before each of its transactions, until every expired and old row is gone', async () => {
      const page = retentionPolicySchema.parse({}).batchSize;
      const now = plus(T0, 3 * DAY);
      const people = Array.from({ length: 10 }, (_, i) => ({ _id: `i-sw-${i}`, subscriberId: `sw-${i}` }));
      // Ten pages of messages that expired, of recent triggers (kept); four pages of messages and two
      // and a half of triggers older than the policy's two days.
      const recent = Array.from({ length: 50 }, () => notificationRecord('env-a', { createdAt: plus(now, -HOUR) }));
      const expiring = Array.from({ length: 10 * page }, (_, i) => {
        const trigger = recent[i % recent.length]!;
        return messageRecord('env-a', people[i % people.length]!, { _notificationId: trigger._id, transactionId: trigger.transactionId, createdAt: plus(now, -HOUR), expiresAt: plus(now, -1 - i) });
      });
      const old = Array.from({ length: 4 * page }, (_, i) => messageRecord('env-a', people[i % people.length]!, { createdAt: plus(T0, -i) }));
      const oldTriggers = Array.from({ length: 2.5 * page }, (_, i) => notificationRecord('env-a', { createdAt: plus(T0, -i) }));
      const s = get();
      for (let i = 0; i < recent.length + oldTriggers.length; i += page) await s.notifications.insertMany('env-a', [...recent, ...oldTriggers].slice(i, i + page));
      for (let i = 0; i < expiring.length + old.length; i += page) await s.messages.insertMany('env-a', [...expiring, ...old].slice(i, i + page));

      const watch = sweepWatch(s);
      const tidings = createTidings({ storage: watch.storage, clock: manualClock(now), environmentId: 'env-a', retention: { messages: { days: 2 }, notifications: { days: 2 } } });
      let expired = 0;
      tidings.events.on('message.expired', () => expired++);
      try {
        await tidings.runDue();
      } finally {
        watch.stop();
      }

      const { deletes } = watch;
      expect(deletes.filter((d) => d.rows > page)).toEqual([]);
      // Every page in a transaction of its own: 10 + 4 + 3 that deleted rows.
      expect(deletes.filter((d) => d.rows > 0)).toHaveLength(17);
      expect(deletes.reduce((sum, d) => sum + d.rows, 0)).toBe(expiring.length + old.length + oldTriggers.length);
      // The event loop turned between every two of them (on SQLite nothing else would make it).
      expect(deletes.slice(1).filter((d, i) => d.turn <= deletes[i]!.turn)).toEqual([]);

      expect(expired).toBe(expiring.length);
      expect(await s.retention.nextExpiry('env-a')).toBeNull();
      for (const person of people) expect(await s.messages.getMany('env-a', person._id, ids([...expiring, ...old]))).toEqual([]);
      expect(await s.notifications.getMany('env-a', ids(oldTriggers))).toEqual([]);
      expect(await s.notifications.getMany('env-a', ids(recent))).toHaveLength(recent.length);
      expect((await s.jobs.list('env-a', { transactionId: SWEEP_KEY })).map((j) => j.runAt)).toEqual([plus(now, HOUR)]);
    });
  });
}
