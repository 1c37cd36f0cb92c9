import { describe, expect, it } from 'vitest';
import { manualClock } from '../../clock.js';
import type { Provider, ProviderMessage } from '../../delivery/provider.js';
import { createTidings } from '../../engine/create-tidings.js';
import { isTidingsError } from '../../errors.js';
import type { PreferenceChange } from '../../schemas/index.js';
import type { SuiteContext } from '../storage-under-test.js';

const BASE = 'https://notify.example.test';
const tokenOf = (message: ProviderMessage) => /\/unsubscribe\/([\w-]+\.[\w-]+)>/.exec(message.headers?.['List-Unsubscribe'] ?? '')?.[1];

/** Categories, the category level of preferences, unsubscribe scopes and the audit trail, on every backend. */
export function categoriesSuite({ get }: SuiteContext): void {
  describe('categories and the way out over this storage', () => {
    async function engine(environmentId: string) {
      const sent: ProviderMessage[] = [];
      const mail: Provider = { id: 'mailer', channel: 'email', send: async (message) => (sent.push(message), { id: `pm-${sent.length}` }) };
      const hooks: string[] = [];
      const webhookTransport = async ({ body }: { body: string }) => (hooks.push(body), { status: 200 });
      const tidings = createTidings({ storage: get(), clock: manualClock('2026-06-01T12:00:00.000Z'), environmentId, providers: [mail], links: { baseUrl: BASE }, webhookTransport });
      const changes: PreferenceChange[] = [];
      tidings.events.on('preference.updated', ({ change }) => changes.push(change));
      await tidings.integrations.upsert({ name: 'Mail', identifier: 'mail', providerId: 'mailer', channel: 'email', active: true, primary: true });
      const email = (name: string, identifier: string, extra: Record<string, unknown> = {}) =>
        tidings.workflows.upsert({ name, triggers: [{ identifier }], steps: [{ template: { type: 'in_app', content: name } }, { template: { type: 'email', subject: name, content: `<p>${name}</p>` } }], ...extra });
      await email('Weekly news', 'news', { category: 'marketing' });
      await email('Spring sale', 'sale', { tags: ['category:marketing', 'promo'] });
      await email('New feature', 'feature', { category: 'product-updates' });
      await email('Receipt', 'receipt', { category: 'transactional' });
      return { tidings, sent, changes, hooks };
    }
    const send = async (tidings: Awaited<ReturnType<typeof engine>>['tidings'], name: string, to: string) => {
      const { transactionId } = await tidings.trigger({ name, to: { subscriberId: to, email: `${to}@x.test` } });
      await tidings.runDue();
      return transactionId!;
    };

    it('categories — stored with a name, listed, deleted; a bad key or a bad workflow category is refused naming the field; a tag category:<key> sets it', async () => {
      const { tidings } = await engine('cat-records');
      expect(await tidings.categories.upsert('marketing', { description: 'Offers and news' })).toMatchObject({ key: 'marketing', name: 'Marketing', description: 'Offers and news' });
      expect(await tidings.categories.upsert('marketing', { name: 'Offers' })).toMatchObject({ name: 'Offers', description: 'Offers and news' });
      await tidings.categories.upsert('product-updates', { unsubscribe: 'workflow' });
      expect((await tidings.categories.list()).map((c) => c.key)).toEqual(['marketing', 'product-updates']);
      for (const [call, path] of [
        [() => tidings.categories.upsert('Not OK', {}), ''],
        [() => tidings.categories.upsert('ok', { unsubscribe: 'sometimes' as never }), 'unsubscribe'],
        [() => tidings.workflows.upsert({ name: 'x', triggers: [{ identifier: 'x' }], category: 'Bad Key' }), 'category'],
        [() => tidings.preferences.update('nobody', { categories: { 'BAD KEY': { email: false } } }), 'categories.BAD KEY'],
      ] as const) {
        const refused = await call().catch((e: unknown) => e);
        expect(isTidingsError(refused, 'validation_failed'), String(refused)).toBe(true);
        if (path) expect((refused as { issues: { path: string }[] }).issues[0]!.path).toBe(path);
      }
      expect(await tidings.workflows.get('x')).toBeNull();
      expect((await tidings.workflows.get('sale'))?.category).toBe('marketing');
      await tidings.categories.delete('product-updates');
      expect(await tidings.categories.get('product-updates')).toBeNull();
      await expect(tidings.categories.delete('product-updates')).rejects.toSatisfy((e) => isTidingsError(e, 'not_found'));
    });

    it('preferences — a category turned off skips its workflows\' email, with the reason in explain; a workflow\'s own choice beats its category; a later category choice clears it', async () => {
      const { tidings, sent } = await engine('cat-levels');
      await tidings.subscribers.upsert({ subscriberId: 'ana' });
      await tidings.categories.upsert('marketing', { name: 'Offers', description: 'Sales and news' });
      const after = await tidings.preferences.update('ana', { categories: { marketing: { email: false } } });
      expect(after.categories).toEqual([
        { key: 'marketing', name: 'Offers', description: 'Sales and news', channels: { in_app: true, email: false }, workflows: ['news', 'sale'] },
        { key: 'product-updates', name: 'Product updates', channels: { in_app: true, email: true }, workflows: ['feature'] },
        { key: 'transactional', name: 'Transactional', channels: { in_app: true, email: true }, workflows: ['receipt'] },
      ]);
      expect(after.workflows.find((w) => w.workflow.identifier === 'news')).toMatchObject({ category: 'marketing', channels: { in_app: true, email: false } });
      const news = await send(tidings, 'news', 'ana');
      await send(tidings, 'feature', 'ana');
      expect(sent.map((m) => m.subject)).toEqual(['New feature']);
      const [trace] = await tidings.explain(news);
      expect(trace!.entries.map((e) => e.reason)).toContain('email is off by the subscriber\'s preferences for the category "marketing"');

      await tidings.preferences.update('ana', { workflowId: 'sale', channels: { email: true } });
      await send(tidings, 'sale', 'ana');
      await send(tidings, 'news', 'ana');
      expect(sent.map((m) => m.subject)).toEqual(['New feature', 'Spring sale']);

      await tidings.preferences.update('ana', { categories: { marketing: { email: false } } });
      await send(tidings, 'sale', 'ana');
      expect(sent).toHaveLength(2);
      await tidings.preferences.update('ana', { channels: { email: true } });
      await send(tidings, 'sale', 'ana');
      expect(sent.map((m) => m.subject)).toEqual(['New feature', 'Spring sale', 'Spring sale']);
    });

    it('one-click — a category\'s email carries the headers and opts out of the whole category, once; a transactional or "none" category carries none; every change is in the audit trail and emitted', async () => {
      const { tidings, sent, changes, hooks } = await engine('cat-links');
      await tidings.webhooks.create({ url: 'https://hooks.example.com/prefs', events: ['preference.updated'] });
      await tidings.categories.upsert('product-updates', { unsubscribe: 'none' });
      await send(tidings, 'news', 'bo');
      await send(tidings, 'feature', 'bo');
      await send(tidings, 'receipt', 'bo');
      expect(sent.map((m) => [m.subject, m.headers?.['List-Unsubscribe-Post'] ?? null])).toEqual([
        ['Weekly news', 'List-Unsubscribe=One-Click'],
        ['New feature', null],
        ['Receipt', null],
      ]);
      const token = tokenOf(sent[0]!)!;
      expect(await tidings.preferences.openLink(token)).toMatchObject({ subscriberId: 'bo', category: 'marketing', purpose: 'unsubscribe' });
      expect(await tidings.preferences.unsubscribe(token)).toMatchObject({ changed: true, category: 'marketing' });
      expect(await tidings.preferences.unsubscribe(token)).toMatchObject({ changed: false });
      await send(tidings, 'sale', 'bo');
      expect(sent).toHaveLength(3);

      await tidings.preferences.update('bo', { channels: { sms: false } }, { origin: 'api' });
      const history = await tidings.preferences.history('bo');
      expect(history.map((h) => h.origin)).toEqual(['api', 'one-click']);
      expect(history[1]).toMatchObject({ subscriberId: 'bo', at: '2026-06-01T12:00:00.000Z', patches: [{ categories: { marketing: { email: false } } }], scope: { purpose: 'unsubscribe', category: 'marketing' } });
      expect(changes.map((c) => c.id)).toEqual(history.map((h) => h.id).reverse());
      // The webhook event of each change, written in its transaction, delivered by the engine's jobs.
      await tidings.runDue();
      const delivered = hooks.map((body) => JSON.parse(body) as { type: string; data: { change: PreferenceChange } });
      expect(delivered.map((e) => [e.type, e.data.change.origin, e.data.change.id])).toEqual(history.map((h) => ['preference.updated', h.origin, h.id]).reverse());
      expect(await tidings.preferences.history('bo', { limit: 1 })).toHaveLength(1);
      await expect(tidings.preferences.history('bo', { limit: 0 })).rejects.toSatisfy((e) => isTidingsError(e, 'validation_failed'));
      await expect(tidings.preferences.update('bo', {}, { origin: 'fax' as never })).rejects.toSatisfy((e) => isTidingsError(e, 'validation_failed'));

      await tidings.subscribers.delete('bo');
      expect(await tidings.preferences.history('bo')).toEqual([]);
    });
  });
}
