import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chromiumAvailable, launchChromium, noteMissingChromium } from '../../../test-support/chromium.js';
import { start } from '../src/main.js';


describe.skipIf(!chromiumAvailable)('inbox page in a real browser (Chromium)', () => {
  it('a notification appears live, the CTA and mark-read reach the server, the bell counts — all with a session token, never the API key', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tidings-inbox-'));
    const apiKey = 'tid_browser_test_secret_key';
    const app = await start({ port: 0, filename: join(dir, 'inbox.db'), apiKey });
    const browser = await launchChromium();
    const calls: { url: string; authorization: string | undefined }[] = [];
    const sockets: string[] = [];
    try {
      const page = await browser.newPage();
      page.on('request', (request) => calls.push({ url: request.url(), authorization: request.headers()['authorization'] }));
      page.on('websocket', (socket) => sockets.push(socket.url()));
      await page.goto(app.url);
      await page.waitForSelector('body[data-ready="true"]');
      expect(await page.locator('#feed li').count()).toBe(0);

      const { transactionId } = await app.tidings.trigger({ name: 'invitation', to: app.subscriberId, payload: { from: 'Grace', project: 'compilers' } });
      await page.waitForSelector('#feed li');
      expect(await page.locator('#feed li p').textContent()).toBe('Grace invited you to compilers');
      await page.waitForFunction(() => document.querySelector('#unseen')?.textContent === '1');

      await page.click('#feed li button.cta.primary');
      await page.waitForSelector('#feed li button.cta.primary:disabled');
      await page.click('#feed li button.toggle-read');
      await page.waitForSelector('#feed li.read');

      // The workflow's push step is not sent here (this browser did not turn push on): the inbox message is the one.
      const stored = (await app.tidings.messages.byTransaction(transactionId!)).find((m) => m.channel === 'in_app');
      expect(stored).toMatchObject({ read: true, seen: true, cta: { action: { status: 'done', result: { type: 'primary' } } } });
      await page.waitForFunction(() => document.querySelector('#unseen')?.textContent === '0');

      // A change made elsewhere (another tab, the app's backend) reaches the open page live.
      await app.tidings.messages.markAs(app.subscriberId, { messageId: stored!._id, markAs: 'unread' });
      await page.waitForSelector('#feed li.unread');
      // Opening the panel marks what it shows as seen.
      await app.tidings.trigger({ name: 'invitation', to: app.subscriberId, payload: { from: 'Linus', project: 'kernels' } });
      await page.waitForFunction(() => document.querySelector('#unseen')?.textContent === '1');
      await page.click('#bell');
      await page.click('#bell');
      await page.waitForFunction(() => document.querySelector('#unseen')?.textContent === '0');
      expect((await app.tidings.messages.count(app.subscriberId, [{ seen: false }]))[0]!.count).toBe(0);
      await page.screenshot({ path: join(dir, 'inbox.png') });

      // The page's credential is its subscriber's session token: every API call is a Bearer call to
      // the Inbox routes, the live socket carries the token, and the API key appears nowhere.
      const apiCalls = calls.filter((call) => new URL(call.url).pathname.startsWith('/api/'));
      expect(apiCalls.length).toBeGreaterThan(0);
      for (const call of apiCalls) {
        expect(new URL(call.url).pathname).toMatch(/^\/api\/v1\/inbox\//);
        expect(call.authorization).toMatch(/^Bearer \S+$/);
      }
      expect(sockets).toEqual([expect.stringMatching(/^ws:\/\/127\.0\.0\.1:\d+\/api\/live\?token=\S+$/)]);
      expect(JSON.stringify({ calls, sockets, html: await page.content() })).not.toContain(apiKey);
    } finally {
      await browser.close();
      await app.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

noteMissingChromium('inbox page in a real browser');
