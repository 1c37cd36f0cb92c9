import { describe, expect, it } from 'vitest';
import { manualClock } from '../../clock.js';
import { createTidings } from '../../engine/create-tidings.js';
import { actingAs } from '../../engine/audit/actor.js';
import { subscriberExportSchema } from '../../schemas/operating.js';
import type { Storage } from '../../storage.js';
import type { SuiteContext } from '../storage-under-test.js';

/** Every record table core and its features write: what a port-level read of "everything" walks. */
const RECORD_TABLES = [
  'subscribers', 'notifications', 'traces', 'skips', 'preferences', 'preference-changes', 'topics', 'topic-subscriptions', 'digests', 'digest-keys', 'window-hits',
  'suppressions', 'provider-refs', 'held-status', 'webhook-endpoints', 'webhook-deliveries', 'settings', 'idempotency', 'audit', 'api-keys', 'workflows', 'integrations', 'tenants', 'workflow_revisions',
];

/** Everything stored of an environment as text: the backend's own raw read when it has one, else every table through the port. */
async function everything(storage: Storage, env: string, raw: SuiteContext['backend']['rawDump'], internalIds: readonly string[]): Promise<string> {
  if (raw) return raw(storage, env);
  const parts: unknown[] = [];
  for (const table of RECORD_TABLES) parts.push(await storage.records.find(env, table, {}));
  parts.push(await storage.jobs.list(env));
  for (const id of internalIds) parts.push(await storage.messages.idsMatching(env, id, { now: '' }));
  return JSON.stringify(parts);
}

