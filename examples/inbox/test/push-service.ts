/**
 * A browser push service on loopback that plays the protocol a browser's push service does (RFC 8030
 * push, RFC 8292 VAPID, RFC 8291 message encryption), checked with Node's own crypto — an
 * implementation apart from the `web-push` library the example sends with.
 *
 * `subscribe(applicationServerKey)` is what the browser's `pushManager.subscribe()` gets from its push
 * service: an endpoint here, bound to the application's VAPID public key, with a fresh P-256 key pair
 * and auth secret that stand for the browser's. A POST to the endpoint must carry `Authorization:
 * vapid t=<JWT>, k=<key>` with `k` the key the subscription was made with and an ES256 JWT signed by
 * it (`aud` this service's origin, `exp` within 24 hours, `sub` a mailto: or https: contact), a `TTL`,
 * `Content-Encoding: aes128gcm` and a body that decrypts with the subscription's keys: then 201 and
 * the plaintext, for the test to hand to the browser. An expired subscription answers 410 Gone.
 */
import { createDecipheriv, createECDH, createPublicKey, hkdfSync, randomBytes, randomUUID, verify, type ECDH } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A subscription as `JSON.stringify(pushSubscription)` gives it. */
export interface SubscriptionJson {
  readonly endpoint: string;
  readonly expirationTime: null;
  readonly keys: { readonly p256dh: string; readonly auth: string };
}

/** One request the service answered: 201 with what it decrypted, or a refusal and why. */
export type PushRequest =
  | { readonly status: 201; readonly endpoint: string; readonly ttl: number; readonly claims: { aud: string; exp: number; sub: string }; readonly text: string }
  | { readonly status: number; readonly endpoint: string; readonly reason: string };

interface Subscription {
  readonly applicationServerKey: string;
  readonly ecdh: ECDH;
  readonly auth: Buffer;
  live: boolean;
}

/** The ES256 JWT's claims when its signature checks with `k` (an uncompressed P-256 point, base64url), else null. */
function verifiedClaims(jwt: string, k: string): Record<string, unknown> | null {
  const [header, claims, signature] = jwt.split('.') as [string, string, string];
  const point = Buffer.from(k, 'base64url');
  if (point.length !== 65 || point[0] !== 4) return null;
  if ((JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as { alg?: string }).alg !== 'ES256') return null;
  const key = createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: point.subarray(1, 33).toString('base64url'), y: point.subarray(33).toString('base64url') }, format: 'jwk' });
  const signed = verify('sha256', Buffer.from(`${header}.${claims}`), { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature, 'base64url'));
  return signed ? (JSON.parse(Buffer.from(claims, 'base64url').toString('utf8')) as Record<string, unknown>) : null;
}

/** RFC 8291's decryption of an aes128gcm body (RFC 8188) with the browser's key pair and auth secret; throws when it does not decrypt. */
function decrypt(body: Buffer, ecdh: ECDH, auth: Buffer): string {
  const salt = body.subarray(0, 16);
  const recordSize = body.readUInt32BE(16);
  const keyIdLength = body[20]!;
  if (keyIdLength !== 65) throw new Error('the key id is not the sender’s P-256 public key');
  const senderKey = body.subarray(21, 21 + keyIdLength);
  const record = body.subarray(21 + keyIdLength);
  if (record.length > recordSize || record.length < 17) throw new Error('not one record');
  const info = Buffer.concat([Buffer.from('WebPush: info\0'), ecdh.getPublicKey(), senderKey]);
  const ikm = Buffer.from(hkdfSync('sha256', ecdh.computeSecret(senderKey), auth, info, 32));
  const cek = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16));
  const nonce = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12));
  const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
  decipher.setAuthTag(record.subarray(-16));
  const padded = Buffer.concat([decipher.update(record.subarray(0, -16)), decipher.final()]);
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end--;
  if (padded[end] !== 2) throw new Error('the last record does not end with its delimiter');
  return padded.subarray(0, end).toString('utf8');
}

/** A request the service accepted (and decrypted). */
export const accepted = (request: PushRequest): request is Extract<PushRequest, { status: 201 }> => request.status === 201 && 'text' in request;

