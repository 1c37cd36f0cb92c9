/**
 * The activity page in Chromium, over a served engine: triggers that deliver (in-app, and email
 * through a local provider), skip by a filter or a preference, are not sent (no address), wait on a
 * delay or a digest and fail at the provider; the page shows each, and its retry button sends the
 * failed email once the provider takes it again. A workflow edited under a waiting run: the run
 * shows the revision it keeps, the workflow's page its revisions with their diffs, and a rollback
 * from there.
 * `UPDATE_SCREENSHOTS=1` writes the screenshot of the docs (docs/activity.png).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import type { Server as HttpServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve as serveNode } from '@hono/node-server';
import { createTidings, ProviderError, type Provider } from '@tidings/core';
import { memoryStorage } from '@tidings/memory';
import { describe, expect, it } from 'vitest';
import { chromiumAvailable, launchChromium, noteMissingChromium } from '../../../test-support/chromium.js';
import { activityApp } from '../src/activity/activity-app.js';
import { createHttpApp } from '../src/index.js';
import { eventually } from './eventually.js';

const KEY = 'tid_activity_browser_key';

/** A local mail service: it answers 503 to invoices while `invoicesFail`, and takes everything else. */
function localMail() {
  const state = { invoicesFail: true, sent: [] as string[], refused: 0 };
  const provider: Provider = {
    id: 'local-mail',
    channel: 'email',
    async send(message) {
      if (state.invoicesFail && message.subject === 'Your invoice') {
        state.refused += 1;
        throw new ProviderError('the mail relay answered 503: try again later', { retryable: true, status: 503 });
      }
      state.sent.push(message.messageId);
      return { id: `local-${state.sent.length}` };
    },
  };
  return { provider, state };
}

