import { describe, expect, it } from 'vitest';
import { manualClock } from '../../clock.js';
import type { Provider, ProviderMessage } from '../../delivery/provider.js';
import { createTidings } from '../../engine/create-tidings.js';
import { isTidingsError } from '../../errors.js';
import type { SuiteContext } from '../storage-under-test.js';

/** Contexts (Novu's): stored, resolved on triggers, in templates and filters, and the feed's exact-match scope, on every backend. */
export function contextsSuite({ get }: SuiteContext): void {
  describe('contexts over this storage', () => {
    async function engine(environmentId: string) {
      const sent: ProviderMessage[] = [];
      const mail: Provider = { id: 'mailer', channel: 'email', send: async (message) => (sent.push(message), { id: `pm-${sent.length}` }) };
      const tidings = createTidings({ storage: get(), clock: manualClock('2026-06-01T12:00:00.000Z'), environmentId, providers: [mail] });
      await tidings.integrations.upsert({ name: 'Mail', identifier: 'mail', providerId: 'mailer', channel: 'email', active: true, primary: true });
      await tidings.workflows.upsert({
        name: 'Comment',
        triggers: [{ identifier: 'comment' }],
        steps: [
          { template: { type: 'in_app', content: 'New comment in {{ context.tenant.data.name | default: "your team" }} ({{ context.tenant.id }})' } },
          { template: { type: 'email', subject: 'For {{ context.app.id }}', content: '<p>{{ context.tenant.data.plan }}</p>' }, filters: [{ value: 'AND', children: [{ on: 'context', field: 'tenant.data.plan', operator: 'EQUAL', value: 'pro' }] }] },
        ],
      });
      return { tidings, sent };
    }
    const feedOf = async (tidings: Awaited<ReturnType<typeof engine>>['tidings'], context?: Record<string, string> | null) =>
      (await tidings.messages.feed('ada', { limit: 50, ...(context !== undefined && { context }) })).items.map((m) => m.content);

    it('contexts — created, read, listed by type and id in pages, data replaced, deleted; a taken key is a conflict; bad input names the field and stores nothing', async () => {
      const { tidings } = await engine('ctx-records');
      const acme = await tidings.contexts.create({ type: 'tenant', id: 'acme', data: { name: 'Acme' } });
      expect(acme).toMatchObject({ type: 'tenant', id: 'acme', data: { name: 'Acme' }, createdAt: '2026-06-01T12:00:00.000Z' });
      await tidings.contexts.create({ type: 'tenant', id: 'globex' });
      await tidings.contexts.create({ type: 'app', id: 'acme' });
      await expect(tidings.contexts.create({ type: 'tenant', id: 'acme' })).rejects.toMatchObject({ code: 'conflict' });
      for (const bad of [{ type: 'Tenant', id: 'x' }, { type: 'tenant', id: 'a b' }, { type: 'tenant', id: 'x', data: 'no' }, { type: 'tenant', id: 'x', extra: 1 }]) {
        const error = await tidings.contexts.create(bad as never).catch((e: unknown) => e);
        expect(isTidingsError(error, 'validation_failed')).toBe(true);
        expect((error as { issues: { path: string }[] }).issues[0]!.path).toMatch(/^(type|id|data|extra|)$/);
      }
      expect((await tidings.contexts.list({ limit: 50 })).totalCount).toBe(3);
      const first = await tidings.contexts.list({ limit: 2 });
      expect(first.data.map((c) => `${c.type}:${c.id}`)).toEqual(['app:acme', 'tenant:acme']);
      const second = await tidings.contexts.list({ limit: 2, after: first.next! });
      expect(second).toMatchObject({ next: null, totalCount: 3 });
      expect(second.data.map((c) => `${c.type}:${c.id}`)).toEqual(['tenant:globex']);
      expect((await tidings.contexts.list({ type: 'tenant' })).data.map((c) => c.id)).toEqual(['acme', 'globex']);
      expect((await tidings.contexts.list({ id: 'acme' })).data.map((c) => c.type)).toEqual(['app', 'tenant']);
      expect(await tidings.contexts.update('tenant', 'acme', { data: { plan: 'pro' } })).toMatchObject({ data: { plan: 'pro' } });
      await expect(tidings.contexts.update('tenant', 'nobody', { data: {} })).rejects.toMatchObject({ code: 'not_found' });
      await tidings.contexts.delete('tenant', 'globex');
      expect(await tidings.contexts.get('tenant', 'globex')).toBeNull();
      await expect(tidings.contexts.delete('tenant', 'globex')).rejects.toMatchObject({ code: 'not_found' });
    });

    it('a trigger’s contexts — data given is stored and read by later triggers naming the id; templates, filters and message keys see them; more than five is refused', async () => {
      const { tidings, sent } = await engine('ctx-trigger');
      await tidings.trigger({ name: 'comment', to: { subscriberId: 'ada', email: 'ada@x.test' }, context: { tenant: { id: 'acme', data: { name: 'Acme', plan: 'pro' } }, app: 'jira' } });
      await tidings.runDue();
      expect(await tidings.contexts.get('tenant', 'acme')).toMatchObject({ data: { name: 'Acme', plan: 'pro' } });
      // Named by id alone, the stored data is what the run sees.
      await tidings.trigger({ name: 'comment', to: 'ada', context: { tenant: 'acme' } });
      // An unknown context named by id has no data: the filter on its plan fails, the default applies.
      await tidings.trigger({ name: 'comment', to: 'ada', context: { tenant: 'initech' } });
      await tidings.runDue();
      const all = (await tidings.messages.feed('ada', { limit: 50, channel: 'in_app' })).items;
      expect(all.map((m) => [m.content, m.contextKeys])).toEqual([
        ['New comment in your team (initech)', ['tenant:initech']],
        ['New comment in Acme (acme)', ['tenant:acme']],
        ['New comment in Acme (acme)', ['app:jira', 'tenant:acme']],
      ]);
      expect(sent.map((m) => [m.subject, m.html?.includes('<p>pro</p>')])).toEqual([['For jira', true], ['For ', true]]);
      // In one bulk call, a later event naming a context by id sees the data an earlier one gave it.
      await tidings.triggerBulk([
        { name: 'comment', to: 'bob', context: { tenant: { id: 'umbrella', data: { name: 'Umbrella' } } } },
        { name: 'comment', to: 'bob', context: { tenant: 'umbrella' } },
      ]);
      await tidings.runDue();
      expect((await tidings.messages.feed('bob', { limit: 10, channel: 'in_app' })).items.map((m) => m.content)).toEqual(['New comment in Umbrella (umbrella)', 'New comment in Umbrella (umbrella)']);
      const six = Object.fromEntries(['a', 'b', 'c', 'd', 'e', 'f'].map((type) => [type, 'x']));
      await expect(tidings.trigger({ name: 'comment', to: 'ada', context: six })).rejects.toMatchObject({ code: 'validation_failed' });
      await expect(tidings.trigger({ name: 'comment', to: 'ada', context: { tenant: 'Not Valid' } })).rejects.toMatchObject({ code: 'validation_failed' });
      expect((await tidings.contexts.list()).totalCount).toBe(2);
    });

    it('the feed, counts and bulk changes scope to exactly a context: messages of another context, or of none, stay out, and without a context only those of none show', async () => {
      const { tidings } = await engine('ctx-scope');
      await tidings.workflows.upsert({ name: 'Note', triggers: [{ identifier: 'note' }], steps: [{ template: { type: 'in_app', content: '{{ payload.n }}' } }] });
      const note = (n: string, context?: Record<string, string>) => tidings.trigger({ name: 'note', to: 'ada', payload: { n }, ...(context && { context }) });
      await note('none');
      await note('acme', { tenant: 'acme' });
      await note('acme+jira', { app: 'jira', tenant: 'acme' });
      await note('globex', { tenant: 'globex' });
      await tidings.runDue();
      expect(await feedOf(tidings)).toHaveLength(4);
      expect(await feedOf(tidings, {})).toEqual(['none']);
      expect(await feedOf(tidings, null)).toEqual(['none']);
      expect(await feedOf(tidings, { tenant: 'acme' })).toEqual(['acme']);
      // The order of the types does not matter; the set of contexts must be the same.
      expect(await feedOf(tidings, { tenant: 'acme', app: 'jira' })).toEqual(['acme+jira']);
      const [acme, none] = await tidings.messages.count('ada', [{ read: false, context: { tenant: 'acme' } }, { read: false, context: {} }]);
      expect([acme!.count, none!.count]).toEqual([1, 1]);
      await tidings.messages.readAll('ada', { context: { tenant: 'acme' } });
      expect((await tidings.messages.feed('ada', { limit: 50, read: false })).items.map((m) => m.content)).toEqual(['globex', 'acme+jira', 'none']);
      await tidings.messages.archiveAll('ada', { context: {} });
      expect((await tidings.messages.feed('ada', { limit: 50, archived: true })).items.map((m) => m.content)).toEqual(['none']);
    });
  });
}
