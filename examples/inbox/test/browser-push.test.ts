/**
 * "Notify me in this browser" in Chromium, offline, against a local push service that plays the
 * protocol (./push-service.ts). Chromium's own `pushManager.subscribe()` would ask Google's push
 * service, so the test stands in for that one call: it returns a subscription on the local service,
 * bound to the key the page asked with, whose browser keys the test holds. Everything else is real:
 * the page's button, its service worker, the POST to the app, the engine's push step through the
 * web-push provider, the VAPID-signed encrypted request — and the decrypted message is delivered to
 * the service worker through DevTools (`ServiceWorker.deliverPushMessage`), as the push service's
 * connection to the browser would.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chromiumAvailable, launchChromium, noteMissingChromium } from '../../../test-support/chromium.js';
import { start } from '../src/main.js';
import { accepted, localPushService, type SubscriptionJson } from './push-service.js';

type App = Awaited<ReturnType<typeof start>>;

/** The subscriber's web-push device tokens, parsed. */
const browserSubscriptions = async (app: App) =>
  ((await app.tidings.subscribers.get(app.subscriberId))!.channels.find((c) => c.providerId === 'web-push')?.credentials.deviceTokens ?? []).map((t) => JSON.parse(t) as SubscriptionJson);

/**
 * Runs in the page before its scripts: `PushManager.prototype.subscribe` asks the local push service
 * (through a function the test exposes) instead of Google's, refusing what Chromium refuses.
 */
function subscribeThroughLocalService() {
  const base64url = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  PushManager.prototype.subscribe = async function (options?: PushSubscriptionOptionsInit) {
    if (options?.userVisibleOnly !== true) throw new DOMException('Chromium requires userVisibleOnly: true', 'NotAllowedError');
    const key = options.applicationServerKey;
    if (!key) throw new DOMException('no applicationServerKey', 'AbortError');
    const bytes = typeof key === 'string' ? Uint8Array.from(atob(key.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0)) : new Uint8Array(ArrayBuffer.isView(key) ? key.buffer.slice(key.byteOffset, key.byteOffset + key.byteLength) : key);
    const local = (window as unknown as { pushServiceSubscribe(key: string): Promise<{ endpoint: string; keys: { p256dh: string; auth: string } }> }).pushServiceSubscribe;
    const json = await local(base64url(bytes));
    return { endpoint: json.endpoint, expirationTime: null, toJSON: () => ({ ...json, expirationTime: null }) } as unknown as PushSubscription;
  };
}

describe.skipIf(!chromiumAvailable)('browser push in a real browser (Chromium) through a local push service', () => {
  it('the button subscribes this browser; a trigger reaches the service worker as a notification; a 410 removes the subscription', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tidings-inbox-push-'));
    const service = await localPushService();
    const app = await start({ port: 0, filename: join(dir, 'inbox.db'), pushNetwork: { allow: ['127.0.0.1'] } });
    const browser = await launchChromium();
    try {
      const context = await browser.newContext();
      await context.grantPermissions(['notifications'], { origin: app.url });
      await context.exposeFunction('pushServiceSubscribe', (key: string) => service.subscribe(key));
      await context.addInitScript(subscribeThroughLocalService);
      const page = await context.newPage();
      // The service worker's registration id, which DevTools delivers push messages to.
      const cdp = await context.newCDPSession(page);
      const registered = new Promise<string>((resolve) =>
        cdp.on('ServiceWorker.workerRegistrationUpdated', ({ registrations }) => {
          const ours = registrations.find((r) => r.scopeURL === `${app.url}/` && !r.isDeleted);
          if (ours) resolve(ours.registrationId);
        }),
      );
      await cdp.send('ServiceWorker.enable');

      await page.goto(app.url);
      await page.waitForSelector('body[data-ready="true"]');
      await page.click('#push');
      await page.waitForSelector('#push[data-state="on"]');
      expect(await page.textContent('#push')).toBe('Notifications on in this browser');
      // The page subscribed with the server's VAPID public key, and the app keeps the subscription as the subscriber's.
      const [subscription, ...others] = await browserSubscriptions(app);
      expect(others).toEqual([]);
      expect(service.applicationServerKeys()).toEqual({ [subscription!.endpoint]: app.vapid.publicKey });

      const { transactionId } = await app.tidings.trigger({ name: 'invitation', to: app.subscriberId, payload: { from: 'Grace', project: 'compilers' } });
      // The push service checked the request (VAPID JWT, key, TTL, encoding) and decrypted it with the browser's keys.
      const sent = await service.next();
      if (!accepted(sent)) throw new Error(`the push service refused the request: ${JSON.stringify(sent)}`);
      expect(sent).toMatchObject({ endpoint: subscription!.endpoint, ttl: 86_400, claims: { aud: service.url, sub: 'mailto:inbox-demo@example.com' } });
      expect(JSON.parse(sent.text)).toEqual({ title: 'New invitation', body: 'Grace invited you to compilers', data: { from: 'Grace', project: 'compilers' } });

      await cdp.send('ServiceWorker.deliverPushMessage', { origin: app.url, registrationId: await registered, data: sent.text });
      await page.waitForFunction(async () => (await (await navigator.serviceWorker.ready).getNotifications()).length > 0);
      const shown = await page.evaluate(async () => (await (await navigator.serviceWorker.ready).getNotifications()).map((n) => ({ title: n.title, body: n.body, data: n.data as unknown })));
      expect(shown).toEqual([{ title: 'New invitation', body: 'Grace invited you to compilers', data: { from: 'Grace', project: 'compilers' } }]);
      expect(await app.tidings.messages.byTransaction(transactionId!)).toEqual(
        expect.arrayContaining([expect.objectContaining({ channel: 'push', status: 'sent', providerId: 'web-push' }), expect.objectContaining({ channel: 'in_app' })]),
      );
      await page.screenshot({ path: join(dir, 'inbox-push.png') });

      // The browser's subscription expires: its push service answers 410 and the app forgets it.
      service.expire(subscription!.endpoint);
      await app.tidings.trigger({ name: 'invitation', to: app.subscriberId, payload: { from: 'Linus', project: 'kernels' } });
      expect(await service.next()).toMatchObject({ status: 410, endpoint: subscription!.endpoint });
      // Removed in the commit that records the message's outcome (a condition, not a speed: the cap only ends a hang).
      await expect.poll(() => browserSubscriptions(app), { timeout: 30_000 }).toEqual([]);
      expect(service.requests.map((r) => r.status)).toEqual([201, 410]);
    } finally {
      await browser.close();
      await app.close();
      await service.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

noteMissingChromium('browser push in a real browser');
