import { createHash, createHmac, timingSafeEqual, type BinaryToTextEncoding } from 'node:crypto';
import { CallbackRefused, type Credentials, type ProviderCallback, type ProviderStatusEvent } from '@tidings/core';

/** What `Provider.readStatus` gets besides the callback: the credentials and the webhook signing key. */
export interface StatusIntegration {
  readonly credentials: Credentials;
  /** The integration's `configurations.inboundWebhookSigningKey`. */
  readonly signingKey?: string;
  /** The engine clock's time, that signed timestamps are checked against; the current time when absent. */
  readonly now?: Date;
}

/** How far a signed timestamp may be from now (either way) before the callback counts as a replay. */
export const TOLERANCE_SECONDS = 5 * 60;

/** Longest `reason` kept: services put whole SMTP transcripts there. */
const MAX_REASON = 500;

/** A refusal naming the service and what is wrong (never a secret or a computed signature). */
export const refusal = (service: string, what: string) => new CallbackRefused(`${service} callback refused: ${what}`);

/**
 * Compares two secrets or signatures in time independent of where they differ (and of their lengths:
 * both sides are hashed first, so `timingSafeEqual` always gets equal lengths).
 */
export function safeEqual(a: string | Uint8Array, b: string | Uint8Array): boolean {
  const digest = (value: string | Uint8Array) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(a), digest(b));
}

/** An HMAC of `data` keyed with `key`, as text. */
export const hmac = (algorithm: string, key: string | Uint8Array, data: string, encoding: BinaryToTextEncoding): string =>
  createHmac(algorithm, key).update(data, 'utf8').digest(encoding);

/** The integration's signing key, or a refusal: a callback that cannot be checked is never accepted. */
export function requireSigningKey(service: string, integration: StatusIntegration): string {
  const key = integration.signingKey?.trim();
  if (!key) throw refusal(service, 'the integration has no inboundWebhookSigningKey to check the callback with');
  return key;
}

/** A header of the callback (names are lower case), trimmed; undefined when absent or empty. */
export function header(callback: ProviderCallback, name: string): string | undefined {
  const value = callback.headers[name.toLowerCase()]?.trim();
  return value ? value : undefined;
}

/** The body as JSON, or a refusal. */
export function jsonBody(service: string, callback: ProviderCallback): unknown {
  try {
    return JSON.parse(callback.body) as unknown;
  } catch {
    throw refusal(service, 'the body is not JSON');
  }
}

/** A form-encoded body (or query string) as its fields, in order, names repeated as sent. */
export const formFields = (encoded: string): [string, string][] => [...new URLSearchParams(encoded)];

/** A JSON object's members, or undefined for anything else (arrays included). */
export function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** A string, or a finite number as text; undefined for anything else and for ''. */
export function text(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** A reason as stored: trimmed, at most 500 characters, undefined when empty. */
export function reasonText(...candidates: unknown[]): string | undefined {
  for (const candidate of candidates) {
    const value = text(candidate)?.trim();
    if (value) return value.length > MAX_REASON ? `${value.slice(0, MAX_REASON - 1)}…` : value;
  }
  return undefined;
}

/**
 * When an event happened, as ISO: an ISO/RFC date string, or a Unix time in seconds (number or
 * numeric string, fractions allowed). Anything else, or nothing, is now.
 */
export function isoTime(value: unknown, now = Date.now()): string {
  const seconds = typeof value === 'number' ? value : typeof value === 'string' && /^\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : undefined;
  const ms = seconds !== undefined ? seconds * 1000 : typeof value === 'string' ? Date.parse(value) : Number.NaN;
  return new Date(Number.isFinite(ms) ? ms : now).toISOString();
}

/** An event id made from a callback's content, for services that give none: the same content, the same id. */
export const contentEventId = (...parts: (string | undefined)[]): string =>
  createHash('sha256').update(parts.map((part) => part ?? '').join('\u0000')).digest('hex').slice(0, 40);

/** Refuses a signed timestamp (Unix seconds) further than `TOLERANCE_SECONDS` from now: a replay, or a clock gone wrong. */
export function checkFresh(service: string, timestamp: string, now = Date.now(), toleranceSeconds = TOLERANCE_SECONDS): number {
  if (!/^\d{1,12}$/.test(timestamp)) throw refusal(service, 'the signature timestamp is not a Unix time');
  const seconds = Number(timestamp);
  if (Math.abs(now / 1000 - seconds) > toleranceSeconds) throw refusal(service, `the signature timestamp is more than ${toleranceSeconds} s away from now (a replay?)`);
  return seconds;
}

/** The event without the optional members left undefined, so what is stored has only what the service said. */
export function statusEvent(event: ProviderStatusEvent): ProviderStatusEvent {
  return Object.fromEntries(Object.entries(event).filter(([, value]) => value !== undefined)) as unknown as ProviderStatusEvent;
}
