import { pushStepExtras } from './step-extras.js';
import { createHash } from 'node:crypto';
import { ProviderError, type Credentials, type JsonObject, type Provider, type ProviderMessage } from '@tidings/core';
import { importPKCS8, SignJWT } from 'jose';
import { abandoned, answerError, answerJson, atBase, type ServiceAnswer } from '../http.js';
import { http2Session, type Http2Session } from '../http2.js';
import { baseUrlOf, requestOptions as requestOptionsOf, type ServiceProviderOptions } from '../service-options.js';
import { settleDevices, type DeviceOutcome, type PushResult } from './device-outcomes.js';

const PRODUCTION_URL = 'https://api.push.apple.com/3/device/';
const SANDBOX_URL = 'https://api.sandbox.push.apple.com/3/device/';
/**
 * How long a provider token is used. Apple refuses one older than an hour (`ExpiredProviderToken`)
 * and a new one sooner than 20 minutes after the last (`TooManyProviderTokenUpdates`).
 */
const TOKEN_LIFETIME_MS = 40 * 60_000;
/** Requests under way at once on the connection. */
const PARALLEL_SENDS = 10;
/** The namespace of the name-based (v5) apns-id made from an engine message id that is not a UUID. */
const APNS_ID_NAMESPACE = 'eed13bca-b937-43b8-ad6d-29a9ab7ddce6';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The integration's token-based auth, with Novu's credential names. */
interface SigningKey {
  /** The .p8 key (PKCS#8 EC P-256 PEM): `secretKey`. */
  readonly key: string;
  /** Its key id: `apiKey`. */
  readonly keyId: string;
  /** The team id: `projectName`. */
  readonly teamId: string;
}

interface ProviderToken {
  readonly jwt: string;
  readonly issuedAt: number;
}

function credentialsOf(credentials: Credentials): SigningKey & { bundleId: string } {
  const named = { secretKey: credentials.secretKey, apiKey: credentials.apiKey, projectName: credentials.projectName, applicationId: credentials.applicationId };
  const missing = Object.entries(named).flatMap(([name, value]) => (value ? [] : [name]));
  if (missing.length > 0) {
    throw new ProviderError(`apns: the integration has no ${missing.join(', ')} credential${missing.length > 1 ? 's' : ''}`, { retryable: false, code: 'missing_credentials' });
  }
  // A key kept in an environment variable often has its line breaks escaped.
  return { key: named.secretKey!.replace(/\\n/g, '\n'), keyId: named.apiKey!, teamId: named.projectName!, bundleId: named.applicationId! };
}

/** The engine's message id when it is a UUID, else a UUID made from it (v5), so every retry sends the same apns-id. */
function apnsIdOf(messageId: string): string {
  if (UUID.test(messageId)) return messageId.toLowerCase();
  const hash = createHash('sha1').update(Buffer.from(APNS_ID_NAMESPACE.replace(/-/g, ''), 'hex')).update(messageId).digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);
const headerValue = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : typeof value === 'number' && Number.isFinite(value) ? String(Math.floor(value)) : undefined);

/** What one notification is, the same for every device token: its headers (but the JWT) and its JSON. */
interface Notification {
  readonly headers: Record<string, string>;
  readonly body: string;
}

/**
 * The notification, from the message and the trigger's `overrides.apns` (node-apn's names, as Novu
 * passes them): `badge`, `sound`, `category`, `threadId`, `subtitle`, `contentAvailable`,
 * `mutableContent` join `aps`; `payload` (or `data`) gives the custom top-level keys instead of the
 * trigger's payload (a code workflow's push step may return `badge`, `sound` and `data` too, under the
 * overrides); `pushType`, `priority`, `expiration` (or `expiry`, epoch seconds), `collapseId`
 * and `topic` (the bundle id by default) become headers. A `background` push (`pushType: 'background'`,
 * or `contentAvailable` with no title and no text) carries only `content-available`, at priority 5.
 */