export function operatingSuite({ get, backend }: SuiteContext): void {
  describe('erase and export one subscriber', () => {
    async function world() {
      const clock = manualClock('2026-05-04T08:00:00.000Z');
      const tidings = createTidings({ storage: get(), clock, environmentId: 'privacy', fanoutChunk: 1 });
      await tidings.workflows.upsert({ name: 'Hello', triggers: [{ identifier: 'hello' }], steps: [{ template: { type: 'in_app', content: 'Hi {{ subscriber.firstName }}' } }] });
      await tidings.workflows.upsert({ name: 'News', triggers: [{ identifier: 'news' }], steps: [{ template: { type: 'email', subject: 'News', content: 'Hello' } }] });
      await tidings.workflows.upsert({
        name: 'Later',
        triggers: [{ identifier: 'later' }],
        steps: [{ template: { type: 'delay' }, metadata: { type: 'regular', amount: 1, unit: 'hours' } }, { template: { type: 'in_app', content: 'Later' } }],
      });
      await tidings.workflows.upsert({
        name: 'Digest',
        triggers: [{ identifier: 'digest' }],
        steps: [{ template: { type: 'digest' }, metadata: { type: 'regular', amount: 5, unit: 'minutes' } }, { template: { type: 'in_app', content: '{{ step.total_count }}' } }],
      });
      await tidings.subscribers.upsert({ subscriberId: 'adalovelace', firstName: 'Augusta', email: 'Augusta.King@Analytical.test', phone: '+44 20 7946 0958', data: { secret: 'difference-engine' } });
      await tidings.subscribers.upsert({ subscriberId: 'bob', firstName: 'Bob', email: 'bob@x.test' });
      await tidings.subscribers.setCredentials('adalovelace', { providerId: 'fcm', credentials: { deviceTokens: ['ada-device-token'] } });
      await tidings.preferences.update('adalovelace', { workflowId: 'news', channels: { email: false } });
      await tidings.topics.upsert({ key: 'readers' });
      await tidings.topics.addSubscribers('readers', ['adalovelace', 'bob']);
      await tidings.suppressions.add({ channel: 'email', address: 'augusta.king@analytical.test', detail: 'bounced for good' });

      const alone = await tidings.trigger({ name: 'hello', to: 'adalovelace', payload: { note: 'only hers' } });
      const shared = await tidings.trigger({ name: 'hello', to: [{ type: 'Topic', topicKey: 'readers' }, 'adalovelace'], actor: 'adalovelace' });
      await tidings.trigger({ name: 'news', to: ['adalovelace', 'bob'] });
      // One bulk call: its triggers' decision records are one record, shared by her and bob.
      const [bulkHers, bulkBobs] = await tidings.triggerBulk([{ name: 'hello', to: 'adalovelace' }, { name: 'hello', to: 'bob' }]);
      await tidings.trigger({ name: 'later', to: 'adalovelace' });
      await tidings.trigger({ name: 'digest', to: 'adalovelace' });
      // Debounced bursts still waiting: one for her alone, one for her and bob.
      const debounce = { period: { amount: 1, unit: 'hours' as const } };
      await tidings.trigger({ name: 'hello', to: 'adalovelace', payload: { note: 'only hers' }, debounce });
      await tidings.trigger({ name: 'hello', to: ['adalovelace', 'bob'], payload: { note: 'for both' }, debounce });
      await tidings.runDue();
      return { tidings, clock, alone: alone.transactionId!, shared: shared.transactionId!, bulkHers: bulkHers!.transactionId!, bulkBobs: bulkBobs!.transactionId! };
    }

    it('subscribers.export — one JSON document of everything held about them, in its schema', async () => {
      const { tidings, alone, bulkHers, bulkBobs } = await world();
      const exported = await tidings.subscribers.export('adalovelace');
      expect(subscriberExportSchema.safeParse(exported).success).toBe(true);
      expect(exported.subscriber).toMatchObject({ subscriberId: 'adalovelace', email: 'Augusta.King@Analytical.test', data: { secret: 'difference-engine' } });
      expect(exported.subscriber.channels[0]).toMatchObject({ providerId: 'fcm', credentials: { deviceTokens: ['ada-device-token'] } });
      expect(exported.preferences.length).toBeGreaterThan(0);
      expect(exported.preferenceChanges.length).toBe(1);
      expect(exported.topics).toEqual([{ topicKey: 'readers' }]);
      expect(exported.messages.filter((m) => m.channel === 'in_app').length).toBeGreaterThanOrEqual(2);
      expect(exported.notifications.map((n) => n.transactionId)).toContain(alone);
      expect(exported.pending.jobs.length).toBeGreaterThan(0);
      expect(exported.pending.digests.length).toBe(1);
      expect(exported.decisions.length).toBeGreaterThan(0);
      // Her part of the bulk call's shared record, and nothing of bob's.
      expect(exported.decisions.filter((d) => d.transactionId === bulkHers)).toHaveLength(1);
      expect(exported.decisions.some((d) => d.transactionId === bulkBobs)).toBe(false);
      expect(exported.suppressions).toMatchObject([{ channel: 'email', address: 'augusta.king@analytical.test' }]);
      await expect(tidings.subscribers.export('nobody')).rejects.toMatchObject({ code: 'not_found' });
    });

    it('subscribers.erase — nothing of them is left in a raw read, others keep theirs, a shared trigger stays without them, and their bounced address stays suppressed as a hash', async () => {
      const { tidings, alone, shared, bulkHers, bulkBobs } = await world();
      const storage = get();
      const [ada] = await storage.subscribers.getMany('privacy', ['adalovelace']);
      const [bob] = await storage.subscribers.getMany('privacy', ['bob']);
      const bobBefore = (await tidings.subscribers.export('bob')).messages.length;

      const erased = await tidings.subscribers.erase('adalovelace');
      expect(erased).toMatchObject({ suppressionsHashed: 1 });
      expect(erased.messages).toBeGreaterThan(0);
      expect(erased.jobs).toBeGreaterThan(0);
      expect(erased.digests).toBe(1);

      const dump = await everything(storage, 'privacy', backend.rawDump, [ada!._id, bob!._id]);
      for (const trace of ['adalovelace', ada!._id, 'Augusta', 'augusta.king@analytical.test', 'Augusta.King', '7946', 'ada-device-token', 'difference-engine', 'only hers']) expect(dump).not.toContain(trace);

      expect(await tidings.subscribers.get('adalovelace')).toBeNull();
      expect(await storage.notifications.getByTransactionId('privacy', alone)).toBeNull();
      const kept = await storage.notifications.getByTransactionId('privacy', shared);
      expect(kept).toMatchObject({ actorId: null });
      expect((await tidings.subscribers.export('bob')).messages.length).toBe(bobBefore);
      expect(await tidings.explain(shared, 'bob')).not.toEqual([]);
      expect(await tidings.explain(shared, 'adalovelace')).toEqual([]);
      // Of the bulk call's one record, her trigger's part went with her trigger; bob's stays.
      expect(await storage.notifications.getByTransactionId('privacy', bulkHers)).toBeNull();
      expect(await tidings.explain(bulkHers)).toEqual([]);
      expect((await tidings.explain(bulkBobs)).map((r) => r.subscriberId)).toEqual(['bob']);
      expect(await storage.topics.memberIds('privacy', ['readers'])).toEqual(['bob']);
      // The burst for her alone is gone; the one for both runs for bob alone.
      expect((await tidings.pending()).jobs.filter((j) => j.kind === 'debounce')).toHaveLength(1);

      // The address is still never mailed: the check matches the hashed entry.
      const [found] = await storage.suppressions.find('privacy', 'email', ['augusta.king@analytical.test']);
      expect(found).toMatchObject({ address: 'augusta.king@analytical.test', reason: 'manual' });
      expect((await tidings.suppressions.list()).data.map((s) => s.address)).toEqual([expect.stringMatching(/^sha256:[0-9a-f]{64}$/)]);

      // Nothing runs for them later, and the erase is in the audit log without their id.
      await tidings.runDue();
      const audit = await tidings.audit.list({ kind: 'subscriber' });
      expect(audit.items).toMatchObject([{ action: 'erased', who: 'code', target: expect.stringMatching(/^sha256:/) }]);
      await expect(tidings.subscribers.erase('adalovelace')).rejects.toMatchObject({ code: 'not_found' });
    });

    it('subscribers.delete — keeps Novu\u2019s meaning: their messages and runs stay', async () => {
      const { tidings } = await world();
      const [ada] = await get().subscribers.getMany('privacy', ['adalovelace']);
      await tidings.subscribers.delete('adalovelace');
      expect((await get().messages.idsMatching('privacy', ada!._id, { now: '' })).length).toBeGreaterThan(0);
    });
  });

  describe('API keys', () => {
    it('apiKeys — create shows the secret once and stores its hash; verify knows scope and expiry; rotate keeps the old one working until retired; revoke stops it at once', async () => {
      const clock = manualClock('2026-05-04T08:00:00.000Z');
      const tidings = createTidings({ storage: get(), clock, environmentId: 'keys' });
      const created = await tidings.apiKeys.create({ name: 'deploy', scope: 'trigger' });
      expect(created.secret).toMatch(/^tdk_[0-9a-f]{24}\.[A-Za-z0-9_-]{43}$/);
      expect(JSON.stringify(await get().records.find('keys', 'api-keys', {}))).not.toContain(created.secret);
      expect(await tidings.apiKeys.verify(created.secret)).toEqual({ id: created.id, name: 'deploy', scope: 'trigger' });
      expect(await tidings.apiKeys.verify(`${created.secret.slice(0, -1)}x`)).toBeNull();
      expect(await createTidings({ storage: get(), clock, environmentId: 'other' }).apiKeys.verify(created.secret)).toBeNull();

      const rotated = await tidings.apiKeys.rotate(created.id, { retireOldAt: '2026-05-04T09:00:00Z' });
      expect(rotated).toMatchObject({ name: 'deploy', scope: 'trigger', rotatedFrom: created.id });
      expect(await tidings.apiKeys.verify(created.secret)).not.toBeNull();
      expect(await tidings.apiKeys.verify(rotated.secret)).not.toBeNull();
      clock.advance(60 * 60 * 1000);
      expect(await tidings.apiKeys.verify(created.secret)).toBeNull();
      expect((await tidings.apiKeys.list()).map((k) => [k.name, k.expired])).toEqual([['deploy', true], ['deploy', false]]);

      await tidings.apiKeys.revoke(rotated.id);
      expect(await tidings.apiKeys.verify(rotated.secret)).toBeNull();
      await expect(tidings.apiKeys.revoke(rotated.id)).rejects.toMatchObject({ code: 'not_found' });
      await expect(tidings.apiKeys.create({ name: ' ', scope: 'all' as never })).rejects.toMatchObject({ code: 'validation_failed', message: expect.stringMatching(/name[\s\S]*scope|scope[\s\S]*name/) });
      await expect(tidings.apiKeys.create({ name: 'old', expiresAt: '2020-01-01T00:00:00Z' })).rejects.toMatchObject({ code: 'validation_failed', message: expect.stringContaining('expiresAt') });
      expect((await tidings.apiKeys.list()).length).toBe(1);
    });
  });

  describe('audit log', () => {
    it('audit.list — configuration changes with who, what and when, never a credential; newest first, by kind and since, page by page', async () => {
      const clock = manualClock('2026-05-04T08:00:00.000Z');
      const tidings = createTidings({ storage: get(), clock, environmentId: 'audit' });
      await tidings.workflows.upsert({ name: 'Hello', triggers: [{ identifier: 'hello' }], steps: [{ template: { type: 'in_app', content: 'Hi' } }] });
      clock.advance(1000);
      const integration = await actingAs('key:deploy', () => tidings.integrations.upsert({ providerId: 'sendgrid', channel: 'email', identifier: 'mail', credentials: { apiKey: 'SG.very-secret', from: 'a@x.test' }, active: true }));
      clock.advance(1000);
      await actingAs('cli', () => tidings.integrations.update(integration._id, { credentials: { apiKey: 'SG.other-secret', from: 'a@x.test' } }));
      await tidings.integrations.upsert({ providerId: 'sendgrid', channel: 'email', identifier: 'mail', credentials: { apiKey: 'SG.other-secret', from: 'a@x.test' }, active: true });
      clock.advance(1000);
      await tidings.subscribers.upsert({ subscriberId: 'ada' });
      await tidings.preferences.update('ada', { channels: { email: false } });
      await tidings.workflows.delete('hello');

      const all = await tidings.audit.list();
      expect(all.items.map((e) => [e.kind, e.action, e.who])).toEqual([
        ['workflow', 'deleted', 'code'],
        ['preferences', 'updated', 'code'],
        ['integration', 'updated', 'cli'],
        ['integration', 'created', 'key:deploy'],
        ['workflow', 'created', 'code'],
      ]);
      expect(all.items[2]!.fields).toEqual(['credentials.apiKey']);
      expect(JSON.stringify(await get().records.find('audit', 'audit', {}))).not.toContain('secret');
      expect((await tidings.audit.list({ kind: 'integration' })).items.length).toBe(2);
      expect((await tidings.audit.list({ since: '2026-05-04T08:00:02Z' })).items.length).toBe(3);
      const first = await tidings.audit.list({ limit: 2 });
      const second = await tidings.audit.list({ limit: 2, cursor: first.nextCursor! });
      const third = await tidings.audit.list({ limit: 2, cursor: second.nextCursor! });
      expect([...first.items, ...second.items, ...third.items].map((e) => e.id)).toEqual(all.items.map((e) => e.id));
      expect(third.nextCursor).toBeNull();
      await expect(tidings.audit.list({ kind: 'weather' as never })).rejects.toMatchObject({ code: 'validation_failed', message: expect.stringContaining('kind') });
    });

    it('audit — kept by the retention policy: the sweep deletes entries older than retention.audit.days, and keeps the others', async () => {
      const clock = manualClock('2026-05-04T08:00:00.000Z');
      const tidings = createTidings({ storage: get(), clock, environmentId: 'audit-kept', retention: { audit: { days: 30 } } });
      await tidings.workflows.upsert({ name: 'Old', triggers: [{ identifier: 'old' }], steps: [] });
      clock.advance(20 * 86_400_000);
      await tidings.workflows.upsert({ name: 'Newer', triggers: [{ identifier: 'newer' }], steps: [] });
      clock.advance(11 * 86_400_000);
      await tidings.runDue();
      expect((await tidings.audit.list()).items.map((e) => e.target)).toEqual([expect.stringContaining('newer')]);
    });

    it('audit — an entry exists exactly when its change does: a refused change records nothing', async () => {
      const tidings = createTidings({ storage: get(), clock: manualClock('2026-05-04T08:00:00.000Z'), environmentId: 'audit-refused' });
      await expect(tidings.integrations.setPrimary('nope')).rejects.toMatchObject({ code: 'not_found' });
      await expect(tidings.apiKeys.revoke('nope')).rejects.toMatchObject({ code: 'not_found' });
      expect((await tidings.audit.list()).items).toEqual([]);
    });
  });
}
