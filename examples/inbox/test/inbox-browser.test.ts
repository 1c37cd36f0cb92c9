import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chromiumAvailable, launchChromium, noteMissingChromium } from '../../../test-support/chromium.js';
import { start } from '../src/main.js';


describe.skipIf(!chromiumAvailable)('inbox page in a real browser (Chromium)', () => {
  it('a notification appears live, the CTA and mark-read reach the server, the bell counts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tidings-inbox-'));
    const app = await start({ port: 0, filename: join(dir, 'inbox.db') });
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
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

      const [stored] = await app.tidings.messages.byTransaction(transactionId!);
      expect(stored).toMatchObject({ read: true, seen: true, cta: { action: { status: 'done', result: { type: 'primary' } } } });
      await page.waitForFunction(() => document.querySelector('#unseen')?.textContent === '0');
      await page.screenshot({ path: join(dir, 'inbox.png') });
    } finally {
      await browser.close();
      await app.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

noteMissingChromium('inbox page in a real browser');
