/**
 * The app's side of "Notify me in this browser", without a browser: what `POST /push/subscriptions`
 * keeps and refuses, the VAPID keys' sources, and a subscription its push service no longer knows
 * (404) forgotten after a send.
 */
import { createECDH, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_DEVICE_TOKENS_PER_PROVIDER } from '@tidings/core/schemas';
import { afterAll, describe, expect, it } from 'vitest';
import { start } from '../src/main.js';
import { vapidKeys } from '../src/web-push.js';
import { localPushService } from './push-service.js';

const dir = mkdtempSync(join(tmpdir(), 'tidings-inbox-subscriptions-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const browserKeys = () => {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return { p256dh: ecdh.getPublicKey().toString('base64url'), auth: randomBytes(16).toString('base64url') };
};
const post = (url: string, body: string, contentType = 'application/json') => fetch(`${url}/push/subscriptions`, { method: 'POST', headers: { 'content-type': contentType }, body });
const tokensOf = async (app: Awaited<ReturnType<typeof start>>) => (await app.tidings.subscribers.get(app.subscriberId))!.channels.find((c) => c.providerId === 'web-push')?.credentials.deviceTokens ?? [];

describe('POST /push/subscriptions', () => {
  it('keeps a browser subscription once, as the signed-in subscriber’s web-push device token; refuses what is not one', async () => {
    const app = await start({ port: 0, filename: join(dir, 'route.db') });
    try {
      const keys = browserKeys();
      const endpoint = 'https://push.example.com/send/abc';
      expect((await post(app.url, JSON.stringify({ endpoint, expirationTime: null, keys }))).status).toBe(201);
      // The same subscription again (another spelling): still one.
      expect((await post(app.url, JSON.stringify({ keys: { auth: keys.auth, p256dh: keys.p256dh }, endpoint }))).status).toBe(201);
      expect(await tokensOf(app)).toEqual([JSON.stringify({ endpoint, keys })]);

      const refused = [
        post(app.url, JSON.stringify({ endpoint, keys }), 'text/plain'),
        post(app.url, '{not json'),
        post(app.url, JSON.stringify({ endpoint: 'ftp://push.example.com/x', keys })),
        post(app.url, JSON.stringify({ endpoint, keys: { ...keys, p256dh: keys.auth } })),
        post(app.url, JSON.stringify({ endpoint, keys: { ...keys, auth: keys.p256dh } })),
        post(app.url, JSON.stringify({ endpoint, keys, padding: 'x'.repeat(5_000) })),
      ];
      expect(await Promise.all(refused.map(async (r) => (await r).status))).toEqual([415, 400, 400, 400, 400, 413]);
      expect(await tokensOf(app)).toHaveLength(1);

      // A subscriber keeps at most MAX_DEVICE_TOKENS_PER_PROVIDER browsers: one more is refused, nothing trimmed.
      const many = Array.from({ length: MAX_DEVICE_TOKENS_PER_PROVIDER }, (_, i) => JSON.stringify({ endpoint: `https://push.example.com/send/${i}`, keys }));
      await app.tidings.subscribers.setCredentials(app.subscriberId, { providerId: 'web-push', credentials: { deviceTokens: many } });
      const full = await post(app.url, JSON.stringify({ endpoint, keys }));
      expect(full.status).toBe(409);
      expect(((await full.json()) as { message: string }).message).toContain('credentials.deviceTokens');
      expect(await tokensOf(app)).toEqual(many);
    } finally {
      await app.close();
    }
  });

  it('a subscription its push service does not know (404) is dropped after the send; the inbox message is delivered all the same', async () => {
    const service = await localPushService();
    const app = await start({ port: 0, filename: join(dir, 'gone.db'), pushNetwork: { allow: ['127.0.0.1'] } });
    try {
      expect((await post(app.url, JSON.stringify({ endpoint: `${service.url}/push/never-subscribed`, keys: browserKeys() }))).status).toBe(201);
      const { transactionId } = await app.tidings.trigger({ name: 'invitation', to: app.subscriberId, payload: { from: 'Grace', project: 'compilers' } });
      expect(await service.next()).toMatchObject({ status: 404 });
      await expect.poll(() => tokensOf(app), { timeout: 30_000 }).toEqual([]);
      expect(await app.tidings.messages.byTransaction(transactionId!)).toEqual(expect.arrayContaining([expect.objectContaining({ channel: 'in_app', status: 'sent' })]));
    } finally {
      await app.close();
      await service.close();
    }
  });
});

describe('VAPID keys', () => {
  it('those given, else VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY, else a new P-256 pair; one of the two alone is refused', () => {
    const given = { publicKey: 'pub', privateKey: 'priv', subject: 'mailto:a@example.com' };
    expect(vapidKeys(given, {})).toEqual({ ...given, generated: false });
    expect(vapidKeys(undefined, { VAPID_PUBLIC_KEY: 'p', VAPID_PRIVATE_KEY: 's', VAPID_SUBJECT: 'https://acme.example' })).toEqual({ publicKey: 'p', privateKey: 's', subject: 'https://acme.example', generated: false });
    const made = vapidKeys(undefined, {});
    expect(made).toMatchObject({ subject: 'mailto:inbox-demo@example.com', generated: true });
    expect(Buffer.from(made.publicKey, 'base64url')).toHaveLength(65);
    expect(Buffer.from(made.privateKey, 'base64url')).toHaveLength(32);
    expect(() => vapidKeys(undefined, { VAPID_PUBLIC_KEY: 'p' })).toThrow(/both VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY/);
  });
});
