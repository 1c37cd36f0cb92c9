import { describe, expect, it } from 'vitest';
import { manualClock } from '../../clock.js';
import { createTidings } from '../../engine/create-tidings.js';
import { MAX_PREFERENCE_UPDATES } from '../../schemas/index.js';
import type { Storage } from '../../storage.js';
import type { SuiteContext } from '../storage-under-test.js';
import { upsertSubscribers } from '../../subscribers/upsert-subscribers.js';
import { ORG, T0, plus, topicRecord } from '../fixtures.js';

export function peopleSuite({ get }: SuiteContext): void {
  describe('subscribers', () => {
    it('upsertSubscribers — creates with defaults, then changes only the given members; data is replaced whole', async () => {
      const s = get();
      const [created] = await upsertSubscribers(s, 'env-a', [{ _id: 'i1', patch: { subscriberId: 'u1', firstName: 'Ada', data: { a: 1, b: 2 } } }], T0, ORG);
      expect(created).toMatchObject({ _id: 'i1', subscriberId: 'u1', firstName: 'Ada', lastName: null, data: { a: 1, b: 2 }, deleted: false, createdAt: T0, channels: [] });
      const later = plus(T0, 1000);
      const [updated] = await upsertSubscribers(s, 'env-a', [{ _id: 'ignored', patch: { subscriberId: 'u1', lastName: 'Lovelace', data: { c: 3 } } }], later, ORG);
      expect(updated).toMatchObject({ _id: 'i1', firstName: 'Ada', lastName: 'Lovelace', data: { c: 3 }, createdAt: T0, updatedAt: later });
      expect((await s.subscribers.getMany('env-a', ['u1']))[0]).toEqual(updated);
    });

    it('upsertSubscribers — null clears a member, the same id twice ends with the later values, order is kept', async () => {
      const s = get();
      await upsertSubscribers(s, 'env-a', [{ _id: 'i1', patch: { subscriberId: 'u1', email: 'a@x.io', timezone: 'Europe/Paris' } }], T0, ORG);
      const result = await upsertSubscribers(s, 
        'env-a',
        [
          { _id: 'i2', patch: { subscriberId: 'u2', firstName: 'One' } },
          { _id: 'i1b', patch: { subscriberId: 'u1', email: null } },
          { _id: 'i2b', patch: { subscriberId: 'u2', firstName: 'Two' } },
        ],
        T0,
        ORG,
      );
      expect(result.map((r) => r.subscriberId)).toEqual(['u2', 'u1', 'u2']);
      const [u1, u2] = await s.subscribers.getMany('env-a', ['u1', 'u2']);
      expect(u1).toMatchObject({ email: null, timezone: 'Europe/Paris' });
      expect(u2).toMatchObject({ _id: 'i2', firstName: 'Two' });
    });

    it('upsertSubscribers — channel settings merge by provider and keep other credentials', async () => {
      const s = get();
      await upsertSubscribers(s, 'env-a', [{ _id: 'i1', patch: { subscriberId: 'u1', channels: [{ providerId: 'slack', credentials: { webhookUrl: 'https://a', channel: '#x' } }] } }], T0, ORG);
      const [u] = await upsertSubscribers(s, 'env-a', [{ _id: 'i', patch: { subscriberId: 'u1', channels: [{ providerId: 'slack', credentials: { webhookUrl: 'https://b' } }, { providerId: 'fcm', credentials: { deviceTokens: ['t1'] } }] } }], T0, ORG);
      expect(u!.channels).toEqual([
        { providerId: 'slack', credentials: { webhookUrl: 'https://b', channel: '#x' }, _integrationId: '' },
        { providerId: 'fcm', credentials: { deviceTokens: ['t1'] }, _integrationId: '' },
      ]);
    });

    it('tidings.subscribers.setCredentials — replace puts device tokens in place, append adds each once, deleteCredentials removes a provider; refused input and a missing subscriber change nothing', async () => {
      const tidings = createTidings({ storage: get(), clock: manualClock(T0), environmentId: 'env-creds' });
      await tidings.subscribers.upsert({ subscriberId: 'ada' });
      await tidings.subscribers.setCredentials('ada', { providerId: 'fcm', credentials: { deviceTokens: ['a', 'b'] } });
      await tidings.subscribers.setCredentials('ada', { providerId: 'fcm', credentials: { deviceTokens: ['c'] } }, 'replace');
      await tidings.subscribers.setCredentials('ada', { providerId: 'fcm', credentials: { deviceTokens: ['c', 'd'] } }, 'append');
      await tidings.subscribers.setCredentials('ada', { providerId: 'slack', credentials: { webhookUrl: 'https://hooks.example.com/1' } }, 'append');
      const tokensOf = async () => (await tidings.subscribers.get('ada'))!.channels.map((c) => [c.providerId, c.credentials]);
      expect(await tokensOf()).toEqual([['fcm', { deviceTokens: ['c', 'd'] }], ['slack', { webhookUrl: 'https://hooks.example.com/1' }]]);
      await expect(tidings.subscribers.setCredentials('ada', { providerId: 'pigeon' as never, credentials: {} })).rejects.toMatchObject({ code: 'validation_failed', message: expect.stringContaining('providerId') });
      await expect(tidings.subscribers.setCredentials('nobody', { providerId: 'fcm', credentials: { deviceTokens: ['x'] } })).rejects.toMatchObject({ code: 'not_found' });
      expect(await tidings.subscribers.get('nobody')).toBeNull();
      await tidings.subscribers.deleteCredentials('ada', 'fcm');
      expect(await tokensOf()).toEqual([['slack', { webhookUrl: 'https://hooks.example.com/1' }]]);
    });

    it('subscribers — environments are isolated, getMany leaves out missing ids, delete answers false when absent', async () => {
      const s = get();
      await upsertSubscribers(s, 'env-a', [{ _id: 'i1', patch: { subscriberId: 'u1' } }], T0, ORG);
      expect(await s.subscribers.getMany('env-b', ['u1'])).toEqual([]);
      expect(await s.subscribers.delete('env-b', 'u1')).toBe(false);
      expect((await s.subscribers.getMany('env-a', ['missing', 'u1'])).map((x) => x.subscriberId)).toEqual(['u1']);
      expect(await s.subscribers.delete('env-a', 'u1')).toBe(true);
      expect(await s.subscribers.getMany('env-a', ['u1'])).toEqual([]);
    });

    it('subscribers.idPage — page after page from the last id visits every subscriber of the environment once, within `until`, in a stable order', async () => {
      const s = get();
      const ids = Array.from({ length: 23 }, (_, i) => `p${String(i).padStart(2, '0')}`);
      await upsertSubscribers(s, 'env-a', ids.map((id) => ({ _id: `i-${id}`, patch: { subscriberId: id } })), T0, ORG);
      await upsertSubscribers(s, 'env-b', [{ _id: 'i-other', patch: { subscriberId: 'p05b' } }, { _id: 'i-other2', patch: { subscriberId: 'zz' } }], T0, ORG);
      const visited: string[] = [];
      for (let page = await s.subscribers.idPage('env-a', { after: null, limit: 5 }); page.length > 0; page = await s.subscribers.idPage('env-a', { after: page.at(-1)!, limit: 5 })) {
        expect(page.length).toBeLessThanOrEqual(5);
        visited.push(...page);
      }
      expect([...visited].sort()).toEqual(ids);
      expect(new Set(visited).size).toBe(visited.length);
      // `until` bounds a page; the same bounds read the same subscribers again.
      expect(await s.subscribers.idPage('env-a', { after: visited[2]!, until: visited[6]!, limit: 100 })).toEqual(visited.slice(3, 7));
      expect(await s.subscribers.idPage('env-a', { after: visited[2]!, until: visited[6]!, limit: 2 })).toEqual(visited.slice(3, 5));
      expect(await s.subscribers.idPage('env-a', { after: visited.at(-1)!, limit: 5 })).toEqual([]);
      expect(await s.subscribers.idPage('env-a', { after: null, limit: 0 })).toEqual([]);
      expect(await s.subscribers.idPage('env-c', { after: null, limit: 5 })).toEqual([]);
      // A deleted subscriber is no longer read; one created inside a page's bounds is.
      await s.subscribers.delete('env-a', visited[4]!);
      await upsertSubscribers(s, 'env-a', [{ _id: 'i-new', patch: { subscriberId: `${visited[4]!}x` } }], T0, ORG);
      expect(await s.subscribers.idPage('env-a', { after: visited[2]!, until: visited[6]!, limit: 100 })).toEqual([visited[3]!, `${visited[4]!}x`, visited[5]!, visited[6]!]);
    });

    it('subscribers.delete — removes topic memberships and preferences too', async () => {
      const s = get();
      const [u] = await upsertSubscribers(s, 'env-a', [{ _id: 'i1', patch: { subscriberId: 'u1' } }], T0, ORG);
      const topic = await s.topics.upsert('env-a', topicRecord('env-a', 'news'));
      await s.topics.addMembers('env-a', topic, [u!]);
      await s.preferences.putMany('env-a', [{ subscriberId: 'u1', workflowId: null, enabled: true, channels: { email: false }, updatedAt: T0 }]);
      await s.subscribers.delete('env-a', 'u1');
      expect(await s.topics.memberIds('env-a', ['news'])).toEqual([]);
      expect(await s.preferences.list('env-a', 'u1')).toEqual([]);
    });
  });

  describe('topics', () => {
    it('topics — members are added once, listed once across topics, removed by subscriberId', async () => {
      const s = get();
      const subs = await upsertSubscribers(s, 'env-a', ['a', 'b', 'c'].map((id) => ({ _id: `i-${id}`, patch: { subscriberId: id } })), T0, ORG);
      const news = await s.topics.upsert('env-a', topicRecord('env-a', 'news'));
      const sports = await s.topics.upsert('env-a', topicRecord('env-a', 'sports'));
      await s.topics.addMembers('env-a', news, subs.slice(0, 2));
      await s.topics.addMembers('env-a', news, subs.slice(0, 2));
      await s.topics.addMembers('env-a', sports, subs.slice(1));
      expect((await s.topics.memberIds('env-a', ['news', 'sports', 'unknown'])).sort()).toEqual(['a', 'b', 'c']);
      expect(await s.topics.removeMembers('env-a', 'news', ['a', 'zzz'])).toBe(1);
      expect((await s.topics.memberIds('env-a', ['news'])).sort()).toEqual(['b']);
      expect(await s.topics.removeMembers('env-a', 'unknown', ['a'])).toBe(0);
    });

    it('topics.memberPage — page after page from the last id visits every member of the topics once, within `until`, in a stable order', async () => {
      const s = get();
      const ids = Array.from({ length: 23 }, (_, i) => `p${String(i).padStart(2, '0')}`);
      const subs = await upsertSubscribers(s, 'env-a', ids.map((id) => ({ _id: `i-${id}`, patch: { subscriberId: id } })), T0, ORG);
      const odd = await s.topics.upsert('env-a', topicRecord('env-a', 'odd'));
      const low = await s.topics.upsert('env-a', topicRecord('env-a', 'low'));
      await s.topics.addMembers('env-a', odd, subs.filter((_, i) => i % 2 === 1));
      await s.topics.addMembers('env-a', low, subs.slice(0, 12));
      await s.topics.addMembers('env-b', odd, subs.slice(0, 3));
      const visited: string[] = [];
      for (let page = await s.topics.memberPage('env-a', ['odd', 'low', 'unknown'], { after: null, limit: 5 }); page.length > 0; page = await s.topics.memberPage('env-a', ['odd', 'low'], { after: page.at(-1)!, limit: 5 })) {
        expect(page.length).toBeLessThanOrEqual(5);
        visited.push(...page);
      }
      const expected = ids.filter((_, i) => i < 12 || i % 2 === 1);
      expect([...visited].sort()).toEqual(expected);
      expect(new Set(visited).size).toBe(visited.length);
      // `until` bounds a page; the same bounds read the same members again.
      const bounded = await s.topics.memberPage('env-a', ['odd', 'low'], { after: visited[2]!, until: visited[6]!, limit: 100 });
      expect(bounded).toEqual(visited.slice(3, 7));
      expect(await s.topics.memberPage('env-a', ['odd', 'low'], { after: visited[2]!, until: visited[6]!, limit: 2 })).toEqual(visited.slice(3, 5));
      expect(await s.topics.memberPage('env-a', [], { after: null, limit: 5 })).toEqual([]);
      expect(await s.topics.memberPage('env-a', ['odd'], { after: visited.at(-1)!, limit: 5 })).toEqual([]);
    });

    it('topics.getSubscription — the membership with internal ids; null for non-members, unknown topics and other environments', async () => {
      const s = get();
      const [u] = await upsertSubscribers(s, 'env-a', [{ _id: 'i-a', patch: { subscriberId: 'a' } }], T0, ORG);
      const topic = await s.topics.upsert('env-a', topicRecord('env-a', 'news'));
      await s.topics.addMembers('env-a', topic, [u!]);
      expect(await s.topics.getSubscription('env-a', 'news', 'a')).toEqual({
        _organizationId: ORG,
        _environmentId: 'env-a',
        _subscriberId: 'i-a',
        _topicId: topic._id,
        topicKey: 'news',
        externalSubscriberId: 'a',
      });
      expect(await s.topics.getSubscription('env-a', 'news', 'b')).toBeNull();
      expect(await s.topics.getSubscription('env-a', 'nope', 'a')).toBeNull();
      expect(await s.topics.getSubscription('env-b', 'news', 'a')).toBeNull();
      expect(await s.topics.get('env-b', 'news')).toBeNull();
    });

    it('topics.upsert — a second upsert renames and keeps the id', async () => {
      const s = get();
      const first = await s.topics.upsert('env-a', topicRecord('env-a', 'news', { name: 'News' }));
      const second = await s.topics.upsert('env-a', topicRecord('env-a', 'news', { name: 'Headlines', updatedAt: plus(T0, 5) }));
      expect(second._id).toBe(first._id);
      expect(await s.topics.get('env-a', 'news')).toMatchObject({ _id: first._id, name: 'Headlines' });
    });

    it('topics.list and topics.delete — pages in byte order of keys, one environment; a deleted topic is gone, its members are not touched', async () => {
      const s = get();
      for (const key of ['b', 'a', 'B', 'c']) await s.topics.upsert('env-a', topicRecord('env-a', key));
      await s.topics.upsert('env-b', topicRecord('env-b', 'other'));
      expect((await s.topics.list('env-a', { after: null, limit: 10 })).map((t) => t.key)).toEqual(['B', 'a', 'b', 'c']);
      expect((await s.topics.list('env-a', { after: 'a', limit: 2 })).map((t) => t.key)).toEqual(['b', 'c']);
      expect(await s.topics.list('env-a', { after: 'c', limit: 2 })).toEqual([]);
      const [u] = await upsertSubscribers(s, 'env-a', [{ _id: 'i-a', patch: { subscriberId: 'a' } }], T0, ORG);
      await s.topics.addMembers('env-a', (await s.topics.get('env-a', 'a'))!, [u!]);
      expect(await s.topics.delete('env-a', 'a')).toBe(true);
      expect(await s.topics.delete('env-a', 'a')).toBe(false);
      expect(await s.topics.get('env-a', 'a')).toBeNull();
      expect(await s.topics.getSubscription('env-a', 'a', 'a')).toBeNull();
      expect(await s.topics.memberPage('env-a', ['a'], { after: null, limit: 10 })).toEqual(['a']);
      expect((await s.topics.list('env-a', { after: null, limit: 10 })).map((t) => t.key)).toEqual(['B', 'b', 'c']);
      expect(await s.topics.delete('env-b', 'b')).toBe(false);
    });
  });

  describe('preferences', () => {
    it('preferences.putMany — rows keyed by (subscriber, workflow) are replaced whole; list and listMany read them back', async () => {
      const s = get();
      const global = { subscriberId: 'u1', workflowId: null, enabled: true, channels: { email: false }, schedule: { isEnabled: true, weeklySchedule: { monday: { isEnabled: true, hours: [{ start: '9:00 AM', end: '5:00 PM' }] } } }, updatedAt: T0 };
      const perWorkflow = { subscriberId: 'u1', workflowId: 'wf1', enabled: false, channels: { sms: true }, updatedAt: T0 };
      await s.preferences.putMany('env-a', [global, perWorkflow]);
      await s.preferences.putMany('env-a', [{ ...perWorkflow, channels: {} }]);
      const rows = await s.preferences.list('env-a', 'u1');
      expect(rows.find((r) => r.workflowId === null)).toEqual(global);
      expect(rows.find((r) => r.workflowId === 'wf1')).toEqual({ ...perWorkflow, channels: {} });
      expect(await s.preferences.list('env-b', 'u1')).toEqual([]);
      await s.preferences.putMany('env-a', [{ ...perWorkflow, subscriberId: 'u2' }]);
      expect((await s.preferences.listMany('env-a', ['u1', 'u2', 'u3'])).length).toBe(3);
    });

    it('tidings.preferences.updateMany — every patch in one storage transaction, in order; a missing or critical workflow, or more than the cap, changes nothing', async () => {
      let transactions = 0;
      const s = get();
      // The storage as the engine sees it, counting the transactions it opens.
      const counting = new Proxy(s, {
        get(target, key) {
          if (key === 'transaction') return ((fn) => (transactions++, target.transaction(fn))) as Storage['transaction'];
          const value: unknown = Reflect.get(target, key, target);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
      const tidings = createTidings({ storage: counting, clock: manualClock(T0), environmentId: 'env-a' });
      const inApp = (name: string, critical = false) => ({ name, critical, triggers: [{ identifier: name }], steps: [{ template: { type: 'in_app' as const, content: 'x' } }, { template: { type: 'email' as const, subject: 's', content: 'x' } }] });
      for (const name of ['billing', 'social']) await tidings.workflows.upsert(inApp(name));
      await tidings.workflows.upsert(inApp('security', true));
      await tidings.subscribers.upsert({ subscriberId: 'ada' });
      const channelsOf = async () => Object.fromEntries((await tidings.preferences.get('ada')).workflows.map((w) => [w.workflow.identifier, w.channels]));
      const before = await channelsOf();

      const started = transactions;
      const after = await tidings.preferences.updateMany('ada', [
        { workflowId: 'billing', channels: { email: false } },
        { workflowId: 'social', channels: { in_app: false } },
        { workflowId: 'billing', channels: { in_app: false } },
      ]);
      expect(transactions - started).toBe(1);
      const changed = { billing: { in_app: false, email: false }, social: { in_app: false, email: true } };
      expect(Object.fromEntries(after.workflows.map((w) => [w.workflow.identifier, w.channels]))).toEqual(changed);
      expect(await channelsOf()).toEqual(changed);
      expect(before).toEqual({ billing: { in_app: true, email: true }, social: { in_app: true, email: true } });

      const failure = async (patches: Parameters<typeof tidings.preferences.updateMany>[1]) => {
        const error = (await tidings.preferences.updateMany('ada', patches).then(() => null, (e: unknown) => e)) as { code?: string; issues?: { path: string }[] } | null;
        expect(await channelsOf()).toEqual(changed);
        return { code: error?.code, paths: error?.issues?.map((i) => i.path) };
      };
      const reset = { workflowId: 'social', channels: { in_app: true } };
      expect(await failure([reset, { workflowId: 'missing', channels: { email: true } }])).toMatchObject({ code: 'not_found' });
      expect(await failure([reset, { workflowId: 'security', channels: { email: false } }])).toEqual({ code: 'validation_failed', paths: ['preferences[1].workflowId'] });
      expect(await failure(Array.from({ length: MAX_PREFERENCE_UPDATES + 1 }, () => reset))).toEqual({ code: 'validation_failed', paths: ['preferences'] });
      await tidings.preferences.updateMany('ada', Array.from({ length: MAX_PREFERENCE_UPDATES }, () => reset));
      expect((await channelsOf())['social']).toEqual({ in_app: true, email: true });
    });
  });
}
