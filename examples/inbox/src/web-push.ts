import { createECDH } from 'node:crypto';
import { isTidingsError, type Tidings } from '@tidings/core';
import type { Context } from 'hono';

/** The application's VAPID key pair (RFC 8292), base64url as `web-push generate-vapid-keys` prints it, and its contact. */
export interface VapidKeys {
  readonly publicKey: string;
  readonly privateKey: string;
  /** A `mailto:` or `https:` contact the push services can reach the sender at. */
  readonly subject: string;
}

const DEFAULT_SUBJECT = 'mailto:inbox-demo@example.com';

/**
 * The VAPID keys: those given, else VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY (with VAPID_SUBJECT), else
 * a new pair for this run — a browser subscribed with one run's key is refused by its push service
 * once the key changes, so a real app makes its pair once and keeps it.
 */
export function vapidKeys(given?: VapidKeys, env: NodeJS.ProcessEnv = process.env): VapidKeys & { generated: boolean } {
  if (given) return { ...given, generated: false };
  const publicKey = env['VAPID_PUBLIC_KEY'];
  const privateKey = env['VAPID_PRIVATE_KEY'];
  const subject = env['VAPID_SUBJECT'] || DEFAULT_SUBJECT;
  if (publicKey && privateKey) return { publicKey, privateKey, subject, generated: false };
  if (publicKey || privateKey) throw new Error('set both VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY (npx web-push generate-vapid-keys), or neither');
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  const secret = ecdh.getPrivateKey();
  return {
    publicKey: ecdh.getPublicKey().toString('base64url'),
    privateKey: Buffer.concat([Buffer.alloc(32 - secret.length), secret]).toString('base64url'),
    subject,
    generated: true,
  };
}

/** The most a subscription's JSON may weigh (browsers send a few hundred bytes). */
const MAX_SUBSCRIPTION_BYTES = 4_096;

const decodesTo = (text: unknown, length: number, first?: number) => {
  if (typeof text !== 'string' || !/^[\w-]+$/.test(text)) return false;
  const bytes = Buffer.from(text, 'base64url');
  return bytes.length === length && (first === undefined || bytes[0] === first);
};

/**
 * A browser push subscription (`PushSubscription.toJSON()`) as the device token to store, in one
 * spelling so the same subscription is kept once; null when `body` is not one: an http(s) endpoint,
 * `keys.p256dh` an uncompressed P-256 point and `keys.auth` 16 bytes, base64url.
 */
export function subscriptionToken(body: unknown): string | null {
  if (typeof body !== 'object' || body === null) return null;
  const { endpoint, keys } = body as { endpoint?: unknown; keys?: { p256dh?: unknown; auth?: unknown } };
  if (typeof endpoint !== 'string' || !URL.canParse(endpoint) || !/^https?:$/.test(new URL(endpoint).protocol)) return null;
  if (!decodesTo(keys?.p256dh, 65, 4) || !decodesTo(keys?.auth, 16)) return null;
  return JSON.stringify({ endpoint, keys: { p256dh: keys!.p256dh, auth: keys!.auth } });
}

/**
 * `POST /push/subscriptions`: the page's push subscription, kept as `subscriberId`'s web-push device
 * token (appended: each of their browsers is one). JSON only, so a cross-site form cannot post one;
 * 400 for what is not a subscription, 409 when the subscriber already has as many browsers as they
 * may keep (MAX_DEVICE_TOKENS_PER_PROVIDER: refused, never trimmed).
 */
export function keepSubscription(tidings: Tidings, subscriberId: string) {
  return async (c: Context) => {
    if (!/^application\/json\b/.test(c.req.header('content-type') ?? '')) return c.json({ message: 'send the subscription as application/json' }, 415);
    const tooBig = { message: 'a push subscription is a few hundred bytes' };
    if (Number(c.req.header('content-length') ?? 0) > MAX_SUBSCRIPTION_BYTES) return c.json(tooBig, 413);
    const text = await c.req.text();
    if (Buffer.byteLength(text) > MAX_SUBSCRIPTION_BYTES) return c.json(tooBig, 413);
    let token: string | null = null;
    try {
      token = subscriptionToken(JSON.parse(text));
    } catch {
      // not JSON: refused below
    }
    if (!token) return c.json({ message: 'the body is not a push subscription ({ endpoint, keys: { p256dh, auth } })' }, 400);
    try {
      await tidings.subscribers.setCredentials(subscriberId, { providerId: 'web-push', credentials: { deviceTokens: [token] } }, 'append');
    } catch (error) {
      if (isTidingsError(error) && error.code === 'validation_failed') return c.json({ message: error.message }, 409);
      throw error;
    }
    return c.json({ data: { subscribed: true } }, 201);
  };
}