function notificationOf(message: ProviderMessage, bundleId: string): Notification {
  const o: JsonObject = { ...pushStepExtras(message), ...message.overrides };
  const title = message.title ?? message.subject;
  const contentAvailable = o.contentAvailable === true || o.contentAvailable === 1;
  const pushType = headerValue(o.pushType) ?? (contentAvailable && !title && message.content === '' ? 'background' : 'alert');
  const background = pushType === 'background';
  const aps: JsonObject = {
    ...(!background && {
      alert: { ...(title && { title }), ...(typeof o.subtitle === 'string' && { subtitle: o.subtitle }), body: message.content },
      ...(o.badge !== undefined && { badge: o.badge }),
      ...(o.sound !== undefined && { sound: o.sound }),
    }),
    ...(o.category !== undefined && { category: o.category }),
    ...(o.threadId !== undefined && { 'thread-id': o.threadId }),
    ...((background || contentAvailable) && { 'content-available': 1 }),
    ...((o.mutableContent === true || o.mutableContent === 1) && { 'mutable-content': 1 }),
  };
  const custom = isObject(o.payload) ? o.payload : isObject(o.data) ? o.data : message.payload;
  const expiration = headerValue(o.expiration ?? o.expiry);
  const collapseId = headerValue(o.collapseId);
  return {
    headers: {
      'content-type': 'application/json',
      'apns-topic': headerValue(o.topic) ?? bundleId,
      'apns-push-type': pushType,
      'apns-priority': headerValue(o.priority) ?? (background ? '5' : '10'),
      'apns-id': apnsIdOf(message.messageId),
      ...(expiration !== undefined && { 'apns-expiration': expiration }),
      ...(collapseId !== undefined && { 'apns-collapse-id': collapseId }),
    },
    body: JSON.stringify({ ...custom, aps }),
  };
}

