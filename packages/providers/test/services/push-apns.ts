import { randomUUID, type KeyObject } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type ServerHttp2Session } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { decodeProtectedHeader, jwtVerify } from 'jose';

export interface ApnsFakeOptions {
  /** The team, its signing key (id and public key) and the app's bundle id, as Apple knows them. */
  readonly teamId: string;
  readonly keyId: string;
  readonly publicKey: KeyObject;
  readonly bundleId: string;
  /** Device tokens of uninstalled apps: 410 Unregistered. Any well-formed other token takes the push. */
  readonly gone?: readonly string[];
  /** Answers to the first sends, in order, before anything else is looked at (429 TooManyRequests, 503 ServiceUnavailable …). */
  readonly failures?: readonly { status: number; reason: string; retryAfter?: string }[];
}

/** One request the fake received, with the provider token's header and claims when it verified. */
export interface ApnsCall {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly json: any;
  jwt?: { header: Record<string, unknown>; claims: Record<string, unknown> };
}

const PUSH_TYPES = new Set(['alert', 'background', 'location', 'voip', 'complication', 'fileprovider', 'mdm', 'liveactivity', 'pushtotalk']);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const HOUR = 3600;
const TWENTY_MINUTES = 20 * 60;

/**
 * Plays APNs' provider API over h2c (HTTP/2 without TLS): `POST /3/device/<token>` with
 * `authorization: bearer <JWT>` (ES256, verified against the team's public key; `kid` the key id,
 * `iss` the team id, `iat` no older than an hour else 403 ExpiredProviderToken, and a new token for
 * the key no sooner than 20 minutes after the last: 429 TooManyProviderTokenUpdates), `apns-topic`
 * the bundle id, `apns-push-type`, optional `apns-priority`/`apns-id`/`apns-expiration`, a JSON
 * body with `aps`. Answers 200 with an `apns-id` header, or `{ reason }` (410 also `timestamp`):
 * BadDeviceToken for a token that is not 64 hex characters, Unregistered for the gone ones.
 */
export async function apnsFake(options: ApnsFakeOptions) {
  const calls: ApnsCall[] = [];
  /** Every provider token Apple took, in order, and those it now calls expired. */
  const providerTokens: string[] = [];
  const expired = new Set<string>();
  let lastIssuedAt: number | undefined;
  let sends = 0;

  type Reply = { status: number; reason?: string; headers?: Record<string, string>; extra?: Record<string, unknown> };

  async function answer(call: ApnsCall): Promise<Reply> {
    const { method, path, headers, body } = call;
    if (method !== 'POST') return { status: 405, reason: 'MethodNotAllowed' };
    const device = /^\/3\/device\/([^/?]*)$/.exec(path)?.[1];
    if (device === undefined) return { status: 404, reason: 'BadPath' };

    const bearer = /^bearer (.+)$/i.exec(String(headers.authorization ?? ''))?.[1];
    if (!bearer) return { status: 403, reason: 'MissingProviderToken' };
    try {
      if (decodeProtectedHeader(bearer).kid !== options.keyId) throw new Error('unknown key');
      const { payload, protectedHeader } = await jwtVerify(bearer, options.publicKey, { algorithms: ['ES256'], issuer: options.teamId });
      call.jwt = { header: protectedHeader, claims: payload };
    } catch {
      return { status: 403, reason: 'InvalidProviderToken' };
    }
    const iat = call.jwt.claims.iat;
    if (typeof iat !== 'number') return { status: 403, reason: 'InvalidProviderToken' };
    if (expired.has(bearer) || Date.now() / 1000 - iat > HOUR) return { status: 403, reason: 'ExpiredProviderToken' };
    if (!providerTokens.includes(bearer)) {
      const renewingExpired = providerTokens.length > 0 && expired.has(providerTokens.at(-1)!);
      if (lastIssuedAt !== undefined && iat - lastIssuedAt < TWENTY_MINUTES && !renewingExpired) return { status: 429, reason: 'TooManyProviderTokenUpdates' };
      providerTokens.push(bearer);
      lastIssuedAt = iat;
    }

    const topic = headers['apns-topic'];
    if (topic === undefined) return { status: 400, reason: 'MissingTopic' };
    if (topic !== options.bundleId) return { status: 400, reason: 'TopicDisallowed' };
    if (!PUSH_TYPES.has(String(headers['apns-push-type']))) return { status: 400, reason: 'InvalidPushType' };
    if (headers['apns-priority'] !== undefined && !['1', '5', '10'].includes(String(headers['apns-priority']))) return { status: 400, reason: 'BadPriority' };
    if (headers['apns-id'] !== undefined && !UUID.test(String(headers['apns-id']))) return { status: 400, reason: 'BadMessageId' };
    if (headers['apns-expiration'] !== undefined && !/^\d+$/.test(String(headers['apns-expiration']))) return { status: 400, reason: 'BadExpirationDate' };

    const failure = options.failures?.[sends++];
    if (failure) return { status: failure.status, reason: failure.reason, ...(failure.retryAfter && { headers: { 'retry-after': failure.retryAfter } }) };

    if (device === '') return { status: 400, reason: 'MissingDeviceToken' };
    if (!/^[0-9a-f]{64}$/i.test(device)) return { status: 400, reason: 'BadDeviceToken' };
    if (Buffer.byteLength(body) > 4096) return { status: 413, reason: 'PayloadTooLarge' };
    const json = call.json;
    if (typeof json?.aps !== 'object' || json.aps === null) return { status: 400, reason: 'PayloadEmpty' };
    if (options.gone?.includes(device)) return { status: 410, reason: 'Unregistered', extra: { timestamp: Date.now() - 86_400_000 } };
    return { status: 200, headers: { 'apns-id': String(headers['apns-id'] ?? randomUUID()) } };
  }

  const sessions = new Set<ServerHttp2Session>();
  const server = createServer();
  let connections = 0;
  server.on('session', (session) => {
    connections++;
    sessions.add(session);
    session.on('close', () => sessions.delete(session));
  });
  server.on('stream', (stream, headers) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown = null;
      try {
        json = JSON.parse(body);
      } catch {
        json = null;
      }
      const call: ApnsCall = { method: String(headers[':method']), path: String(headers[':path']), headers, body, json };
      calls.push(call);
      const reply = await answer(call);
      if (stream.destroyed) return;
      stream.respond({ ':status': reply.status, ...reply.headers, ...(reply.reason && { 'content-type': 'application/json' }) });
      stream.end(reply.reason ? JSON.stringify({ reason: reply.reason, ...reply.extra }) : undefined);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    /** The provider tokens Apple took, in the order it first saw them. */
    providerTokens,
    /** How many HTTP/2 connections were opened. */
    connections: () => connections,
    /** From now on, every provider token seen so far is refused as expired (403 ExpiredProviderToken). */
    expireTokens: () => providerTokens.forEach((token) => expired.add(token)),
    async close() {
      for (const session of sessions) session.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