export async function localPushService() {
  const subscriptions = new Map<string, Subscription>();
  const requests: PushRequest[] = [];
  /** How many requests `next()` has handed out, and the tests waiting for the next one. */
  let handedOut = 0;
  const waiting: ((request: PushRequest) => void)[] = [];

  function answer(id: string, headers: IncomingHttpHeaders, body: Buffer, origin: string): PushRequest {
    const endpoint = `${origin}/push/${id}`;
    const refuse = (status: number, reason: string): PushRequest => ({ status, endpoint, reason });
    const subscription = subscriptions.get(id);
    if (!subscription) return refuse(404, 'no such subscription');
    if (!subscription.live) return refuse(410, 'the subscription has expired');
    const vapid = /^vapid t=([\w-]+\.[\w-]+\.[\w-]+), k=([\w-]+)$/.exec(headers.authorization ?? '');
    if (!vapid) return refuse(401, 'Authorization is not "vapid t=<JWT>, k=<key>"');
    if (vapid[2] !== subscription.applicationServerKey) return refuse(403, 'k is not the key the subscription was made with');
    const claims = verifiedClaims(vapid[1]!, vapid[2]!);
    if (!claims) return refuse(403, 'the JWT is not ES256-signed by k');
    const now = Math.floor(Date.now() / 1000);
    if (claims['aud'] !== origin) return refuse(403, `aud is not ${origin}`);
    if (typeof claims['exp'] !== 'number' || claims['exp'] <= now || claims['exp'] > now + 86_400) return refuse(403, 'exp is not within 24 hours');
    if (typeof claims['sub'] !== 'string' || !/^(mailto:|https:)/.test(claims['sub'])) return refuse(403, 'sub is not a mailto: or https: contact');
    const ttl = Number(headers.ttl);
    if (headers.ttl === undefined || !Number.isInteger(ttl) || ttl < 0) return refuse(400, 'no TTL');
    if (headers['content-encoding'] !== 'aes128gcm') return refuse(415, 'Content-Encoding is not aes128gcm');
    if (body.length > 4_096) return refuse(413, 'more than 4096 bytes');
    try {
      return { status: 201, endpoint, ttl, claims: claims as { aud: string; exp: number; sub: string }, text: decrypt(body, subscription.ecdh, subscription.auth) };
    } catch (error) {
      return refuse(400, `the body does not decrypt with the subscription's keys: ${(error as Error).message}`);
    }
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const id = /^\/push\/([\w-]+)$/.exec(req.url ?? '')?.[1];
      if (req.method !== 'POST' || !id) return void res.writeHead(404).end();
      const request = answer(id, req.headers, Buffer.concat(chunks), `http://${req.headers.host}`);
      requests.push(request);
      if (request.status === 201) res.writeHead(201, { location: `${request.endpoint}/messages/${randomUUID()}` }).end();
      else res.writeHead(request.status, { 'content-type': 'text/plain' }).end('reason' in request ? request.reason : '');
      const waiter = waiting.shift();
      if (waiter) {
        handedOut++;
        waiter(request);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    /** Every request answered, in order. */
    requests,
    /** What the browser's `pushManager.subscribe({ applicationServerKey })` gets: a new subscription bound to that key. */
    subscribe(applicationServerKey: string): SubscriptionJson {
      const ecdh = createECDH('prime256v1');
      ecdh.generateKeys();
      const auth = randomBytes(16);
      const id = randomUUID();
      subscriptions.set(id, { applicationServerKey, ecdh, auth, live: true });
      return { endpoint: `${url}/push/${id}`, expirationTime: null, keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: auth.toString('base64url') } };
    },
    /** The key each subscription was made with, by endpoint. */
    applicationServerKeys(): Record<string, string> {
      return Object.fromEntries([...subscriptions].map(([id, s]) => [`${url}/push/${id}`, s.applicationServerKey]));
    },
    /** The subscription expired (the user revoked the permission, the browser dropped it): 410 from now on. */
    expire(endpoint: string) {
      subscriptions.get(endpoint.slice(`${url}/push/`.length))!.live = false;
    },
    /** The first request answered that `next()` has not handed out yet: one already answered, or the next to come. */
    next(): Promise<PushRequest> {
      const answered = requests[handedOut];
      if (answered) handedOut++;
      return answered ? Promise.resolve(answered) : new Promise((resolve) => waiting.push(resolve));
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