async function start() {
  const mail = localMail();
  // Two attempts, 1 s apart: the invoice fails for good within a second or two.
  const tidings = createTidings({ storage: memoryStorage(), providers: [mail.provider], maxAttempts: 2, maxIdleMs: 100 });
  await tidings.integrations.upsert({ name: 'Local mail', identifier: 'local-mail', providerId: 'local-mail', channel: 'email', active: true, primary: true });
  // An SMS integration, and Ada has no phone: her texts are not sent (no provider is called).
  await tidings.integrations.upsert({ name: 'Local SMS', identifier: 'local-sms', providerId: 'local-sms', channel: 'sms', active: true, primary: true });
  await tidings.subscribers.upsert({ subscriberId: 'ada', firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' });
  const upsert = (identifier: string, name: string, steps: object[]) => tidings.workflows.upsert({ name, triggers: [{ identifier }], steps: steps as never });
  await upsert('welcome', 'Welcome', [{ template: { type: 'in_app', content: 'Welcome, {{ subscriber.firstName }}' } }, { template: { type: 'email', subject: 'Welcome aboard', content: 'Hello {{ subscriber.firstName }}' } }]);
  await upsert('pro-tip', 'Pro tip', [{ template: { type: 'in_app', content: 'A tip for pros' }, filters: [{ value: 'AND', children: [{ on: 'payload', field: 'plan', operator: 'EQUAL', value: 'pro' }] }] }]);
  await upsert('reminder', 'Reminder', [{ template: { type: 'delay' }, metadata: { type: 'regular', amount: 1, unit: 'hours' } }, { template: { type: 'in_app', content: 'Your trial ends soon' } }]);
  await upsert('invoice', 'Invoice', [{ template: { type: 'email', subject: 'Your invoice', content: 'Invoice {{ payload.number }}' } }]);
  await upsert('newsletter', 'Newsletter', [{ template: { type: 'email', subject: 'News', content: 'This week' } }]);
  await upsert('code', 'Login code', [{ template: { type: 'sms', content: 'Your code is 1234' } }]);
  await upsert('weekly', 'Weekly', [{ template: { type: 'digest' }, metadata: { type: 'regular', amount: 7, unit: 'days' } }, { template: { type: 'in_app', content: '{{ step.total_count }} updates' } }]);
  await tidings.preferences.update('ada', { workflowId: 'newsletter', channels: { email: false } });

  const api = createHttpApp({ environments: [{ tidings, apiKeys: [KEY] }] });
  api.route('/activity', activityApp());
  const server = await new Promise<ReturnType<typeof serveNode>>((resolve) => {
    const s = serveNode({ fetch: api.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  tidings.start();
  const close = async () => {
    await tidings.stop();
    (server as unknown as HttpServer).closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return { tidings, mail: mail.state, url, close };
}

describe.skipIf(!chromiumAvailable)('activity page in a real browser (Chromium)', () => {
  it('shows delivered, skipped, delayed and failed runs step by step; retry sends the failed email once the provider takes it; a run shows the revision it walked, its workflow the revisions with their diffs and a rollback', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tidings-activity-'));
    const [app, browser] = await Promise.all([start(), launchChromium()]);
    try {
      const { tidings } = app;
      const tx = {
        welcome: (await tidings.trigger({ name: 'welcome', to: 'ada' })).transactionId!,
        tip: (await tidings.trigger({ name: 'pro-tip', to: 'ada', payload: { plan: 'free' } })).transactionId!,
        reminder: (await tidings.trigger({ name: 'reminder', to: 'ada' })).transactionId!,
        invoice: (await tidings.trigger({ name: 'invoice', to: 'ada', payload: { number: 'INV-1042' } })).transactionId!,
        newsletter: (await tidings.trigger({ name: 'newsletter', to: 'ada' })).transactionId!,
        code: (await tidings.trigger({ name: 'code', to: 'ada' })).transactionId!,
        weekly: (await tidings.trigger({ name: 'weekly', to: 'ada' })).transactionId!,
      };
      // An edit under the waiting reminder: revision 2; the run keeps revision 1.
      const reminder = (await tidings.workflows.get('reminder'))!;
      await tidings.workflows.upsert({ name: 'Reminder', triggers: [{ identifier: 'reminder' }], steps: [reminder.steps[0]!, { ...reminder.steps[1]!, template: { type: 'in_app', content: 'Your trial ends in 3 days' } }] });
      const emailOf = async (transactionId: string) => (await tidings.messages.byTransaction(transactionId)).find((m) => m.channel === 'email');
      await eventually(async () => ((await emailOf(tx.invoice))?.status === 'error' ? true : undefined), 'the invoice to fail for good');
      await eventually(async () => ((await emailOf(tx.welcome))?.status === 'sent' ? true : undefined), 'the welcome email');
      await eventually(async () => ((await tidings.explain(tx.newsletter)).length > 0 && (await tidings.messages.byTransaction(tx.code)).length > 0 ? true : undefined), 'the newsletter and the code');
      await eventually(async () => ((await tidings.pending({ transactionId: tx.weekly })).digests.length > 0 ? true : undefined), 'the weekly digest to open');

      const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
      const authorizations = new Set<string | undefined>();
      page.on('request', (request) => {
        if (new URL(request.url()).pathname.startsWith('/v1/')) authorizations.add(request.headers()['authorization']);
      });
      await page.goto(`${app.url}/activity`);
      // A wrong key is refused and asked again; the right one opens the list.
      await page.fill('#api-key', 'wrong');
      await page.click('.key-form button[type=submit]');
      await page.waitForSelector('.key-form .problem');
      await page.fill('#api-key', KEY);
      await page.click('.key-form button[type=submit]');
      await page.waitForSelector(`article.tx[data-transaction="${tx.welcome}"]`);

      // Newest first, each with its recipient and messages.
      expect(await page.locator('article.tx').evaluateAll((cards) => cards.map((c) => c.getAttribute('data-transaction')))).toEqual([tx.weekly, tx.code, tx.newsletter, tx.invoice, tx.reminder, tx.tip, tx.welcome]);
      const badges = (transactionId: string) => page.locator(`article.tx[data-transaction="${transactionId}"] .message`).evaluateAll((els) => els.map((e) => `${e.getAttribute('data-channel')}:${e.getAttribute('data-status')}`));
      expect(await badges(tx.welcome)).toEqual(['in_app:sent', 'email:sent']);
      expect(await badges(tx.invoice)).toEqual(['email:error']);
      expect(await badges(tx.tip)).toEqual(['in_app:skipped']);
      // Skipped by her preference: a badge of its own, its reason on hover; a text with nowhere to go reads "not sent".
      expect(await badges(tx.newsletter)).toEqual(['email:skipped']);
      expect(await page.textContent(`article.tx[data-transaction="${tx.newsletter}"] .message`)).toBe('Email: skipped');
      expect(await page.getAttribute(`article.tx[data-transaction="${tx.newsletter}"] .message`, 'title')).toMatch(/email/);
      expect(await page.textContent(`article.tx[data-transaction="${tx.code}"] .message`)).toBe('SMS: not sent');

      // Filtered by channel and outcome: the skipped email alone.
      await page.selectOption('form.filters select[name=channel]', 'email');
      await page.selectOption('form.filters select[name=status]', 'skipped');
      await page.click('form.filters button[type=submit]');
      await page.waitForFunction(() => document.querySelectorAll('article.tx').length === 1);
      expect(await page.getAttribute('article.tx', 'data-transaction')).toBe(tx.newsletter);
      expect(await page.locator('form.filters select[name=status] option').allTextContents()).toEqual(['any', 'sent', 'failed', 'not sent', 'skipped']);
      await page.selectOption('form.filters select[name=channel]', '');

      // Filtered by status: only the failed invoice.
      await page.selectOption('form.filters select[name=status]', 'error');
      await page.click('form.filters button[type=submit]');
      await page.waitForFunction(() => document.querySelectorAll('article.tx').length === 1);
      expect(await page.getAttribute('article.tx', 'data-transaction')).toBe(tx.invoice);

      // Not sent: no provider named beside it, though an integration was picked.
      await page.goto(`${app.url}/activity/#/tx/${tx.code}/ada`);
      await page.waitForSelector('.messages tr[data-status="warning"]');
      expect(await page.textContent('.messages tr[data-status="warning"] td.provider')).toBe('');
      expect(await page.textContent('.messages tr[data-status="warning"] .badge')).toBe('not sent');
      // The digest's flush job names its digest, not a transaction.
      await page.goto(`${app.url}/activity/#/pending`);
      await page.waitForSelector('table.jobs tr[data-kind="digest"]');
      expect(await page.textContent('table.jobs tr[data-kind="digest"] td.of')).toMatch(/^digest \S+$/);
      expect(await page.locator('table.jobs th').allTextContents()).not.toContain('Transaction');
      // Skipped by a filter: the condition that failed, with the value it saw.
      await page.goto(`${app.url}/activity/#/tx/${tx.tip}/ada`);
      expect(await page.textContent('.step[data-decision="skipped"] .filter')).toBe('Filter payload.plan EQUAL pro did not pass: it was "free"');
      // Delayed: until when, and its pending job.
      await page.goto(`${app.url}/activity/#/tx/${tx.reminder}/ada`);
      expect(await page.textContent('.step[data-type="delay"][data-decision="delayed"] .until')).toMatch(/^until \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
      await page.waitForSelector(`table.jobs tr[data-transaction="${tx.reminder}"][data-kind="walk"]`);
      // Delivered: the integration and the provider's id of the email.
      await page.goto(`${app.url}/activity/#/tx/${tx.welcome}/ada`);
      const welcomeEmail = await emailOf(tx.welcome);
      expect(await page.textContent('.step[data-type="email"][data-decision="delivered"] .via')).toBe(`via local-mail as ${welcomeEmail!.providerMessageId}`);
      // The email as sent, in a sandboxed frame (the built-in layout around the body), and its text part.
      await page.click(`details.email-view[data-message="${welcomeEmail!._id}"] summary`);
      await page.waitForSelector('.email-view pre.email-text');
      expect(await page.textContent('.email-view pre.email-text')).toBe('Hello Ada');
      expect(await page.getAttribute('.email-view iframe.email-html', 'sandbox')).toBe('');
      const frame = page.frameLocator('.email-view iframe.email-html');
      await expect.poll(() => frame.locator('body').textContent()).toContain('Hello Ada');
      expect(await frame.locator('td', { hasText: 'Hello Ada' }).last().evaluate((td) => getComputedStyle(td).backgroundColor)).toBe('rgb(255, 255, 255)');

      // Failed: each attempt with its error; the retry button sends it once the provider takes it.
      await page.goto(`${app.url}/activity/#/tx/${tx.invoice}/ada`);
      await page.waitForSelector('.messages tr[data-channel="email"][data-status="error"]');
      expect(await page.locator('.step[data-decision="failed"] .reason').allTextContents()).toEqual(['the mail relay answered 503: try again later; will retry', 'failed: the mail relay answered 503: try again later']);
      app.mail.invoicesFail = false;
      await page.click('button.retry');
      await page.waitForSelector('.messages tr[data-channel="email"][data-status="sent"]');
      await page.waitForSelector('.run:nth-child(3) .step[data-decision="delivered"]');
      expect(app.mail.refused).toBe(2);
      // One message, sent, in the failed one's place: the welcome email was local-1.
      expect((await tidings.messages.byTransaction(tx.invoice)).map((m) => [m.status, m.providerMessageId])).toEqual([['sent', 'local-2']]);
      await page.waitForSelector('button.retry', { state: 'detached' });

      const shot = process.env['UPDATE_SCREENSHOTS'] ? fileURLToPath(new URL('../../../docs/activity.png', import.meta.url)) : join(dir, 'activity.png');
      mkdirSync(join(shot, '..'), { recursive: true });
      await page.screenshot({ path: shot, fullPage: true });

      // The run walked revision 1; its workflow's page shows revision 2's diff, and rolls back to 1 as revision 3.
      await page.goto(`${app.url}/activity/#/tx/${tx.reminder}/ada`);
      expect(await page.textContent('.run-view .trigger-revision')).toBe('1');
      expect(await page.textContent('.run h4 .revision')).toBe('revision 1');
      await page.click('.run-view a.workflow-history');
      await page.waitForSelector('li.revision[data-revision="2"] pre.diff');
      expect(await page.locator('li.revision[data-revision="2"] pre.diff .line').allTextContents()).toEqual([`~ step 2 (in_app "${reminder.steps[1]!._id}") template.content: "Your trial ends soon" → "Your trial ends in 3 days"\n`]);
      expect(await page.textContent('li.revision[data-revision="1"]')).toContain('The first revision.');
      await page.click('li.revision[data-revision="1"] button.rollback');
      await page.click('li.revision[data-revision="1"] button.rollback.confirming');
      await page.waitForSelector('li.revision[data-revision="3"] .restores');
      expect(await page.textContent('li.revision[data-revision="3"] .restores')).toBe(' · restores revision 1');
      expect(await page.textContent('li.revision[data-revision="3"] .by')).toBe('api');
      expect((await tidings.workflows.get('reminder'))!.steps[1]!.template.content).toBe('Your trial ends soon');

      // Every API call carried the key, and only in its header.
      expect([...authorizations]).toEqual(expect.arrayContaining([`ApiKey ${KEY}`]));
      expect([...authorizations].every((a) => a === `ApiKey ${KEY}` || a === 'ApiKey wrong')).toBe(true);
      expect(page.url()).not.toContain(KEY);
    } finally {
      await browser.close();
      await app.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

noteMissingChromium('activity page in a real browser');
