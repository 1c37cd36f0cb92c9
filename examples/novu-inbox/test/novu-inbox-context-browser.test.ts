/**
 * Novu's unchanged `<Inbox context={…} />` (`@novu/react` 3.19.2, pinned) in Debian's Chromium: a
 * workspace's page shows only the messages triggered with that workspace's context, live too; the
 * page without a context shows only those triggered with none.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { chromiumAvailable, launchChromium, noteMissingChromium } from '../../../test-support/chromium.js';
import { start } from '../src/main.js';

const rows = (page: Page) => page.locator('a.nv-notification');

describe.skipIf(!chromiumAvailable)("Novu's <Inbox context /> on tidings serve, in Chromium", () => {
  it('a workspace’s Inbox lists and counts only its context’s messages (live as well); the plain Inbox only those of no context', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tidings-novu-inbox-context-'));
    const app = await start({ apiPort: 0, pagePort: 0, db: join(dir, 'context.db') });
    const browser = await launchChromium();
    // Triggered through the HTTP API with the server's API key, as an app's backend would.
    const comment = async (post: string, workspace?: string) => {
      const response = await fetch(`${app.api.url}/v1/events/trigger`, {
        method: 'POST',
        headers: { authorization: `ApiKey ${app.api.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'comment-received', to: app.subscriberId, payload: { author: 'Grace', post }, ...(workspace && { context: { workspace } }) }),
      });
      expect(response.status).toBe(201);
    };
    const storedCount = async () => (await app.api.tidings.messages.feed(app.subscriberId, { limit: 100 })).items.length;
    try {
      await comment('Everywhere');
      await comment('Design review', 'design');
      await comment('Sales call', 'sales');
      await expect.poll(storedCount).toBe(3);

      const design = await browser.newPage();
      await design.goto(`${app.url}/workspace/design`);
      await design.waitForSelector('.nv-bellDot');
      await design.click('.nv-popoverTrigger');
      await rows(design).filter({ hasText: 'Design review' }).waitFor();
      expect(await rows(design).allInnerTexts()).toEqual([expect.stringContaining('Grace commented on Design review')]);

      // Live, while it is open: a comment in another workspace does not reach this Inbox; one in this
      // workspace does, offered as "1 new notification" over the open list (Novu's own UI).
      await comment('Sales follow-up', 'sales');
      await comment('Design sign-off', 'design');
      const notice = design.locator('.nv-notificationListNewNotificationsNotice__button');
      await notice.waitFor();
      expect(await notice.innerText()).toMatch(/\b1\b/);
      await notice.click();
      await rows(design).filter({ hasText: 'Design sign-off' }).waitFor();
      await expect.poll(storedCount).toBe(5);
      expect((await rows(design).allInnerTexts()).map((text) => /Grace commented on ([\w -]+)/.exec(text)?.[1]?.trim())).toEqual(['Design sign-off', 'Design review']);

      const plain = await browser.newPage();
      await plain.goto(app.url);
      await plain.waitForSelector('.nv-bellDot');
      await plain.click('.nv-popoverTrigger');
      await rows(plain).filter({ hasText: 'Everywhere' }).waitFor();
      expect(await rows(plain).count()).toBe(1);
    } finally {
      await browser.close();
      await app.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

noteMissingChromium("Novu's <Inbox context /> in a real browser");
