import { pushStepExtras, type PushStepExtras } from './step-extras.js';
import { createHash } from 'node:crypto';
import { ProviderError, type Credentials, type JsonObject, type Provider, type ProviderMessage } from '@tidings/core';
import { importPKCS8, SignJWT } from 'jose';
import { abandoned, answerError, answerJson, atBase, serviceRequest, type ServiceAnswer } from '../http.js';
import { baseUrlOf, requestOptions as requestOptionsOf, type ServiceProviderOptions } from '../service-options.js';
import { settleDevices, type DeviceOutcome, type PushResult } from './device-outcomes.js';

const SEND_URL = 'https://fcm.googleapis.com/v1/projects/{project}/messages:send';
const GOOGLE_TOKEN_URI = 'https://oauth2.googleapis.com/token';
const SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** An access token is renewed this long before it expires, so none expires on its way to FCM. */
const RENEW_BEFORE_MS = 5 * 60_000;
/** FCM v1 takes one token per request: this many go at once. */
const PARALLEL_SENDS = 10;


interface ServiceAccount {
  readonly projectId: string;
  readonly clientEmail: string;
  readonly privateKey: string;
  readonly privateKeyId?: string;
  readonly tokenUri: string;
}

interface AccessToken {
  readonly token: string;
  readonly expiresAt: number;
}

const invalidCredentials = (reason: string) => new ProviderError(`fcm: ${reason}`, { retryable: false, code: 'invalid_credentials' });

/** The service account JSON in `credentials.serviceAccount` (Novu's older integrations kept it in `user`). */
function serviceAccountOf(credentials: Credentials): ServiceAccount {
  const text = credentials.serviceAccount || credentials.user;
  if (!text) throw new ProviderError('fcm: the integration has no serviceAccount credential', { retryable: false, code: 'missing_credentials' });
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw invalidCredentials('the serviceAccount credential is not JSON');
  }
  const field = (name: string) => (typeof json[name] === 'string' && json[name] !== '' ? (json[name] as string) : undefined);
  const missing = ['project_id', 'client_email', 'private_key'].filter((name) => !field(name));
  if (missing.length > 0) throw invalidCredentials(`the service account has no ${missing.join(', ')}`);
  const privateKeyId = field('private_key_id');
  return { projectId: field('project_id')!, clientEmail: field('client_email')!, privateKey: field('private_key')!, ...(privateKeyId && { privateKeyId }), tokenUri: field('token_uri') ?? GOOGLE_TOKEN_URI };
}

/** FCM's own code: the FcmError detail's `errorCode` (e.g. UNREGISTERED), else the status (e.g. UNAUTHENTICATED). */
function fcmErrorCode(json: unknown): string | undefined {
  const error = (json as { error?: { status?: unknown; details?: { '@type'?: unknown; errorCode?: unknown }[] } } | undefined)?.error;
  const detail = Array.isArray(error?.details) ? error.details.find((d) => typeof d?.['@type'] === 'string' && d['@type'].endsWith('FcmError')) : undefined;
  const code = detail?.errorCode ?? error?.status;
  return typeof code === 'string' ? code : undefined;
}

/** FCM data values must be strings. */
const stringValues = (object: JsonObject): Record<string, string> =>
  Object.fromEntries(Object.entries(object).flatMap(([key, value]) => (value === undefined || value === null ? [] : [[key, typeof value === 'string' ? value : JSON.stringify(value)]])));

const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A push step's sound and badge where FCM has them: Android's notification sound, and the `aps` of the APNs payload. */
function stepPlatforms({ sound, badge }: PushStepExtras): JsonObject {
  if (sound === undefined && badge === undefined) return {};
  return {
    ...(sound !== undefined && { android: { notification: { sound } } }),
    apns: { payload: { aps: { ...(sound !== undefined && { sound }), ...(badge !== undefined && { badge }) } } },
  };
}

