import { describe, expect, it } from 'vitest';
import { manualClock } from '../../clock.js';
import { CallbackRefused, ProviderError, type Provider, type ProviderCallback } from '../../delivery/provider.js';
import { createTidings } from '../../engine/create-tidings.js';
import type { WebhookTransport } from '../../delivery/webhook-transport.js';
import type { SuiteContext } from '../storage-under-test.js';

const welcome = {
  name: 'Welcome',
  triggers: [{ identifier: 'welcome' }],
  steps: [{ template: { type: 'in_app' as const, content: 'Hello {{ subscriber.firstName }}, {{ payload.greeting | default: "hi" }}!', cta: { type: 'redirect' as const, data: { url: '/start/{{ payload.id }}' } } } }],
};

const inAppStep = (content: string) => ({ template: { type: 'in_app' as const, content } });

export function engineSuite({ get }: SuiteContext): void {
  describe('engine over this storage', () => {
    const engine = (environmentId = 'env-a') => {
      const clock = manualClock('2026-05-04T08:00:00.000Z');
      // Jobs, so the tests see the job loop at work (inline delivery has tests of its own).
      return { clock, tidings: createTidings({ storage: get(), clock, environmentId, inlineInApp: false }) };
    };

    it('engine — trigger, runDue, and the rendered in_app message is in the feed with status sent', async () => {
      const { tidings, clock } = engine();
      await tidings.workflows.upsert(welcome);
      const [result] = await tidings.triggerBulk([{ name: 'welcome', to: { subscriberId: 'ada', firstName: 'Ada' }, payload: { greeting: 'welcome aboard', id: 7 } }]);
      expect(result).toMatchObject({ acknowledged: true, status: 'processed' });
      expect(await tidings.runDue()).toBe(1);
      const feed = await tidings.messages.feed('ada');
      expect(feed.items).toHaveLength(1);
      expect(feed.items[0]).toMatchObject({
        content: 'Hello Ada, welcome aboard!',
        status: 'sent',
        channel: 'in_app',
        read: false,
        seen: false,
        transactionId: result!.transactionId,
        templateIdentifier: 'welcome',
        createdAt: clock.now().toISOString(),
        cta: { type: 'redirect', data: { url: '/start/7' } },
      });
      expect(await tidings.messages.counts('ada')).toEqual({ total: 1, unread: 1, unseen: 1 });
    });

    it('engine — by default in-app-only walks are stored by trigger itself (no job); walks that wait, and events past inlineLimit, keep their jobs', async () => {
      const clock = manualClock('2026-05-04T08:00:00.000Z');
      const tidings = createTidings({ storage: get(), clock, environmentId: 'env-a', inlineLimit: 3 });
      await tidings.workflows.upsert(welcome);
      await tidings.workflows.upsert({ name: 'Later', triggers: [{ identifier: 'later' }], steps: [{ template: { type: 'delay' }, metadata: { type: 'regular', amount: 1, unit: 'minutes' } }, { template: { type: 'in_app', content: 'later' } }] });
      const results = await tidings.triggerBulk([
        { name: 'welcome', to: ['a', 'b'] },
        { name: 'later', to: 'c' },
        // Past the limit of 3 walks per call: this event (and any after it) goes through jobs whole.
        { name: 'welcome', to: ['d', 'e'] },
      ]);
      const stored = async (i: number) => (await tidings.messages.byTransaction(results[i]!.transactionId!)).map((m) => m.subscriberId).sort();
      expect(await stored(0)).toEqual(['a', 'b']);
      expect(await stored(1)).toEqual([]);
      expect(await stored(2)).toEqual([]);
      expect((await tidings.pending()).jobs.map((j) => j.subscriberId).sort()).toEqual(['c', 'd', 'e']);
      // d and e store their messages; c's walk reaches its delay and waits.
      expect(await tidings.runDue()).toBe(3);
      expect(await stored(2)).toEqual(['d', 'e']);
      clock.advance(60_000);
      expect(await tidings.runDue()).toBe(1);
      expect(await stored(1)).toEqual(['c']);
      // Why each got it reads the same either way.
      expect((await tidings.explain(results[0]!.transactionId!, 'a'))[0]!.entries[0]).toMatchObject({ type: 'in_app', decision: 'delivered' });
    });

    it('engine — a large audience goes out as fan-out jobs: in-app walks stored in their commit, walks that wait queued, each member once', async () => {
      const clock = manualClock('2026-05-04T08:00:00.000Z');
      const tidings = createTidings({ storage: get(), clock, environmentId: 'env-a', inlineLimit: 4, fanoutChunk: 4 });
      await tidings.workflows.upsert(welcome);
      await tidings.workflows.upsert({ name: 'Later', triggers: [{ identifier: 'later' }], steps: [inAppStep('now'), { template: { type: 'delay' }, metadata: { type: 'regular', amount: 1, unit: 'minutes' } }, inAppStep('later')] });
      const members = Array.from({ length: 10 }, (_, i) => `m${i}`);
      for (const id of members) await tidings.subscribers.upsert({ subscriberId: id, firstName: id });
      await tidings.topics.addSubscribers('all', members);
      // m0 is named directly too, and the actor m9 is left out: 9 members, in fan-out jobs of 4, 4 and 1.
      const news = await tidings.trigger({ name: 'welcome', to: [{ type: 'Topic', topicKey: 'all' }, 'm0'], actor: 'm9' });
      expect((await tidings.pending({ transactionId: news.transactionId! })).jobs).toHaveLength(3);
      expect(await tidings.runDue()).toBe(3);
      const stored = async (tx: string) => (await tidings.messages.byTransaction(tx)).map((m) => m.subscriberId).sort();
      expect(await stored(news.transactionId!)).toEqual(members.slice(0, 9));
      expect((await tidings.explain(news.transactionId!, 'm3'))[0]!.entries[0]).toMatchObject({ type: 'in_app', decision: 'delivered' });
      // A walk that waits becomes a job of its own per member.
      const later = await tidings.trigger({ name: 'later', to: { type: 'Topic', topicKey: 'all' } });
      expect(await tidings.runDue()).toBe(3 + 10);
      expect((await tidings.messages.byTransaction(later.transactionId!)).map((m) => m.content)).toEqual(Array(10).fill('now'));
      clock.advance(60_000);
      expect(await tidings.runDue()).toBe(10);
      expect(await tidings.messages.byTransaction(later.transactionId!)).toHaveLength(20);
      expect((await tidings.pending()).jobs).toEqual([]);
    });

    it('engine — a large topic audience is paged: the trigger writes one small job per page, each reads its own members when it runs; overlapping topics reach each member once', async () => {
      const clock = manualClock('2026-05-04T08:00:00.000Z');
      const tidings = createTidings({ storage: get(), clock, environmentId: 'env-pages', inlineLimit: 3, fanoutChunk: 5 });
      await tidings.workflows.upsert(welcome);
      const members = Array.from({ length: 40 }, (_, i) => `m${String(i).padStart(2, '0')}`);
      for (const id of members) await tidings.subscribers.upsert({ subscriberId: id, firstName: id });
      await tidings.topics.addSubscribers('first', members.slice(0, 30));
      await tidings.topics.addSubscribers('last', members.slice(20));
      // m05 is named directly too and m07 is the actor: 38 members through the pages, m05 on its own.
      const news = await tidings.trigger({ name: 'welcome', to: [{ type: 'Topic', topicKey: 'first' }, { type: 'Topic', topicKey: 'last' }, 'm05'], actor: 'm07' });
      const pages = await get().jobs.list('env-pages', { transactionId: news.transactionId! });
      expect(pages).toHaveLength(8);
      for (const job of pages) expect(job.kind === 'fanout' && !('subscriberIds' in job.data)).toBe(true);
      // Members who join a page's range before it runs are reached; a page past its limit goes on in a job of its own.
      const joined = Array.from({ length: 60 }, (_, i) => `m00-${String(i).padStart(2, '0')}`);
      for (const id of joined) await tidings.subscribers.upsert({ subscriberId: id });
      await tidings.topics.addSubscribers('first', joined);
      while ((await tidings.runDue()) > 0);
      const stored = (await tidings.messages.byTransaction(news.transactionId!)).map((m) => m.subscriberId).sort();
      expect(stored).toEqual([...members.filter((id) => id !== 'm07'), ...joined].sort());
      expect((await tidings.pending()).jobs).toEqual([]);
    });

    it('engine — a broadcast reaches every subscriber of the environment once through paged fan-out jobs (the actor too, as in Novu), and is one trigger', async () => {
      const clock = manualClock('2026-05-04T08:00:00.000Z');
      const tidings = createTidings({ storage: get(), clock, environmentId: 'env-all', inlineLimit: 3, fanoutChunk: 5 });
      const elsewhere = createTidings({ storage: get(), clock, environmentId: 'env-other' });
      await tidings.workflows.upsert(welcome);
      const everyone = Array.from({ length: 42 }, (_, i) => `s${String(i).padStart(2, '0')}`);
      for (const id of everyone) await tidings.subscribers.upsert({ subscriberId: id, firstName: id });
      await elsewhere.subscribers.upsert({ subscriberId: 'outsider' });
      const result = await tidings.broadcast({ name: 'welcome', payload: { greeting: 'news' }, actor: 's07', transactionId: 'tx-all' });
      expect(result).toEqual({ acknowledged: true, status: 'processed', transactionId: 'tx-all' });
      // More than the inline room and than one chunk: the trigger wrote one page job per 5 subscribers, no list of them.
      const pages = await get().jobs.list('env-all', { transactionId: 'tx-all' });
      expect(pages).toHaveLength(9);
      for (const job of pages) expect(job.kind === 'fanout' && 'everyone' in job.data).toBe(true);
      // A subscriber created inside a page's range before it runs is reached; a page past its limit goes on in a job of its own.
      const joined = Array.from({ length: 60 }, (_, i) => `s00-${String(i).padStart(2, '0')}`);
      for (const id of joined) await tidings.subscribers.upsert({ subscriberId: id });
      while ((await tidings.runDue()) > 0);
      const messages = await tidings.messages.byTransaction('tx-all');
      const reached = messages.map((m) => m.subscriberId).sort();
      expect(reached).toEqual([...everyone, ...joined].sort());
      expect(new Set(reached).size).toBe(reached.length);
      expect(messages.find((m) => m.subscriberId === 's03')).toMatchObject({ content: 'Hello s03, news!', status: 'sent', transactionId: 'tx-all' });
      expect((await tidings.pending()).jobs).toEqual([]);
      // One trigger: one notification, and every decision record is of it.
      expect((await get().notifications.list('env-all', { limit: 10 })).items.map((n) => n.transactionId)).toEqual(['tx-all']);
      const records = await tidings.explain('tx-all');
      expect(new Set(records.map((r) => r.transactionId))).toEqual(new Set(['tx-all']));
      expect(new Set(records.map((r) => r.subscriberId)).size).toBe(reached.length);
      expect((await tidings.explain('tx-all', 's41'))[0]!.entries[0]).toMatchObject({ type: 'in_app', decision: 'delivered' });
      expect(await elsewhere.messages.feed('outsider')).toMatchObject({ items: [] });
      // The same transactionId again is refused, as a trigger's is.
      await expect(tidings.broadcast({ name: 'welcome', transactionId: 'tx-all' })).rejects.toMatchObject({ code: 'conflict' });
      expect(await tidings.broadcast({ name: 'welcome', transactionId: 'tx-all' }, { refused: 'answer' })).toEqual({ acknowledged: true, status: 'error', error: ['duplicate_transaction_id'], transactionId: 'tx-all' });
    });

    it('engine — a small broadcast is stored by the call itself; a refused one records nothing; an environment without subscribers is processed and reaches nobody', async () => {
      const clock = manualClock('2026-05-04T08:00:00.000Z');
      const tidings = createTidings({ storage: get(), clock, environmentId: 'env-few' });
      await tidings.workflows.upsert(welcome);
      await tidings.workflows.upsert({ ...welcome, name: 'Off', triggers: [{ identifier: 'off' }], active: false });
      const empty = await tidings.broadcast({ name: 'welcome' });
      expect(empty).toMatchObject({ acknowledged: true, status: 'processed', transactionId: expect.any(String) });
      for (const id of ['a', 'b', 'c']) await tidings.subscribers.upsert({ subscriberId: id, firstName: id.toUpperCase() });
      const few = await tidings.broadcast({ name: 'welcome', actor: { subscriberId: 'd', firstName: 'D' } });
      // In-app walks within the inline room are stored before broadcast returns, without a job.
      expect((await tidings.messages.byTransaction(few.transactionId!)).map((m) => m.subscriberId).sort()).toEqual(['a', 'b', 'c']);
      expect((await tidings.pending()).jobs).toEqual([]);
      expect(await tidings.subscribers.get('d')).toMatchObject({ firstName: 'D' });
      expect(await tidings.broadcast({ name: 'off' })).toMatchObject({ acknowledged: true, status: 'trigger_not_active' });
      await expect(tidings.broadcast({ name: 'missing' })).rejects.toMatchObject({ code: 'not_found', issues: [{ path: 'name', message: 'workflow_not_found' }] });
      await expect(tidings.broadcast({ name: 'welcome', tenant: 'nobody' })).rejects.toMatchObject({ code: 'not_found' });
      await expect(tidings.broadcast({ name: 'welcome', to: 'a' } as never)).rejects.toMatchObject({ code: 'validation_failed', issues: [{ path: 'to', message: expect.stringContaining('every subscriber') }] });
      expect((await get().notifications.list('env-few', { limit: 10 })).items.map((n) => n.transactionId).sort()).toEqual([empty.transactionId, few.transactionId].sort());
    });

    it('engine — a topic fans out to each member once, and a job run twice stores each message once', async () => {
      const { tidings, clock } = engine();
      await tidings.workflows.upsert(welcome);
      for (const id of ['a', 'b', 'c']) await tidings.subscribers.upsert({ subscriberId: id });
      await tidings.topics.addSubscribers('team', ['a', 'b', 'c']);
      const result = await tidings.trigger({ name: 'welcome', to: [{ type: 'Topic', topicKey: 'team' }, 'a'], actor: 'c' });
      expect(result.status).toBe('processed');
      const storage = get();
      const jobs = await storage.jobs.claimDue({ env: 'env-a', workerId: 'crashed', now: '2026-05-04T08:00:00.000Z', limit: 10, leaseMs: 1 });
      expect(jobs.map((j) => j.subscriberId).sort()).toEqual(['a', 'b']);
      // The "crashed" worker's lease runs out, so runDue takes the jobs again; then run them twice over.
      clock.advance(1);
      expect(await tidings.runDue()).toBe(2);
      const messages = await tidings.messages.byTransaction(result.transactionId!);
      expect(messages.map((m) => m.subscriberId).sort()).toEqual(['a', 'b']);
      await storage.jobs.enqueue('env-a', jobs.map((j) => ({ ...j, id: `${j.id}-again`, lockedBy: null, lockedUntil: null, attempts: 0 })));
      await tidings.runDue();
      expect(await tidings.messages.byTransaction(result.transactionId!)).toHaveLength(2);
    });

    it('engine — a duplicate transactionId is refused per event and the environment of another engine is invisible', async () => {
      const { tidings } = engine('env-a');
      const { tidings: other } = engine('env-b');
      await tidings.workflows.upsert(welcome);
      const results = await tidings.triggerBulk([
        { name: 'welcome', to: 'ada', transactionId: 'tx-1' },
        { name: 'welcome', to: 'bob', transactionId: 'tx-1' },
      ]);
      expect(results.map((r) => r.status)).toEqual(['processed', 'error']);
      expect(results[1]).toEqual({ acknowledged: true, status: 'error', error: ['duplicate_transaction_id'], transactionId: 'tx-1' });
      expect(await tidings.subscribers.get('bob')).toBeNull();
      await expect(other.trigger({ name: 'welcome', to: 'ada' })).rejects.toMatchObject({ code: 'not_found', issues: [{ path: 'name', message: 'workflow_not_found' }] });
      expect(await other.runDue()).toBe(0);
      expect(await tidings.runDue()).toBe(1);
      expect(await other.subscribers.get('ada')).toBeNull();
    });

    it('engine — markAs persists read/seen and the counts follow', async () => {
      const { tidings } = engine();
      await tidings.workflows.upsert(welcome);
      await tidings.triggerBulk([{ name: 'welcome', to: 'ada' }, { name: 'welcome', to: 'ada' }]);
      await tidings.runDue();
      const { items } = await tidings.messages.feed('ada');
      const [marked] = await tidings.messages.markAs('ada', { messageId: items[0]!._id, markAs: 'read' });
      expect(marked).toMatchObject({ read: true, seen: true });
      expect(await tidings.messages.counts('ada')).toEqual({ total: 2, unread: 1, unseen: 1 });
      await tidings.messages.markAs('ada', { messageId: items.map((m) => m._id), markAs: 'seen' });
      expect(await tidings.messages.counts('ada')).toEqual({ total: 2, unread: 1, unseen: 0 });
    });

    it('engine — Novu’s rules: markFlags sets both flags in one change, memberships have a stable _id, integrations change by id, messages drop payload attachments', async () => {
      const { tidings } = engine();
      await tidings.workflows.upsert(welcome);
      await tidings.trigger({ name: 'welcome', to: 'ada', payload: { id: 1, attachments: [{ name: 'a.txt', file: 'aGk=' }] } });
      await tidings.runDue();
      const [message] = (await tidings.messages.feed('ada')).items;
      expect(message!.payload).toEqual({ id: 1 });
      const [read] = await tidings.messages.markFlags('ada', { messageId: message!._id, mark: { read: true } });
      expect(read).toMatchObject({ read: true, seen: true });
      const [cleared] = await tidings.messages.markFlags('ada', { messageId: [message!._id], mark: { seen: false, read: false } });
      expect(cleared).toMatchObject({ read: false, seen: false });
      expect(await tidings.messages.counts('ada')).toEqual({ total: 1, unread: 1, unseen: 1 });
      await expect(tidings.messages.markFlags('ada', { messageId: [message!._id, 'missing'], mark: { seen: true } })).rejects.toThrow(/missing/);
      expect((await tidings.messages.feed('ada')).items[0]!.seen).toBe(false);

      await tidings.topics.addSubscribers('team', ['ada']);
      const membership = await tidings.topics.getSubscription('team', 'ada');
      expect(membership!._id).toBe(`${membership!._topicId}${membership!._subscriberId}`);
      expect((await tidings.topics.getSubscription('team', 'ada'))!._id).toBe(membership!._id);

      const mail = await tidings.integrations.upsert({ providerId: 'sendgrid', channel: 'email', credentials: { apiKey: 'one' }, primary: true });
      expect(mail.name).toBe('sendgrid');
      const changed = await tidings.integrations.update(mail._id, { credentials: { apiKey: 'two' }, name: 'Mail' });
      expect(changed).toMatchObject({ _id: mail._id, name: 'Mail', credentials: { apiKey: 'two' }, primary: true, identifier: mail.identifier });
      expect(await tidings.integrations.update(mail._id, { active: false })).toMatchObject({ active: false, primary: false });
      await expect(tidings.integrations.update('nope', { active: true })).rejects.toThrow(/not found/);
    });

    it('engine — Novu’s Inbox data and rules: severity, data, buttons; archive reads; counts per filter echoed; bulk actions by filter; delete', async () => {
      const { tidings, clock } = engine();
      await tidings.workflows.upsert({
        name: 'Billing',
        triggers: [{ identifier: 'billing' }],
        severity: 'high',
        tags: ['billing'],
        steps: [{ template: { type: 'in_app', content: 'Invoice {{ payload.n }}', data: { invoice: '{{ payload.n }}', kind: 'invoice' }, cta: { data: { url: '/invoices/{{ payload.n }}', target: '_blank' }, action: { buttons: [{ type: 'primary', content: 'Pay', url: '/pay/{{ payload.n }}' }] } } } }],
      });
      await tidings.workflows.upsert({ name: 'Social', triggers: [{ identifier: 'social' }], tags: ['social'], steps: [{ template: { type: 'in_app', content: 'Like' } }] });
      for (const n of [1, 2, 3]) {
        await tidings.trigger({ name: 'billing', to: 'ada', payload: { n } });
        clock.advance(1000);
      }
      await tidings.trigger({ name: 'social', to: 'ada' });
      await tidings.runDue();
      const [newest] = (await tidings.messages.feed('ada', { tags: ['billing'] })).items;
      expect(newest).toMatchObject({ severity: 'high', data: { invoice: '3', kind: 'invoice' }, cta: { data: { url: '/invoices/3', target: '_blank' }, action: { buttons: [{ url: '/pay/3' }] } } });
      expect((await tidings.messages.feed('ada', { tags: ['social'] })).items[0]!.severity).toBe('none');

      const filters = [{ read: false, severity: 'high' as const }, { read: false, severity: ['none' as const] }, { tags: [['billing'], ['social']] }, { data: { kind: 'invoice' } }];
      const counted = await tidings.messages.count('ada', filters);
      expect(counted.map((c) => c.count)).toEqual([3, 1, 0, 3]);
      expect(counted.map((c) => c.filter)).toEqual(filters);

      const [archived] = await tidings.messages.archive('ada', [newest!._id]);
      expect(archived).toMatchObject({ archived: true, read: true, seen: true, archivedAt: clock.now().toISOString(), firstSeenDate: clock.now().toISOString() });
      const [unarchived] = await tidings.messages.unarchive('ada', [newest!._id]);
      expect(unarchived).toMatchObject({ archived: false, read: true });
      expect(unarchived!.archivedAt).toBeUndefined();
      await tidings.messages.archive('ada', [newest!._id]);
      const [unread] = await tidings.messages.markAs('ada', { messageId: newest!._id, markAs: 'unread' });
      expect(unread).toMatchObject({ archived: false, read: false, seen: true });

      const page = await tidings.messages.feed('ada', { limit: 2 });
      const after = await tidings.messages.feed('ada', { limit: 10, after: page.items[1]!._id });
      expect([...page.items, ...after.items]).toHaveLength(4);
      expect((await tidings.messages.feed('ada', { offset: 3 })).items).toHaveLength(1);

      expect(await tidings.messages.markSeen('ada', { filter: { tags: ['social'] } })).toHaveLength(1);
      expect((await tidings.messages.readAll('ada', { data: { kind: 'invoice' } })).map((m) => m.read)).toEqual([true, true, true]);
      expect(await tidings.messages.count('ada', [{ read: false }])).toEqual([{ count: 1, filter: { read: false } }]);
      expect(await tidings.messages.archiveRead('ada')).toHaveLength(3);
      expect((await tidings.messages.feed('ada')).items.map((m) => m.content)).toEqual(['Like']);
      expect((await tidings.messages.feed('ada', { archived: true })).items).toHaveLength(3);
      expect(await tidings.messages.archiveAll('ada')).toHaveLength(1);
      expect(await tidings.messages.deleteAll('ada', { tags: ['social'] })).toBe(1);
      const [one] = (await tidings.messages.feed('ada', { archived: true })).items;
      await tidings.messages.delete('ada', one!._id);
      await expect(tidings.messages.delete('ada', one!._id)).rejects.toThrow(/not found/);
      expect(await tidings.messages.count('ada', [{}])).toEqual([{ count: 2, filter: {} }]);
      await expect(tidings.messages.count('ada', [{ severity: 'urgent' } as never])).rejects.toThrow(/severity/);
    });

    it('engine — delays and digests (keyed and unkeyed) resume and flush on the manual clock', async () => {
      const { tidings, clock } = engine();
      await tidings.workflows.upsert({
        name: 'Digest',
        triggers: [{ identifier: 'digest' }],
        steps: [
          { template: { type: 'delay' }, metadata: { type: 'regular', amount: 1, unit: 'minutes' } },
          { template: { type: 'digest' }, metadata: { type: 'regular', amount: 5, unit: 'minutes', digestKey: 'thread.id' } },
          { template: { type: 'in_app', content: '{{ step.total_count }} in {{ step.events[0].thread.id | default: "none" }}' } },
        ],
      });
      for (const payload of [{ thread: { id: 't1' } }, { thread: { id: 't1' } }, {}, { thread: { id: 'née\u00e9' } }]) {
        expect((await tidings.trigger({ name: 'digest', to: 'ada', payload })).status).toBe('processed');
      }
      await tidings.runDue();
      clock.advance(60_000);
      await tidings.runDue();
      expect((await tidings.pending()).digests.map((d) => d.count).sort()).toEqual([1, 1, 2]);
      clock.advance(5 * 60_000);
      await tidings.runDue();
      expect((await tidings.messages.feed('ada')).items.map((m) => m.content).sort()).toEqual(['1 in none', '1 in néeé', '2 in t1']);
      expect(await tidings.pending()).toEqual({ jobs: [], digests: [] });
    });
    it('engine — device tokens a push service calls gone are removed from the subscriber in the delivery’s commit, and not tried again', async () => {
      const clock = manualClock('2026-05-04T08:00:00.000Z');
      const gone = new Set(['t-gone', 't-also-gone']);
      const tried: string[][] = [];
      // Plays a push service: it takes live tokens and names dead ones; with none live it refuses for good.
      const push: Provider = {
        id: 'fcm',
        channel: 'push',
        async send(message) {
          const tokens = message.to.deviceTokens ?? [];
          tried.push([...tokens]);
          const invalidTokens = tokens.filter((t) => gone.has(t));
          if (invalidTokens.length === tokens.length) throw new ProviderError('every device is gone', { retryable: false, code: 'UNREGISTERED', invalidTokens });
          return { id: `sent-${tried.length}`, ...(invalidTokens.length > 0 && { invalidTokens }) };
        },
      };
      const tidings = createTidings({ storage: get(), clock, environmentId: 'env-tokens', providers: [push] });
      await tidings.integrations.upsert({ name: 'FCM', identifier: 'fcm-main', providerId: 'fcm', channel: 'push', active: true, primary: true });
      await tidings.workflows.upsert({ name: 'p', triggers: [{ identifier: 'p' }], steps: [{ template: { type: 'push', title: 'Hi', content: 'News' } }] });
      await tidings.subscribers.upsert({
        subscriberId: 'ada',
        channels: [
          { providerId: 'fcm', credentials: { deviceTokens: ['t-live', 't-gone'] } },
          // A setting for another FCM integration is not where this send read its tokens: it stays.
          { providerId: 'fcm', integrationIdentifier: 'fcm-other', credentials: { deviceTokens: ['t-gone'] } },
        ],
      });
      const first = await tidings.trigger({ name: 'p', to: 'ada' });
      await tidings.runDue();
      expect(await tidings.messages.byTransaction(first.transactionId!)).toMatchObject([{ status: 'sent', deviceTokens: ['t-live', 't-gone'] }]);
      expect((await tidings.subscribers.get('ada'))!.channels.map((c) => c.credentials.deviceTokens)).toEqual([['t-live'], ['t-gone']]);
      expect(JSON.stringify(await tidings.explain(first.transactionId!))).toContain('1 device token is gone and removed');

      await tidings.trigger({ name: 'p', to: 'ada' });
      await tidings.runDue();
      expect(tried).toEqual([['t-live', 't-gone'], ['t-live']]);

      // Every device gone: the message fails for good, and the tokens still go.
      gone.add('t-live');
      const last = await tidings.trigger({ name: 'p', to: 'ada' });
      await tidings.runDue();
      expect(await tidings.messages.byTransaction(last.transactionId!)).toMatchObject([{ status: 'error', errorId: 'UNREGISTERED' }]);
      expect((await tidings.subscribers.get('ada'))!.channels.map((c) => c.credentials.deviceTokens)).toEqual([[], ['t-gone']]);
    });
    it('engine — a step’s fallbackTo sends the same message through another channel when the first had nowhere to go or failed for good; a retry of the fallback leaves the first alone', async () => {
      const clock = manualClock('2026-05-04T08:00:00.000Z');
      const sent: { channel: string; to: string; content: string; subject?: string }[] = [];
      let pushFails: 'no' | 'final' = 'no';
      let smsBusy = 0;
      const push: Provider = {
        id: 'fcm',
        channel: 'push',
        async send(message) {
          if (pushFails === 'final') throw new ProviderError('the service account is revoked', { retryable: false, code: 'UNAUTHENTICATED' });
          sent.push({ channel: 'push', to: message.to.deviceTokens!.join(), content: message.content });
          return { id: 'push-1' };
        },
      };
      const sms: Provider = {
        id: 'twilio',
        channel: 'sms',
        async send(message) {
          if (smsBusy > 0) {
            smsBusy -= 1;
            throw new ProviderError('twilio answered 503', { retryable: true, status: 503 });
          }
          sent.push({ channel: 'sms', to: message.to.phone!, content: message.content });
          return { id: `SM${sent.length}` };
        },
      };
      const tidings = createTidings({ storage: get(), clock, environmentId: 'env-fallback', providers: [push, sms], inlineInApp: false });
      await tidings.integrations.upsert({ name: 'FCM', providerId: 'fcm', channel: 'push', active: true, primary: true });
      await tidings.integrations.upsert({ name: 'Twilio', providerId: 'twilio', channel: 'sms', active: true, primary: true });
      await tidings.workflows.upsert({
        name: 'alert',
        triggers: [{ identifier: 'alert' }],
        steps: [
          { template: { type: 'push', title: 'Alert', content: 'Server {{ payload.host }} is down' }, fallbackTo: 'sms' },
          { template: { type: 'email', subject: 'Weekly report', content: [{ type: 'text', content: 'Report for {{ payload.host }}' }] }, fallbackTo: 'in_app' },
        ],
      });
      const run = async (to: Parameters<typeof tidings.trigger>[0]['to']) => {
        const { transactionId } = await tidings.trigger({ name: 'alert', to, payload: { host: 'db1' } });
        await tidings.runDue();
        return transactionId!;
      };
      const byChannel = async (tx: string) => Object.fromEntries((await tidings.messages.byTransaction(tx)).map((m) => [m.channel, m]));

      // Nowhere to go on push (no device token), and no email address: SMS and in-app take over.
      const none = await run({ subscriberId: 'ada', phone: '+15550100' });
      const noneMessages = await byChannel(none);
      expect(noneMessages).toMatchObject({
        push: { status: 'warning' },
        sms: { status: 'sent', phone: '+15550100', content: 'Server db1 is down', providerId: 'twilio' },
        in_app: { status: 'sent', title: 'Weekly report', content: 'Report for db1' },
      });
      expect((await tidings.messages.feed('ada')).items.map((m) => m.content)).toEqual(['Report for db1']);
      const explained = JSON.stringify(await tidings.explain(none));
      expect(explained).toContain('the subscriber has no fcm device tokens; fell back to sms: sent by');
      expect(explained).toContain('fell back to in_app');

      // Sent on push: no fallback (the email step, with no email integration, still falls back to in-app).
      sent.length = 0;
      const ok = await run({ subscriberId: 'bob', phone: '+15550101', email: 'bob@example.com', channels: [{ providerId: 'fcm', credentials: { deviceTokens: ['tok'] } }] });
      expect(sent.map((s) => s.channel)).toEqual(['push']);
      expect(Object.keys(await byChannel(ok)).sort()).toEqual(['email', 'in_app', 'push']);

      // Push fails for good and the SMS service is busy once: the SMS is retried alone, the push is not tried again.
      sent.length = 0;
      pushFails = 'final';
      smsBusy = 1;
      const failing = await run({ subscriberId: 'bob' });
      expect(await byChannel(failing)).toMatchObject({ push: { status: 'error', errorId: 'UNAUTHENTICATED' } });
      expect((await byChannel(failing)).sms).toBeUndefined();
      pushFails = 'no';
      clock.advance(60_000);
      await tidings.runDue();
      expect(await byChannel(failing)).toMatchObject({ push: { status: 'error' }, sms: { status: 'sent', phone: '+15550101' } });
      expect(sent.map((s) => s.channel)).toEqual(['sms']);
      expect((await tidings.messages.byTransaction(failing)).filter((m) => m.channel === 'push')).toHaveLength(1);
    });

    it('engine — a fallback channel the subscriber turned off is not used; a fallback that first fails after the first channel used every attempt still gets its own retries', async () => {
      const clock = manualClock('2026-05-04T08:00:00.000Z');
      const texts: string[] = [];
      let smsBusy = 0;
      const push: Provider = { id: 'fcm', channel: 'push', send: async () => Promise.reject(new ProviderError('fcm answered 503', { retryable: true, status: 503 })) };
      const sms: Provider = {
        id: 'twilio',
        channel: 'sms',
        async send(message) {
          if (smsBusy-- > 0) throw new ProviderError('twilio answered 503', { retryable: true, status: 503 });
          texts.push(message.to.phone!);
          return { id: `SM${texts.length}` };
        },
      };
      const tidings = createTidings({ storage: get(), clock, environmentId: 'env-fallback-2', providers: [push, sms], inlineInApp: false, maxAttempts: 2, circuitBreaker: false });
      await tidings.integrations.upsert({ name: 'FCM', providerId: 'fcm', channel: 'push', active: true, primary: true });
      await tidings.integrations.upsert({ name: 'Twilio', providerId: 'twilio', channel: 'sms', active: true, primary: true });
      await tidings.workflows.upsert({ name: 'alert', triggers: [{ identifier: 'alert' }], steps: [{ template: { type: 'push', title: 'Alert', content: 'db1 is down' }, fallbackTo: 'sms' }] });
      const to = (subscriberId: string) => ({ subscriberId, phone: '+1 (555) 010-0100', channels: [{ providerId: 'fcm' as const, credentials: { deviceTokens: ['tok'] } }] });
      const drain = async () => {
        for (let i = 0; i < 10; i++) {
          await tidings.runDue();
          clock.advance(3_600_000);
        }
      };

      await tidings.subscribers.upsert(to('off'));
      await tidings.preferences.update('off', { workflowId: 'alert', channels: { sms: false } });
      const off = await tidings.trigger({ name: 'alert', to: 'off' });
      await drain();
      expect(texts).toEqual([]);
      expect((await tidings.messages.byTransaction(off.transactionId!)).map((m) => m.channel)).toEqual(['push']);
      expect(JSON.stringify(await tidings.explain(off.transactionId!))).toContain('no fallback to sms');

      smsBusy = 1;
      const busy = await tidings.trigger({ name: 'alert', to: to('on') });
      await drain();
      expect(await tidings.messages.byTransaction(busy.transactionId!)).toMatchObject([{ channel: 'push', status: 'error' }, { channel: 'sms', status: 'sent' }]);
      expect(texts).toEqual(['+1 (555) 010-0100']);
    });

    it('engine — fallbackTo is refused on a step that sends nothing and when it names the step’s own channel', async () => {
      const { tidings } = engine('env-fallback-refused');
      const refused = (steps: unknown[]) => tidings.workflows.upsert({ name: 'x', triggers: [{ identifier: 'x' }], steps: steps as never });
      await expect(refused([{ template: { type: 'sms', content: 'hi' }, fallbackTo: 'sms' }])).rejects.toThrow(/steps\[0\]\.fallbackTo.*another channel/s);
      await expect(refused([{ template: { type: 'delay' }, metadata: { type: 'regular', amount: 1, unit: 'minutes' }, fallbackTo: 'sms' }])).rejects.toThrow(/steps\[0\]\.fallbackTo/);
      await expect(refused([{ template: { type: 'sms', content: 'hi' }, fallbackTo: 'pigeon' }])).rejects.toThrow(/steps\[0\]\.fallbackTo/);
      expect(await tidings.workflows.list()).toEqual([]);
    });
    it('engine — provider status callbacks move a sent message forward (never back), once per event; one that comes before the commit waits for it; an unsigned one changes nothing', async () => {
      const clock = manualClock('2026-05-04T08:00:00.000Z');
      let tidings: ReturnType<typeof createTidings>;
      let integrationId = '';
      let callBackFirst = false;
      /** A callback as the service would send it: a JSON list of events, signed with the shared key. */
      const callback = (events: object[], signature = 'key-1'): ProviderCallback => ({ method: 'POST', url: 'https://app.example.com/hooks', headers: { 'x-signature': signature }, body: JSON.stringify(events) });
      const mail: Provider = {
        id: 'mailer',
        channel: 'email',
        async send(message) {
          const id = `pm-${message.to.email}`;
          // A fast service reports delivery before the engine has stored the message.
          if (callBackFirst) await tidings.providerWebhook(integrationId, callback([{ id, state: 'delivered', at: '2026-05-04T08:00:01.000Z', eventId: `${id}-d` }]));
          return { id };
        },
        async readStatus(call, integration) {
          if (call.headers['x-signature'] !== integration.signingKey) throw new CallbackRefused('the signature does not match');
          return (JSON.parse(call.body) as { id: string; state: 'delivered'; at: string; eventId: string; bounce?: 'hard' }[]).map((e) => ({ providerMessageId: e.id, state: e.state, at: e.at, eventId: e.eventId, ...(e.bounce && { bounce: e.bounce }) }));
        },
      };
      tidings = createTidings({ storage: get(), clock, environmentId: 'env-status', providers: [mail] });
      const integration = await tidings.integrations.upsert({ name: 'Mailer', providerId: 'mailer', channel: 'email', active: true, primary: true, configurations: { inboundWebhookSigningKey: 'key-1' } });
      integrationId = integration._id;
      await tidings.workflows.upsert({ name: 'm', triggers: [{ identifier: 'm' }], steps: [{ template: { type: 'email', subject: 'Hi', content: 'Hello' } }] });
      const reported: string[] = [];
      tidings.events.on('message.delivery', ({ message }) => reported.push(`${message.email}:${message.delivery?.state}`));
      const send = async (email: string) => {
        const { transactionId } = await tidings.trigger({ name: 'm', to: { subscriberId: email, email } });
        await tidings.runDue();
        return async () => (await tidings.messages.byTransaction(transactionId!))[0]!;
      };

      const ada = await send('ada@example.com');
      expect(await ada()).toMatchObject({ status: 'sent', providerMessageId: 'pm-ada@example.com' });
      const opened = callback([{ id: 'pm-ada@example.com', state: 'opened', at: '2026-05-04T08:05:00.000Z', eventId: 'o1' }]);
      expect(await tidings.providerWebhook(integrationId, opened)).toEqual({ updated: 1, held: 0 });
      // A late delivered report joins the history without moving the state back; the same callback twice is a no-op.
      await tidings.providerWebhook(integrationId, callback([{ id: 'pm-ada@example.com', state: 'delivered', at: '2026-05-04T08:00:02.000Z', eventId: 'd1' }]));
      expect(await tidings.providerWebhook(integrationId, opened)).toEqual({ updated: 0, held: 0 });
      expect((await ada()).delivery).toEqual({
        state: 'opened',
        at: '2026-05-04T08:05:00.000Z',
        history: [
          { state: 'delivered', at: '2026-05-04T08:00:02.000Z', eventId: 'd1' },
          { state: 'opened', at: '2026-05-04T08:05:00.000Z', eventId: 'o1' },
        ],
      });
      expect(reported).toEqual(['ada@example.com:opened', 'ada@example.com:opened']);

      // A hard bounce makes the message an error.
      const bob = await send('bob@example.com');
      await tidings.providerWebhook(integrationId, callback([{ id: 'pm-bob@example.com', state: 'bounced', bounce: 'hard', at: '2026-05-04T08:00:03.000Z', eventId: 'b1' } as object]));
      expect(await bob()).toMatchObject({ status: 'error', errorId: 'bounced', delivery: { state: 'bounced' } });

      // Reported before the commit: held, then applied when the message is stored.
      callBackFirst = true;
      const cy = await send('cy@example.com');
      expect(await cy()).toMatchObject({ status: 'sent', delivery: { state: 'delivered', history: [{ eventId: 'pm-cy@example.com-d' }] } });

      // Unsigned or wrongly signed: refused, nothing changes; an unknown integration is not found.
      await expect(tidings.providerWebhook(integrationId, callback([{ id: 'pm-ada@example.com', state: 'clicked', at: '2026-05-04T09:00:00.000Z', eventId: 'c1' }], 'forged'))).rejects.toMatchObject({ code: 'unauthorized' });
      expect((await ada()).delivery?.state).toBe('opened');
      await expect(tidings.providerWebhook('nope', opened)).rejects.toMatchObject({ code: 'not_found' });
    });
    it('engine — the suppression list: a hard bounce or a complaint puts the address on it and later email there is not sent (a soft bounce does not); apps add, page through and remove', async () => {
      const clock = manualClock('2026-05-04T08:00:00.000Z');
      const sentTo: string[] = [];
      const mail: Provider = {
        id: 'mailer',
        channel: 'email',
        async send(message) {
          sentTo.push(message.to.email!);
          return { id: `pm-${sentTo.length}` };
        },
        async readStatus(call) {
          return JSON.parse(call.body) as never;
        },
      };
      const tidings = createTidings({ storage: get(), clock, environmentId: 'env-suppress', providers: [mail] });
      const { _id: integrationId } = await tidings.integrations.upsert({ name: 'Mailer', providerId: 'mailer', channel: 'email', active: true, primary: true });
      await tidings.workflows.upsert({ name: 'm', triggers: [{ identifier: 'm' }], steps: [{ template: { type: 'email', subject: 'Hi', content: 'Hello' } }] });
      const send = async (subscriberId: string, email: string) => {
        const { transactionId } = await tidings.trigger({ name: 'm', to: { subscriberId, email } });
        await tidings.runDue();
        return transactionId!;
      };
      const report = (id: string, state: string, extra: object = {}) => tidings.providerWebhook(integrationId, { method: 'POST', url: 'https://x', headers: {}, body: JSON.stringify([{ providerMessageId: id, state, at: clock.now().toISOString(), eventId: `${id}-${state}`, ...extra }]) });

      await send('ada', 'Ada@Example.com');
      await send('bob', 'bob@example.com');
      await send('cy', 'cy@example.com');
      await report('pm-1', 'bounced', { bounce: 'hard', reason: '550 no such user' });
      await report('pm-2', 'bounced', { bounce: 'soft', reason: 'mailbox full' });
      await report('pm-3', 'complained');
      expect(await tidings.suppressions.get('email', 'ADA@example.com')).toMatchObject({ address: 'ada@example.com', reason: 'bounced', detail: '550 no such user' });
      expect(await tidings.suppressions.get('email', 'bob@example.com')).toBeNull();

      sentTo.length = 0;
      const again = await send('ada', 'Ada@Example.com');
      await send('bob', 'bob@example.com');
      await send('cy', 'cy@example.com');
      expect(sentTo).toEqual(['bob@example.com']);
      expect(await tidings.messages.byTransaction(again)).toMatchObject([{ status: 'warning', errorText: expect.stringContaining('ada@example.com is on the suppression list (bounced: 550 no such user') }]);
      expect(JSON.stringify(await tidings.explain(again))).toContain('is on the suppression list');

      // By hand: added (an address already there keeps its entry), listed newest first a page at a time, removed.
      clock.advance(1000);
      await tidings.suppressions.add({ channel: 'email', address: ' Dee@Example.com ', detail: 'asked us to stop' });
      expect(await tidings.suppressions.add({ channel: 'email', address: 'ada@example.com' })).toMatchObject({ reason: 'bounced' });
      // Phones are kept without spaces, dots, dashes and parentheses, so every way of writing one matches.
      await tidings.suppressions.add({ channel: 'sms', address: '+1 (555) 010-0199' });
      expect(await tidings.suppressions.get('sms', '+1.555.010.0199')).toMatchObject({ address: '+15550100199' });
      expect(await tidings.suppressions.remove('sms', '+15550100199')).toBe(true);
      const first = await tidings.suppressions.list({ limit: 2 });
      expect(first.data.map((e) => e.address)).toEqual(['dee@example.com', 'cy@example.com']);
      const second = await tidings.suppressions.list({ limit: 2, cursor: first.nextCursor! });
      expect(second).toEqual({ data: [expect.objectContaining({ address: 'ada@example.com' })], nextCursor: null });
      await expect(tidings.suppressions.add({ channel: 'pigeon' as never, address: 'x@y.z' })).rejects.toMatchObject({ code: 'validation_failed', message: expect.stringContaining('channel') });
      await expect(tidings.suppressions.list({ cursor: 'nonsense' })).rejects.toMatchObject({ code: 'validation_failed', issues: [expect.objectContaining({ path: 'cursor' })] });
      expect(await tidings.suppressions.remove('email', 'ADA@example.com')).toBe(true);
      expect(await tidings.suppressions.remove('email', 'ada@example.com')).toBe(false);
      sentTo.length = 0;
      await send('ada', 'Ada@Example.com');
      expect(sentTo).toEqual(['Ada@Example.com']);
    });
    it('engine — webhooks: each event goes to the endpoints subscribed to it, written with its change, retried until the receiver takes it, listed with its attempts; endpoints that keep failing are disabled', async () => {
      const clock = manualClock('2026-05-04T08:00:00.000Z');
      const received: { url: string; id: string; body: { type: string; data: { message?: { _id: string } } } }[] = [];
      let down = 0;
      const transport: WebhookTransport = async (request) => {
        if (request.url.includes('dead') || down-- > 0) return { status: 500 };
        received.push({ url: request.url, id: request.id, body: JSON.parse(request.body) });
        return { status: 204 };
      };
      const tidings = createTidings({ storage: get(), clock, environmentId: 'env-webhooks', webhookTransport: transport });
      const drain = async () => {
        for (let hour = 0; hour < 40; hour++) {
          await tidings.runDue();
          clock.advance(3_600_000);
        }
      };
      await tidings.workflows.upsert(welcome);
      const app = await tidings.webhooks.create({ url: 'https://app.example.com/hooks', events: ['message.sent', 'message.read'] });
      expect(app.secret).toMatch(/^whsec_/);
      expect(await tidings.webhooks.get(app.endpoint._id)).not.toHaveProperty('secret');
      const audit = await tidings.webhooks.create({ url: 'https://audit.example.com/hooks', events: ['message.read'], secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' });
      expect(audit.secret).toBe('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw');

      // The receiver is down for the first two attempts: the third takes it, and it is listed so.
      down = 2;
      const { transactionId } = await tidings.trigger({ name: 'welcome', to: { subscriberId: 'ada', firstName: 'Ada' } });
      const [message] = await tidings.messages.byTransaction(transactionId!);
      await drain();
      expect(received).toEqual([{ url: 'https://app.example.com/hooks', id: expect.stringMatching(/^msg_/), body: expect.objectContaining({ type: 'message.sent', data: { message: expect.objectContaining({ _id: message!._id }) } }) }]);
      const [sent] = (await tidings.webhooks.deliveries({ endpointId: app.endpoint._id })).data;
      expect(sent).toMatchObject({ _id: received[0]!.id, status: 'delivered', attempts: 3, lastStatus: 204 });

      await tidings.messages.markAs('ada', { messageId: message!._id, markAs: 'read' });
      await drain();
      expect(received.slice(1).map((r) => [r.url, r.body.type]).sort()).toEqual([['https://app.example.com/hooks', 'message.read'], ['https://audit.example.com/hooks', 'message.read']]);
      expect(new Set(received.map((r) => r.id)).size).toBe(received.length);

      // An endpoint whose deliveries keep failing for good is disabled, says so, and gets nothing more.
      const disabled: string[] = [];
      tidings.events.on('webhook.endpoint.disabled', ({ endpoint }) => disabled.push(endpoint._id));
      const dead = await tidings.webhooks.create({ url: 'https://dead.example.com/hooks', events: ['message.sent'] });
      for (let i = 0; i < 3; i++) await tidings.trigger({ name: 'welcome', to: 'ada' });
      await drain();
      expect(disabled).toEqual([dead.endpoint._id]);
      expect(await tidings.webhooks.get(dead.endpoint._id)).toMatchObject({ active: false, failures: 3, disabledReason: expect.stringContaining('answered 500') });
      expect((await tidings.webhooks.deliveries({ endpointId: dead.endpoint._id, status: 'failed' })).data).toHaveLength(3);
      expect((await tidings.webhooks.deliveries({ endpointId: dead.endpoint._id })).data[0]).toMatchObject({ attempts: 8, lastStatus: 500 });
      await tidings.trigger({ name: 'welcome', to: 'ada' });
      expect((await tidings.webhooks.deliveries({ endpointId: dead.endpoint._id })).data).toHaveLength(3);

      // Enabled again, it starts over; removed, its deliveries go too.
      expect(await tidings.webhooks.update(dead.endpoint._id, { active: true })).toMatchObject({ active: true, failures: 0 });
      await tidings.webhooks.delete(dead.endpoint._id);
      await expect(tidings.webhooks.get(dead.endpoint._id)).rejects.toMatchObject({ code: 'not_found' });
      await expect(tidings.webhooks.create({ url: 'ftp://x.example.com', events: ['message.sent'] })).rejects.toMatchObject({ code: 'validation_failed', message: expect.stringContaining('url') });
      await expect(tidings.webhooks.create({ url: 'https://x.example.com', events: ['message.nope' as never] })).rejects.toMatchObject({ message: expect.stringContaining('events') });
      await expect(createTidings({ storage: get(), clock, environmentId: 'env-no-transport' }).webhooks.create({ url: 'https://x.example.com', events: ['message.sent'] })).rejects.toMatchObject({ message: expect.stringContaining('webhookTransport') });
    });
  });
}
