import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Tidings } from '@tidings/core';
import { canonicalJson } from '@tidings/core/internal';
import { HttpError } from '../errors.js';

/** Sessions last 30 days: Novu's client never refreshes a token, so one must outlive a long-open tab. */
export const SESSION_MS = 30 * 24 * 3_600_000;

/** An environment as the Inbox reaches it: its engine, its public identifier and its secret API key. */
export interface InboxEnvironment {
  readonly tidings: Tidings;
  readonly applicationIdentifier: string;
  readonly apiKey: string;
  /** The key hashes and sessions were made with before a rotation: still accepted until `until` (ms). */
  readonly previous?: { readonly apiKey: string; readonly until: number };
}

/** The keys a hash or session token may have been made with at `now`: the current one, and the previous one in its grace. */
const keysAt = (environment: InboxEnvironment, now: number): string[] =>
  environment.previous && now < environment.previous.until ? [environment.apiKey, environment.previous.apiKey] : [environment.apiKey];

export interface InboxSession {
  readonly environment: InboxEnvironment;
  readonly subscriberId: string;
  /**
   * The contexts the session was opened with, by type (`{ tenant: 'acme' }`): it sees only the
   * messages triggered with exactly these; empty, only those triggered with none.
   */
  readonly context: Readonly<Record<string, string>>;
}

const hmac = (key: string, text: string) => createHmac('sha256', key).update(text).digest();

function sameBytes(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Whether `hash` is the subscriberHash of `subscriberId`: HMAC-SHA256 of the subscriberId keyed with
 * the environment's API key (or the previous one, in its grace), hex-encoded (what Novu's docs have an
 * app's backend compute).
 */
export function validSubscriberHash(environment: InboxEnvironment, subscriberId: string, hash: unknown, now: number): boolean {
  if (typeof hash !== 'string' || !/^[0-9a-f]{64}$/i.test(hash)) return false;
  return keysAt(environment, now).some((key) => sameBytes(hmac(key, subscriberId), Buffer.from(hash, 'hex')));
}

/**
 * Whether `hash` is the contextHash of `context`: HMAC-SHA256 of its canonical JSON (members sorted,
 * so their order does not matter), keyed and encoded as the subscriberHash.
 */
export function validContextHash(environment: InboxEnvironment, context: unknown, hash: unknown, now: number): boolean {
  if (typeof hash !== 'string' || !/^[0-9a-f]{64}$/i.test(hash)) return false;
  return keysAt(environment, now).some((key) => sameBytes(hmac(key, canonicalJson(context)), Buffer.from(hash, 'hex')));
}

/**
 * The key tokens are signed with: derived from an API key, so every process agrees; rotating the key
 * ends every session once the previous key's grace is over.
 */
const signingKey = (apiKey: string) => hmac(apiKey, 'tidings inbox session').toString('hex');

/** The signature of a token's payload text with an API key's signing key, base64url: the only spelling readToken accepts. */
const signatureOf = (apiKey: string, payload: string) => hmac(signingKey(apiKey), payload).toString('base64url');

/** A token scoped to (environment, subscriber, contexts), valid until `expiresAt` (ms): `<payload>.<signature>`, both base64url. */
export function issueToken(environment: InboxEnvironment, subscriberId: string, expiresAt: number, context: Readonly<Record<string, string>> = {}): string {
  const scoped = Object.keys(context).length > 0 ? { c: context } : {};
  const payload = Buffer.from(JSON.stringify({ a: environment.applicationIdentifier, s: subscriberId, x: expiresAt, ...scoped })).toString('base64url');
  return `${payload}.${signatureOf(environment.apiKey, payload)}`;
}

/** Unpadded base64url, nothing else (Node's decoder would skip other characters). */
const BASE64URL = /^[A-Za-z0-9_-]+$/;

interface Claims {
  readonly a: string;
  readonly s: string;
  readonly x: number;
  /** The session's contexts; tokens of sessions without any leave it out. */
  readonly c: Readonly<Record<string, string>>;
}

const isIdMap = (value: unknown): value is Record<string, string> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && Object.values(value).every((id) => typeof id === 'string');

/** The claims of a payload written as issueToken writes it (canonical base64url of a JSON object), or null. */
function claimsOf(payload: string): Claims | null {
  const bytes = Buffer.from(payload, 'base64url');
  if (bytes.toString('base64url') !== payload) return null;
  let claims: unknown;
  try {
    claims = JSON.parse(bytes.toString('utf8'));
  } catch {
    return null;
  }
  if (typeof claims !== 'object' || claims === null) return null;
  const { a, s, x, c = {} } = claims as Record<string, unknown>;
  return typeof a === 'string' && typeof s === 'string' && typeof x === 'number' && isIdMap(c) ? { a, s, x, c } : null;
}

/**
 * The session a token opens, or a 401: a token of another environment, forged, expired at `now`, or
 * spelled other than issueToken spells it (exactly two base64url segments, the signature the one
 * encoding of the HMAC), so each session has one token text.
 */
export function readToken(token: string | undefined, environments: ReadonlyMap<string, InboxEnvironment>, now: number): InboxSession {
  const refused = (why: string) => new HttpError(401, why);
  if (!token) throw refused('Missing the inbox session token (Authorization: Bearer <token>)');
  const invalid = () => refused('The inbox session token is not valid');
  const segments = token.split('.');
  if (segments.length !== 2 || !segments.every((segment) => BASE64URL.test(segment))) throw invalid();
  const [payload, signature] = segments as [string, string];
  const claims = claimsOf(payload);
  const environment = claims === null ? undefined : environments.get(claims.a);
  if (!claims || !environment) throw invalid();
  if (!keysAt(environment, now).some((key) => sameBytes(Buffer.from(signatureOf(key, payload)), Buffer.from(signature)))) throw invalid();
  if (claims.x <= now) throw refused('The inbox session has expired: open a new one');
  return { environment, subscriberId: claims.s, context: claims.c };
}