/** Sends `items` through `send`, `limit` at a time, the results in order. */
async function eachLimited<T, R>(items: readonly T[], limit: number, send: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await send(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** Apple's reason in an error answer: `{ "reason": "BadDeviceToken" }`. */
function reasonOf(answer: ServiceAnswer): string | undefined {
  const reason = (answerJson(answer) as { reason?: unknown } | undefined)?.reason;
  return typeof reason === 'string' ? reason : undefined;
}

/**
 * Apple Push Notification service, token-based auth: `POST https://api.push.apple.com/3/device/<token>`
 * (`https://api.sandbox.push.apple.com` unless `secure` is true) over HTTP/2, one request per device
 * token on one connection, with `authorization: bearer <JWT>` (ES256 with the .p8 key, `kid` the key
 * id, claims `iss` the team id and `iat`), `apns-topic` the bundle id, `apns-push-type`,
 * `apns-priority` and `apns-id` (the engine's message id, or a UUID made from it). The body is
 * `{ aps: { alert: { title, body } }, ...payload }` (see `notificationOf` for `overrides.apns`).
 * Credentials have Novu's names: `secretKey` (the .p8 key's text), `apiKey` (key id), `projectName`
 * (team id), `applicationId` (bundle id), `secure` (production). A provider token is kept for 40
 * minutes per key; one Apple calls `ExpiredProviderToken` is renewed once and those devices sent
 * again. The message is sent (under the `apns-id` Apple answers) when one device took it; tokens
 * Apple calls gone (410: `Unregistered`, `ExpiredToken`) come back as `invalidTokens` (not
 * `BadDeviceToken`: a sandbox token sent to production gets it too, so an integration whose `secure`
 * does not match the app's build would otherwise strip every subscriber's tokens); when every device refused, the code is Apple's reason. `baseUrl` replaces the host.
 */
export const apnsProvider = (options: ServiceProviderOptions = {}): Provider => {
  const requestOptions = requestOptionsOf(options);
  const tokens = new Map<string, Promise<ProviderToken>>();

  async function signToken(signing: SigningKey): Promise<ProviderToken> {
    let key: Awaited<ReturnType<typeof importPKCS8>>;
    try {
      key = await importPKCS8(signing.key, 'ES256');
    } catch {
      throw new ProviderError('apns: the secretKey credential is not a PKCS#8 EC P-256 key (the .p8 file)', { retryable: false, code: 'invalid_credentials' });
    }
    const issuedAt = Date.now();
    const jwt = await new SignJWT({}).setProtectedHeader({ alg: 'ES256', kid: signing.keyId }).setIssuer(signing.teamId).setIssuedAt(Math.floor(issuedAt / 1000)).sign(key);
    return { jwt, issuedAt };
  }

  /** The key's provider token: the kept one unless it is `stale` or 40 minutes old. */
  async function providerToken(signing: SigningKey, stale?: ProviderToken): Promise<ProviderToken> {
    const id = `${signing.keyId}\n${signing.teamId}\n${createHash('sha256').update(signing.key).digest('hex')}`;
    const kept = tokens.get(id);
    if (kept) {
      const token = await kept.catch(() => undefined);
      if (token && token !== stale && Date.now() - token.issuedAt < TOKEN_LIFETIME_MS) return token;
      // Another send may have renewed it meanwhile.
      if (tokens.get(id) !== kept) return providerToken(signing, stale);
    }
    const signed = signToken(signing);
    tokens.set(id, signed);
    signed.catch(() => tokens.get(id) === signed && tokens.delete(id));
    return signed;
  }

  async function sendAll(session: Http2Session, urlOf: (token: string) => string, auth: ProviderToken, deviceTokens: readonly string[], notification: Notification) {
    return eachLimited(deviceTokens, PARALLEL_SENDS, async (token): Promise<ServiceAnswer | ProviderError> => {
      try {
        return await session.request({ url: urlOf(token), headers: { ...notification.headers, authorization: `bearer ${auth.jwt}` }, body: notification.body });
      } catch (error) {
        if (error instanceof ProviderError) return error;
        throw error;
      }
    });
  }

  return {
    id: 'apns',
    channel: 'push',
    async send(message, credentials, context): Promise<PushResult> {
      const signal = context?.signal;
      const { bundleId, ...signing } = credentialsOf(credentials);
      const deviceTokens = message.to.deviceTokens ?? [];
      if (deviceTokens.length === 0) throw new ProviderError('apns: the recipient has no device tokens', { retryable: false, code: 'missing_device_tokens' });
      const base = baseUrlOf(credentials, options);
      const documented = credentials.secure === true ? PRODUCTION_URL : SANDBOX_URL;
      const urlOf = (token: string) => atBase(`${documented}${encodeURIComponent(token)}`, base);
      const notification = notificationOf(message, bundleId);

      const auth = await providerToken(signing);
      // The send's signal cancels its requests under way and starts no more (see `http2Session`).
      const session = http2Session(new URL(urlOf(deviceTokens[0]!)).origin, signal ? { ...requestOptions, signal } : requestOptions);
      try {
        const answers = await sendAll(session, urlOf, auth, deviceTokens, notification);
        // A kept token Apple calls expired (the clocks disagree): renew it once and resend those devices.
        const expired = answers.flatMap((answer, i) => (!(answer instanceof ProviderError) && answer.status === 403 && reasonOf(answer) === 'ExpiredProviderToken' ? [i] : []));
        if (expired.length > 0) {
          const renewed = await sendAll(session, urlOf, await providerToken(signing, auth), expired.map((i) => deviceTokens[i]!), notification);
          expired.forEach((i, n) => (answers[i] = renewed[n]!));
        }
        if (signal?.aborted) throw abandoned(signal);
        return settleDevices(deviceTokens.map((token, i) => outcomeOf(token, answers[i]!, notification)));
      } finally {
        session.close();
      }
    },
  };
};

function outcomeOf(token: string, answer: ServiceAnswer | ProviderError, notification: Notification): DeviceOutcome {
  if (answer instanceof ProviderError) return { token, error: answer, dead: false };
  if (answer.status === 200) {
    const id = answer.headers['apns-id'];
    return { token, id: typeof id === 'string' && id !== '' ? id : notification.headers['apns-id']! };
  }
  const reason = reasonOf(answer);
  // 410 (Unregistered, ExpiredToken): the token is no longer active.
  return { token, error: answerError('apns', answer, reason), dead: answer.status === 410 };
}