/**
 * The FCM message for one token, shaped from the trigger's `overrides.fcm` as Novu does: `type: 'data'`
 * sends a data-only message (the payload, title and body as data); otherwise a notification with the
 * title and body, `data` from the overrides; `android`, `apns`, `webPush`, `fcmOptions` pass through,
 * and any other override joins the notification (e.g. `image`). A code workflow's push step may
 * return `data`, `sound` and `badge` (see `pushStepExtras`); the overrides' own win.
 */
function fcmMessage(token: string, message: ProviderMessage): JsonObject {
  const { type, data, android, apns, webPush, webpush, fcmOptions, fcm_options, deviceTokens: _tokens, ...notificationFields } = message.overrides;
  const platforms = {
    ...(android !== undefined && { android }),
    ...(apns !== undefined && { apns }),
    ...((webPush ?? webpush) !== undefined && { webpush: webPush ?? webpush }),
    ...((fcmOptions ?? fcm_options) !== undefined && { fcm_options: fcmOptions ?? fcm_options }),
  };
  const title = message.title ?? message.subject;
  const extras = pushStepExtras(message);
  if (type === 'data') {
    return { token, data: stringValues({ ...message.payload, ...(title !== undefined && { title }), body: message.content, message: message.content }), ...platforms };
  }
  const dataOf = isObject(data) ? data : extras.data;
  return {
    token,
    notification: { ...(title !== undefined && { title }), body: message.content, ...notificationFields },
    ...(dataOf !== undefined && { data: stringValues(dataOf) }),
    ...stepPlatforms(extras),
    ...platforms,
  };
}

/**
 * Firebase Cloud Messaging, HTTP v1: `POST https://fcm.googleapis.com/v1/projects/{project_id}/messages:send`
 * with `{ message: { token, notification, data } }`, one request per device token, authorized by an
 * OAuth2 access token: a JWT signed (RS256) with the service account's key and exchanged at its
 * `token_uri`. Access tokens are kept per service account until shortly before they expire. The
 * message is sent when one device took it; tokens FCM calls `UNREGISTERED` come back as
 * `invalidTokens`; when every device refused, the code is FCM's (e.g. `UNREGISTERED`,
 * `SENDER_ID_MISMATCH`). `baseUrl` replaces the host of both FCM and the token endpoint.
 */
