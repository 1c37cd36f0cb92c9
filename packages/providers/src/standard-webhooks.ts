import { createHmac, randomBytes } from 'node:crypto';
import { CallbackRefused } from '@tidings/core';
import { TOLERANCE_SECONDS, safeEqual } from './status-callbacks.js';

/**
 * Standard Webhooks (https://www.standardwebhooks.com), the scheme Svix signs with (and so Resend):
 * `webhook-id`, `webhook-timestamp` (Unix seconds) and `webhook-signature` = space-separated
 * `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, keyed with the secret's bytes (the base64 after
 * `whsec_`). Svix sends the same headers named `svix-id`, `svix-timestamp`, `svix-signature`.
 */
export interface StandardWebhookMessage {
  /** The message id: the same for every retry of one message, so receivers can drop duplicates. */
  readonly id: string;
  /** When it was signed, in Unix seconds. */
  readonly timestamp: number;
  /** The exact body sent. */
  readonly body: string;
}

export interface StandardWebhookHeaders {
  readonly 'webhook-id': string;
  readonly 'webhook-timestamp': string;
  readonly 'webhook-signature': string;
}

const PREFIX = 'whsec_';

/** The key bytes of a secret: base64, optionally `whsec_`-prefixed. Throws when there are none. */
export function standardWebhookKey(secret: string): Buffer {
  const encoded = secret.trim().replace(/^whsec_/, '');
  const key = Buffer.from(encoded, 'base64');
  if (key.length === 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) throw new Error('a Standard Webhooks secret is base64, optionally prefixed with whsec_');
  return key;
}

/** A new random secret (24 bytes), `whsec_`-prefixed, as Svix and the Standard Webhooks libraries make them. */
export const newStandardWebhookSecret = (): string => PREFIX + randomBytes(24).toString('base64');

/** The signed content is `id.timestamp.body`, the timestamp exactly as its header has it. */
const sign = (key: Buffer, id: string, timestamp: string, body: string) => createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');

/** The `v1,<base64>` signature of a message. */
export function signStandardWebhook(secret: string, message: StandardWebhookMessage): string {
  return `v1,${sign(standardWebhookKey(secret), message.id, String(message.timestamp), message.body)}`;
}

/** The three headers a signed webhook carries. */
export function standardWebhookHeaders(secret: string, message: StandardWebhookMessage): StandardWebhookHeaders {
  return { 'webhook-id': message.id, 'webhook-timestamp': String(message.timestamp), 'webhook-signature': signStandardWebhook(secret, message) };
}

export interface VerifyStandardWebhookOptions {
  /** Named in refusals. @default 'webhook' */
  readonly service?: string;
  /** How far `webhook-timestamp` may be from now, either way. @default 300 */
  readonly toleranceSeconds?: number;
  /** Now, in ms. @default Date.now() */
  readonly now?: number;
}

/**
 * Checks a received webhook: headers (lower-case names) `webhook-*`, or else `svix-*`; the timestamp
 * within the tolerance of now; one of the `v1` signatures the HMAC of `id.timestamp.body` (compared
 * timing-safe). Resolves with the message id and timestamp; throws `CallbackRefused` saying what is
 * wrong (never the expected signature).
 */
export function verifyStandardWebhook(
  secret: string,
  headers: Readonly<Record<string, string | undefined>>,
  body: string,
  options: VerifyStandardWebhookOptions = {},
): { id: string; timestamp: number } {
  const service = options.service ?? 'webhook';
  const refuse = (what: string) => new CallbackRefused(`${service} callback refused: ${what}`);
  const prefix = headers['webhook-id'] !== undefined ? 'webhook' : 'svix';
  const id = headers[`${prefix}-id`]?.trim();
  const timestamp = headers[`${prefix}-timestamp`]?.trim();
  const signatures = headers[`${prefix}-signature`]?.trim();
  if (!id || !timestamp || !signatures) throw refuse(`the callback is not signed (no ${prefix}-id, ${prefix}-timestamp and ${prefix}-signature headers)`);
  if (!/^\d{1,12}$/.test(timestamp)) throw refuse(`${prefix}-timestamp is not a Unix time`);
  const seconds = Number(timestamp);
  const tolerance = options.toleranceSeconds ?? TOLERANCE_SECONDS;
  if (Math.abs((options.now ?? Date.now()) / 1000 - seconds) > tolerance) throw refuse(`${prefix}-timestamp is more than ${tolerance} s away from now (a replay?)`);
  let key: Buffer;
  try {
    key = standardWebhookKey(secret);
  } catch {
    throw refuse('the signing secret is not a whsec_ secret');
  }
  const expected = sign(key, id, timestamp, body);
  // Several signatures during a secret rotation; `v1a` (asymmetric) and unknown versions are skipped.
  const matched = signatures
    .split(/\s+/)
    .map((entry) => entry.split(','))
    .some(([version, signature]) => version === 'v1' && signature !== undefined && safeEqual(signature, expected));
  if (!matched) throw refuse(`${prefix}-signature does not match the body`);
  return { id, timestamp: seconds };
}
