/**
 * Novu's unchanged `<Subscription />` (`@novu/react` 3.19.2, pinned) in Debian's Chromium, on the
 * example's `/subscription` page, talking to `tidings serve` on another origin: subscribe, turn the
 * subscription's workflow off, a trigger to the topic held to it, unsubscribe.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chromiumAvailable, launchChromium, noteMissingChromium } from '../../../test-support/chromium.js';
import { RELEASE_TOPIC, start } from '../src/main.js';

describe.skipIf(!chromiumAvailable)("Novu's <Subscription /> on tidings serve, in Chromium", () => {
  it('subscribes, turns the workflow off for the subscription (a trigger to the topic then skips it), and unsubscribes — each reaching the engine', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tidings-novu-subscription-'));
    const app = await start({ apiPort: 0, pagePort: 0, db: join(dir, 'subscription.db') });
    const browser = await launchChromium();
    const { tidings } = app.api;
    const subscription = () => tidings.topics.subscriptions.get(app.subscriberId, RELEASE_TOPIC);
    // Triggered through the HTTP API with the server's API key, as an app's backend would.
    const release = async (version: string): Promise<string> => {
      const response = await fetch(`${app.api.url}/v1/events/trigger`, {
        method: 'POST',
        headers: { authorization: `ApiKey ${app.api.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'release-notes', to: { type: 'Topic', topicKey: RELEASE_TOPIC }, payload: { version } }),
      });
      expect(response.status).toBe(201);
      return ((await response.json()) as { data: { transactionId: string } }).data.transactionId;
    };
    /** Who got in-app messages of a trigger, once its walks (`walks` of them) are done: nothing pending, each decided. */
    const inAppOf = async (transactionId: string, walks: number) => {
      const done = async () => (await tidings.pending({ transactionId })).jobs.length === 0 && new Set((await tidings.explain(transactionId)).map((r) => r.subscriberId)).size === walks;
      await expect.poll(done, { timeout: 10_000 }).toBe(true);
      return (await tidings.messages.byTransaction(transactionId)).filter((m) => m.channel === 'in_app').map((m) => m.subscriberId);
    };
    try {
      const page = await browser.newPage();
      await page.goto(`${app.url}/subscription`);
      const button = page.locator('.nv-subscriptionButton__button');
      await button.filter({ hasText: 'Subscribe' }).waitFor();
      // The button can show before the page's Inbox session (which makes the subscriber) is answered.
      await expect.poll(() => tidings.subscribers.get(app.subscriberId).then((found) => found !== null, () => false), { timeout: 10_000 }).toBe(true);
      expect(await subscription()).toBeNull();

      // Subscribe: the membership, with Novu's default identifier and the workflow the page lists, on.
      await button.click();
      await button.filter({ hasText: 'Unsubscribe' }).waitFor();
      await expect.poll(subscription).toMatchObject({ identifier: `tk_${RELEASE_TOPIC}:si_${app.subscriberId}`, preferences: [{ workflowIdentifier: 'release-notes', enabled: true, stored: true }] });
      expect(await tidings.topics.memberPage(RELEASE_TOPIC, { limit: 10 })).toEqual([app.subscriberId]);

      // The cog lists the subscription's workflow, checked; unchecking it turns the workflow off for this subscription.
      await page.locator('.nv-subscription__popoverTrigger').click();
      const row = page.locator('.nv-subscriptionPreferenceRow', { hasText: 'Release notes' });
      await row.waitFor();
      expect(await row.locator('input[type="checkbox"]').isChecked()).toBe(true);
      await row.locator('label').click();
      await expect.poll(async () => (await subscription())?.preferences[0]).toMatchObject({ enabled: false, channels: { in_app: false, email: false } });
      expect(await row.locator('input[type="checkbox"]').isChecked()).toBe(false);
      // The subscriber's own preferences are untouched: the subscription holds its own.
      expect((await tidings.preferences.get(app.subscriberId)).workflows.find((w) => w.workflow.identifier === 'release-notes')).toMatchObject({ enabled: true, channels: { in_app: true, email: true } });

      // A trigger to the topic: a plain member gets it; the subscriber, reached through the turned-off subscription, does not.
      await tidings.subscribers.upsert({ subscriberId: 'grace' });
      await tidings.topics.addSubscribers(RELEASE_TOPIC, ['grace']);
      const held = await release('1.1');
      expect(await inAppOf(held, 2)).toEqual(['grace']);
      const [decision] = await tidings.explain(held, app.subscriberId);
      expect(decision!.entries.map((e) => [e.type, e.decision, e.reason])).toEqual([
        ['in_app', 'skipped', `the workflow is off in the subscription "tk_${RELEASE_TOPIC}:si_${app.subscriberId}" to topic "${RELEASE_TOPIC}"`],
        ['email', 'skipped', `the workflow is off in the subscription "tk_${RELEASE_TOPIC}:si_${app.subscriberId}" to topic "${RELEASE_TOPIC}"`],
      ]);

      // Checked again, the next trigger reaches the subscriber.
      await row.locator('label').click();
      await expect.poll(async () => (await subscription())?.preferences[0]?.enabled).toBe(true);
      expect((await inAppOf(await release('1.2'), 2)).sort()).toEqual([app.subscriberId, 'grace'].sort());

      // Unsubscribe: the membership and its subscription go; the next trigger passes the subscriber by.
      await page.keyboard.press('Escape');
      await button.click();
      await button.filter({ hasText: 'Subscribe' }).waitFor();
      await expect.poll(subscription).toBeNull();
      expect(await tidings.topics.memberPage(RELEASE_TOPIC, { limit: 10 })).toEqual(['grace']);
      expect(await inAppOf(await release('1.3'), 1)).toEqual(['grace']);
    } finally {
      await browser.close();
      await app.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

noteMissingChromium("Novu's <Subscription /> in a real browser");
