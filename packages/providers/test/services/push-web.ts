import { createECDH, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import ece from 'http_ece';
import { compactVerify, importJWK } from 'jose';

/** One push message the fake push service accepted, decrypted as the browser would. */
export interface DeliveredPush {
  readonly subscription: string;
  readonly payload: unknown;
  readonly ttl: number;
  readonly claims: { aud: string; exp: number; sub: string };
}

/** What the fake refused, and why (the test reads it when a send fails). */
export interface RefusedPush {
  readonly status: number;
  readonly reason: string;
}

const b64url = (bytes: Buffer) => bytes.toString('base64url');

/** The VAPID public key (an uncompressed P-256 point, base64url) as a JWK jose can verify with. */
async function vapidKey(k: string) {
  const point = Buffer.from(k, 'base64url');
  if (point.length !== 65 || point[0] !== 4) throw new Error('k is not an uncompressed P-256 public key');
  return importJWK({ kty: 'EC', crv: 'P-256', x: b64url(point.subarray(1, 33)), y: b64url(point.subarray(33)) }, 'ES256');
}

/**
 * Plays a browser push service (RFC 8030) with VAPID (RFC 8292) and message encryption (RFC 8291):
 * `subscribe()` makes a subscription as a browser would (its own P-256 key pair and auth secret,
 * an endpoint on this server). A POST to an endpoint must carry `Authorization: vapid t=<JWT>,
 * k=<public key>` whose ES256 signature checks against `k`, with `aud` this server's origin, `exp` at
 * most 24 hours ahead and a `sub` contact, the key the application registered (`vapidPublicKey`),
 * a `TTL`, and an `aes128gcm` body that decrypts with the subscription's keys; then 201 with a
 * `Location`. An unsubscribed endpoint answers 410, an unknown one 404; `busy` answers 429 with
 * `Retry-After`.
 */
export async function webPushFake(vapidPublicKey: string) {
  const subscriptions = new Map<string, { ecdh: ReturnType<typeof createECDH>; auth: Buffer; live: boolean }>();
  const delivered: DeliveredPush[] = [];
  const refused: RefusedPush[] = [];
  let busy = 0;
  const check = async (id: string, headers: IncomingHttpHeaders, body: Buffer, origin: string): Promise<RefusedPush | DeliveredPush> => {
    const subscription = subscriptions.get(id);
    if (!subscription) return { status: 404, reason: 'no such subscription' };
    if (!subscription.live) return { status: 410, reason: 'the subscription has expired or was unsubscribed' };
    const vapid = /^vapid t=([\w-]+\.[\w-]+\.[\w-]+), k=([\w-]+)$/.exec(headers.authorization ?? '');
    if (!vapid) return { status: 401, reason: 'Authorization is not vapid t=…, k=…' };
    if (vapid[2] !== vapidPublicKey) return { status: 403, reason: 'k is not the key the application subscribed with' };
    let claims: DeliveredPush['claims'];
    try {
      const { payload } = await compactVerify(vapid[1]!, await vapidKey(vapid[2]!));
      claims = JSON.parse(Buffer.from(payload).toString('utf8')) as DeliveredPush['claims'];
    } catch {
      return { status: 403, reason: 'the VAPID JWT signature does not verify with k' };
    }
    const now = Math.floor(Date.now() / 1000);
    if (claims.aud !== origin) return { status: 403, reason: `aud ${claims.aud} is not ${origin}` };
    if (!(claims.exp > now && claims.exp <= now + 86_400)) return { status: 403, reason: 'exp is not within 24 hours' };
    if (!/^(mailto:|https:)/.test(claims.sub ?? '')) return { status: 403, reason: 'sub is not a mailto: or https: contact' };
    if (headers['content-encoding'] !== 'aes128gcm') return { status: 415, reason: 'Content-Encoding is not aes128gcm' };
    const ttl = Number(headers.ttl);
    if (!Number.isInteger(ttl) || ttl < 0) return { status: 400, reason: 'TTL is missing' };
    let payload: unknown;
    try {
      payload = JSON.parse(ece.decrypt(body, { version: 'aes128gcm', privateKey: subscription.ecdh, authSecret: b64url(subscription.auth) }).toString('utf8'));
    } catch {
      return { status: 400, reason: 'the body does not decrypt with the subscription keys' };
    }
    return { subscription: id, payload, ttl, claims };
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const origin = `http://${req.headers.host}`;
      const id = /^\/push\/([\w-]+)$/.exec(req.url ?? '')?.[1];
      if (req.method !== 'POST' || !id) return res.writeHead(404).end();
      if (busy > 0) {
        busy--;
        return res.writeHead(429, { 'retry-after': '1' }).end();
      }
      const outcome = await check(id, req.headers, Buffer.concat(chunks), origin);
      if ('reason' in outcome) {
        refused.push(outcome);
        return res.writeHead(outcome.status, { 'content-type': 'text/plain' }).end(outcome.reason);
      }
      delivered.push(outcome);
      res.writeHead(201, { location: `${origin}/message/${randomUUID()}` }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    delivered,
    refused,
    /** A browser's subscription on this service, as `JSON.stringify(await pushManager.subscribe(…))` gives it. */
    subscribe(): string {
      const ecdh = createECDH('prime256v1');
      ecdh.generateKeys();
      const id = randomUUID();
      const auth = randomBytes(16);
      subscriptions.set(id, { ecdh, auth, live: true });
      return JSON.stringify({ endpoint: `${url}/push/${id}`, expirationTime: null, keys: { p256dh: b64url(ecdh.getPublicKey()), auth: b64url(auth) } });
    },
    /** The browser unsubscribed: its endpoint answers 410 Gone from now on. */
    unsubscribe(subscription: string) {
      const id = /\/push\/([\w-]+)$/.exec((JSON.parse(subscription) as { endpoint: string }).endpoint)![1]!;
      subscriptions.get(id)!.live = false;
    },
    /** The next `n` requests are answered 429 with Retry-After. */
    throttle(n: number) {
      busy = n;
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