export const fcmProvider = (options: ServiceProviderOptions = {}): Provider => {
  const requestOptions = requestOptionsOf(options);
  const accessTokens = new Map<string, Promise<AccessToken>>();

  async function fetchAccessToken(account: ServiceAccount, tokenUrl: string): Promise<AccessToken> {
    let key: Awaited<ReturnType<typeof importPKCS8>>;
    try {
      key = await importPKCS8(account.privateKey, 'RS256');
    } catch {
      throw invalidCredentials('the service account private_key is not a PKCS#8 RSA key');
    }
    const now = Math.floor(Date.now() / 1000);
    const assertion = await new SignJWT({ scope: SCOPE })
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT', ...(account.privateKeyId && { kid: account.privateKeyId }) })
      .setIssuer(account.clientEmail)
      .setAudience(account.tokenUri)
      .setIssuedAt(now)
      .setExpirationTime(now + 3600)
      .sign(key);
    const answer = await serviceRequest(
      {
        url: tokenUrl,
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams({ grant_type: JWT_BEARER, assertion }).toString(),
      },
      requestOptions,
    );
    const json = answerJson(answer) as { access_token?: unknown; expires_in?: unknown; error?: unknown } | undefined;
    // The token endpoint's code is OAuth's `error` (e.g. invalid_grant for a bad signature or a deleted key).
    if (answer.status < 200 || answer.status >= 300) throw answerError('fcm token endpoint', answer, typeof json?.error === 'string' ? json.error : undefined);
    if (typeof json?.access_token !== 'string') throw new ProviderError('fcm token endpoint answered without an access_token', { retryable: true, status: answer.status, code: 'unexpected_answer' });
    const expiresIn = typeof json.expires_in === 'number' ? json.expires_in : 3600;
    return { token: json.access_token, expiresAt: Date.now() + expiresIn * 1000 };
  }

  /** The service account's access token: the kept one unless it is `stale` or about to expire. */
  async function accessToken(account: ServiceAccount, tokenUrl: string, stale?: AccessToken): Promise<AccessToken> {
    const key = `${tokenUrl}\n${account.clientEmail}\n${createHash('sha256').update(account.privateKey).digest('hex')}`;
    const kept = accessTokens.get(key);
    if (kept) {
      const token = await kept.catch(() => undefined);
      if (token && token !== stale && token.expiresAt - RENEW_BEFORE_MS > Date.now()) return token;
      // Another send may have renewed it meanwhile.
      if (accessTokens.get(key) !== kept) return accessToken(account, tokenUrl, stale);
    }
    const fetching = fetchAccessToken(account, tokenUrl);
    accessTokens.set(key, fetching);
    fetching.catch(() => accessTokens.get(key) === fetching && accessTokens.delete(key));
    return fetching;
  }

  async function sendTo(url: string, auth: AccessToken, token: string, message: ProviderMessage, signal: AbortSignal | undefined): Promise<ServiceAnswer | ProviderError> {
    try {
      return await serviceRequest(
        { url, headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${auth.token}` }, body: JSON.stringify({ message: fcmMessage(token, message) }) },
        signal ? { ...requestOptions, signal } : requestOptions,
      );
    } catch (error) {
      if (error instanceof ProviderError) return error;
      throw error;
    }
  }

  /** One request per token, a few at a time; once the send's signal aborts, no more start and the send fails. */
  async function sendAll(url: string, auth: AccessToken, tokens: readonly string[], message: ProviderMessage, signal: AbortSignal | undefined) {
    const answers: (ServiceAnswer | ProviderError)[] = [];
    for (let start = 0; start < tokens.length; start += PARALLEL_SENDS) {
      if (signal?.aborted) throw abandoned(signal);
      answers.push(...(await Promise.all(tokens.slice(start, start + PARALLEL_SENDS).map((token) => sendTo(url, auth, token, message, signal)))));
    }
    if (signal?.aborted) throw abandoned(signal);
    return answers;
  }

  return {
    id: 'fcm',
    channel: 'push',
    async send(message, credentials, context): Promise<PushResult> {
      const signal = context?.signal;
      const account = serviceAccountOf(credentials);
      const tokens = message.to.deviceTokens ?? [];
      if (tokens.length === 0) throw new ProviderError('fcm: the recipient has no device tokens', { retryable: false, code: 'missing_device_tokens' });
      const base = baseUrlOf(credentials, options);
      const tokenUrl = atBase(account.tokenUri, base);
      const url = atBase(SEND_URL.replace('{project}', encodeURIComponent(account.projectId)), base);

      const auth = await accessToken(account, tokenUrl);
      const answers = await sendAll(url, auth, tokens, message, signal);
      // A kept token FCM no longer takes (revoked, or the clocks disagree): renew it once and resend those.
      const refused = answers.flatMap((answer, i) => (!(answer instanceof ProviderError) && answer.status === 401 ? [i] : []));
      if (refused.length > 0) {
        const renewed = await sendAll(url, await accessToken(account, tokenUrl, auth), refused.map((i) => tokens[i]!), message, signal);
        refused.forEach((i, n) => (answers[i] = renewed[n]!));
      }
      return settleDevices(tokens.map((token, i) => outcomeOf(token, answers[i]!)));
    },
  };
};

function outcomeOf(token: string, answer: ServiceAnswer | ProviderError): DeviceOutcome {
  if (answer instanceof ProviderError) return { token, error: answer, dead: false };
  const json = answerJson(answer);
  const name = (json as { name?: unknown } | undefined)?.name;
  if (answer.status >= 200 && answer.status < 300 && typeof name === 'string') return { token, id: name };
  const code = fcmErrorCode(json);
  return { token, error: answerError('fcm', answer, code), dead: code === 'UNREGISTERED' };
}

