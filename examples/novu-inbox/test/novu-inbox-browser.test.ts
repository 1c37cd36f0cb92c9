/**
 * Novu's unchanged `<Inbox />` (`@novu/react` 3.19.2, React 19, pinned) in Debian's Chromium, on a page
 * served from one origin and talking to `tidings serve` on another.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { chromiumAvailable, launchChromium, noteMissingChromium } from '../../../test-support/chromium.js';
import { start } from '../src/main.js';


/** The subscriber's in-app messages as the engine stores them, archived and snoozed ones included. */
async function stored(app: Awaited<ReturnType<typeof start>>) {
  const { messages } = app.api.tidings;
  const pages = await Promise.all([false, true].flatMap((archived) => [false, true].map((snoozed) => messages.feed(app.subscriberId, { archived, snoozed, limit: 100 }))));
  return pages.flatMap((p) => p.items);
}

const row = (page: Page, text: string) => page.locator('a.nv-notification', { hasText: text });

describe.skipIf(!chromiumAvailable)("Novu's <Inbox /> on tidings serve, in Chromium", () => {
  it('bell, list, live delivery, read/unread, CTA, archive, snooze and preferences — each reaching the engine; nothing leaves 127.0.0.1', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tidings-novu-inbox-'));
    const app = await start({ apiPort: 0, pagePort: 0, db: join(dir, 'inbox.db') });
    const browser = await launchChromium();
    const reached: string[] = [];
    try {
      const page = await browser.newPage();
      page.on('request', (request) => reached.push(request.url()));
      page.on('websocket', (socket) => reached.push(socket.url()));
      // Triggered through the HTTP API with the server's API key, as an app's backend would.
      const comment = async (post: string): Promise<{ transactionId?: string }> => {
        const response = await fetch(`${app.api.url}/v1/events/trigger`, {
          method: 'POST',
          headers: { authorization: `ApiKey ${app.api.apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'comment-received', to: app.subscriberId, payload: { author: 'Grace', post } }),
        });
        expect(response.status).toBe(201);
        return ((await response.json()) as { data: { transactionId?: string } }).data;
      };

      await page.goto(app.url);
      await page.waitForSelector('.nv-popoverTrigger');
      expect(await page.locator('.nv-bellDot').count()).toBe(0);

      // Live: triggered while the page is open, it rings the bell (high severity) with no reload.
      await comment('Compilers');
      await page.waitForSelector('.nv-bellDot');
      expect(await page.locator('.nv-severityHigh__bellContainer').count()).toBe(1);
      await page.click('.nv-popoverTrigger');
      await row(page, 'Grace commented on Compilers').waitFor();

      // Read and unread from the row's own buttons; each change is stored.
      const first = row(page, 'Grace commented on Compilers');
      await first.hover();
      await first.locator('.nv-notificationRead__button').click();
      await expect.poll(async () => (await stored(app)).find((m) => m.content === 'Grace commented on Compilers')?.read).toBe(true);
      await page.waitForSelector('.nv-bellDot', { state: 'detached' });
      await first.hover();
      await first.locator('.nv-notificationUnread__button').click();
      await expect.poll(async () => (await stored(app)).find((m) => m.content === 'Grace commented on Compilers')?.read).toBe(false);

      // The CTA's primary action.
      await first.locator('.nv-notificationPrimaryAction__button').click();
      await expect.poll(async () => (await stored(app)).find((m) => m.content === 'Grace commented on Compilers')?.cta.action).toMatchObject({ status: 'done', result: { type: 'primary' } });

      // Archive.
      await first.hover();
      await first.locator('.nv-notificationArchive__button').click();
      await expect.poll(async () => (await stored(app)).find((m) => m.content === 'Grace commented on Compilers')).toMatchObject({ archived: true, read: true });

      // Snooze, from the row's menu.
      await comment('Engines');
      await page.click('.nv-popoverTrigger');
      await page.click('.nv-popoverTrigger');
      const second = row(page, 'Grace commented on Engines');
      await second.waitFor();
      await second.hover();
      await second.locator('.nv-notificationSnooze__button').click();
      // The menu's first choice, "An hour from now" (chosen with the keyboard, as the menu is a portal).
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('Enter');
      await expect.poll(async () => (await stored(app)).find((m) => m.content === 'Grace commented on Engines')?.snoozedUntil).toBeDefined();

      // Preferences: email off for the workflow, and the next trigger sends no email.
      await page.click('.nv-preferences__button');
      const workflow = page.locator('.nv-workflowContainer', { hasText: 'Comment received' });
      await workflow.locator('.nv-workflowLabelContainer').click();
      await workflow.locator('.nv-channelContainer', { hasText: 'Email' }).locator('.nv-channelSwitch').click();
      await expect
        .poll(async () => (await app.api.tidings.preferences.get(app.subscriberId)).workflows.find((w) => w.workflow.identifier === 'comment-received')?.channels.email)
        .toBe(false);
      const { transactionId } = await comment('Kernels');
      await expect.poll(async () => (await app.api.tidings.explain(transactionId!)).length, { timeout: 10_000 }).toBeGreaterThan(0);
      expect((await app.api.tidings.messages.byTransaction(transactionId!)).map((m) => m.channel)).toEqual(['in_app']);

      const hosts = new Set(reached.map((url) => new URL(url).hostname));
      expect([...hosts]).toEqual(['127.0.0.1']);
      expect(reached.some((url) => url.startsWith('ws://127.0.0.1') && url.includes('/socket.io/'))).toBe(true);
    } finally {
      await browser.close();
      await app.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

noteMissingChromium("Novu's <Inbox /> in a real browser");
