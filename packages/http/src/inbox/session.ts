import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Tidings } from '@tidings/core';
import { HttpError } from '../errors.js';

/** Sessions last 30 days: Novu's client never refreshes a token, so one must outlive a long-open tab. */
export const SESSION_MS = 30 * 24 * 3_600_000;

/** An environment as the Inbox reaches it: its engine, its public identifier and its secret API key. */
export interface InboxEnvironment {
  readonly tidings: Tidings;
  readonly applicationIdentifier: string;
  readonly apiKey: string;
}

export interface InboxSession {
  readonly environment: InboxEnvironment;
  readonly subscriberId: string;
}

const hmac = (key: string, text: string) => createHmac('sha256', key).update(text).digest();

function sameBytes(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Whether `hash` is the subscriberHash of `subscriberId`: HMAC-SHA256 of the subscriberId keyed with
 * the environment's API key, hex-encoded (what Novu's docs have an app's backend compute).
 */
export function validSubscriberHash(environment: InboxEnvironment, subscriberId: string, hash: unknown): boolean {
  if (typeof hash !== 'string' || !/^[0-9a-f]{64}$/i.test(hash)) return false;
  return sameBytes(hmac(environment.apiKey, subscriberId), Buffer.from(hash, 'hex'));
}

/** The key tokens are signed with: derived from the API key, so every process agrees and rotating the key ends every session. */
const signingKey = (environment: InboxEnvironment) => hmac(environment.apiKey, 'tidings inbox session').toString('hex');

/** A token scoped to (environment, subscriber), valid until `expiresAt` (ms): `<payload>.<signature>`, both base64url. */
export function issueToken(environment: InboxEnvironment, subscriberId: string, expiresAt: number): string {
  const payload = Buffer.from(JSON.stringify({ a: environment.applicationIdentifier, s: subscriberId, x: expiresAt })).toString('base64url');
  return `${payload}.${hmac(signingKey(environment), payload).toString('base64url')}`;
}

/** The session a token opens, or a 401: a token of another environment, forged, or expired at `now`. */
export function readToken(token: string | undefined, environments: ReadonlyMap<string, InboxEnvironment>, now: number): InboxSession {
  const refused = (why: string) => new HttpError(401, why);
  if (!token) throw refused('Missing the inbox session token (Authorization: Bearer <token>)');
  const [payload, signature] = token.split('.');
  if (!payload || !signature) throw refused('The inbox session token is not valid');
  let claims: { a?: unknown; s?: unknown; x?: unknown };
  try {
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as typeof claims;
  } catch {
    throw refused('The inbox session token is not valid');
  }
  const environment = typeof claims.a === 'string' ? environments.get(claims.a) : undefined;
  if (!environment || typeof claims.s !== 'string' || typeof claims.x !== 'number') throw refused('The inbox session token is not valid');
  if (!sameBytes(hmac(signingKey(environment), payload), Buffer.from(signature, 'base64url'))) throw refused('The inbox session token is not valid');
  if (claims.x <= now) throw refused('The inbox session has expired: open a new one');
  return { environment, subscriberId: claims.s };
}
