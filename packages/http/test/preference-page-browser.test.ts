/**
 * The preference page in Chromium, for two brands and two locales: it wears the brand, speaks the
 * subscriber's language, works without JavaScript (the page runs none), and toggling a setting there
 * is what `preferences.get` then reads. `UPDATE_SCREENSHOTS=1` writes docs/preference-pages/.
 */
import { createHmac } from 'node:crypto';
import { mkdirSync, mkdtempSync } from 'node:fs';
import type { Server as HttpServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve as serveNode } from '@hono/node-server';
import { createTidings } from '@tidings/core';
import { memoryStorage } from '@tidings/memory';
import { describe, expect, it } from 'vitest';
import { chromiumAvailable, launchChromium, noteMissingChromium } from '../../../test-support/chromium.js';
import { createHttpApp } from '../src/index.js';

noteMissingChromium('the preference page in a real browser (Chromium)');

describe.skipIf(!chromiumAvailable)('the preference page in a real browser (Chromium)', () => {
  it('two brands × two locales; unchecking a category\'s email and saving is seen by preferences.get and by Novu\'s Inbox preferences', async () => {
    // The links must point at the server, whose port is known once it listens: it serves the app made then.
    let api: ReturnType<typeof createHttpApp> | undefined;
    const server = await new Promise<ReturnType<typeof serveNode>>((resolve) => {
      const s = serveNode({ fetch: (request) => api!.fetch(request), port: 0, hostname: '127.0.0.1' }, () => resolve(s));
    });
    const address = server.address();
    const baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    const tidings = createTidings({ storage: memoryStorage(), links: { baseUrl } });
    api = createHttpApp({ environments: [{ tidings, apiKeys: ['key'], applicationIdentifier: 'app' }] });
    /** The Inbox's view of a workflow's channels, as Novu's <Inbox /> reads it (its session, then GET /v1/inbox/preferences). */
    const inboxChannels = async (subscriberId: string, workflowId: string) => {
      const subscriberHash = createHmac('sha256', 'key').update(subscriberId).digest('hex');
      const session = await api!.request('/v1/inbox/session', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ applicationIdentifier: 'app', subscriber: { subscriberId }, subscriberHash }) });
      const { token } = ((await session.json()) as { data: { token: string } }).data;
      const list = (await (await api!.request('/v1/inbox/preferences', { headers: { authorization: `Bearer ${token}` } })).json()) as { data: { workflow?: { identifier: string }; channels: Record<string, boolean> }[] };
      return list.data.find((p) => p.workflow?.identifier === workflowId)?.channels;
    };
    const shotsDir = process.env['UPDATE_SCREENSHOTS'] ? fileURLToPath(new URL('../../../docs/preference-pages/', import.meta.url)) : mkdtempSync(join(tmpdir(), 'tidings-pref-shots-'));
    mkdirSync(shotsDir, { recursive: true });
    const browser = await launchChromium();
    try {
      await tidings.brands.upsert({ name: 'Acme', colors: { primary: '#d92d20', background: '#fdf2f2' }, footer: 'Acme Inc., 1 Main Street' });
      await tidings.tenants.upsert({ identifier: 'globex' });
      await tidings.brands.upsert({ tenant: 'globex', name: 'Globex', colors: { primary: '#0b6bcb', background: '#eef5fc' }, footer: 'Globex Corporation' });
      await tidings.translations.upsert({ locale: 'pt-BR', entries: { tidings: { pages: { preferencesTitle: 'Preferências de notificação', allNotifications: 'Todas as notificações', save: 'Salvar', saved: 'Salvo.', channel: { email: 'E-mail', in_app: 'No app' } } } } });
      await tidings.categories.upsert('product-news', { name: 'Product news', description: 'What is new, once a week' });
      await tidings.workflows.upsert({ name: 'Weekly digest', category: 'product-news', triggers: [{ identifier: 'weekly' }], steps: [{ template: { type: 'email', subject: 'Week', content: 'x' } }, { template: { type: 'in_app', content: 'x' } }] });
      await tidings.workflows.upsert({ name: 'Password reset', critical: true, triggers: [{ identifier: 'reset' }], steps: [{ template: { type: 'email', subject: 'Reset', content: 'x' } }] });
      for (const tenant of [undefined, 'globex'] as const) {
        for (const locale of ['en', 'pt-BR'] as const) {
          const subscriberId = `${tenant ?? 'acme'}-${locale}`;
          await tidings.subscribers.upsert({ subscriberId, email: `${subscriberId}@x.test`, locale });
          const { url } = await tidings.preferences.link(subscriberId, { ...(tenant && { tenant }) });
          const page = await browser.newPage({ viewport: { width: 480, height: 720 }, javaScriptEnabled: false });
          await page.goto(url);
          expect(await page.textContent('h1')).toBe(locale === 'pt-BR' ? 'Preferências de notificação' : 'Notification preferences');
          expect(await page.textContent('footer')).toBe(tenant ? 'Globex Corporation' : 'Acme Inc., 1 Main Street');
          expect(await page.getAttribute('html', 'lang')).toBe(locale);
          await page.screenshot({ path: join(shotsDir, `${tenant ?? 'acme'}-${locale}.png`), fullPage: true });
          expect(await page.textContent('fieldset:nth-of-type(2) legend')).toBe('Product news');
          // The label names the control: clicking it unchecks the category's box, and Save posts the form.
          await page.getByLabel(locale === 'pt-BR' ? 'E-mail' : 'Email').nth(1).click();
          await page.click('button[type=submit]');
          await page.waitForSelector('p[role=status]');
          const after = await tidings.preferences.get(subscriberId);
          expect(after.categories.find((c) => c.key === 'product-news')?.channels).toMatchObject({ email: false, in_app: true });
          expect(after.workflows.find((w) => w.workflow.identifier === 'weekly')?.channels).toMatchObject({ email: false, in_app: true });
          expect(await inboxChannels(subscriberId, 'weekly')).toMatchObject({ email: false, in_app: true });
          expect((await tidings.preferences.history(subscriberId))[0]).toMatchObject({ origin: 'page', patches: [{ categories: { 'product-news': { email: false } } }] });
          await page.close();
        }
      }
    } finally {
      await browser.close();
      (server as unknown as HttpServer).closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
