import { createHash } from 'node:crypto';
import type { ProviderCallback, ProviderStatusEvent } from '@tidings/core';
import { checkFresh, contentEventId, formFields, hmac, isoTime, reasonText, record, refusal, requireSigningKey, safeEqual, statusEvent, text, type StatusIntegration } from '../status-callbacks.js';

const SERVICE = 'Vonage';

/**
 * Vonage DLR error codes after which the number will never take an SMS (`permanent`), as Vonage's
 * delivery-receipt guide says to remove the number: 3 absent subscriber - permanent (the number is no
 * longer active), 4 call barred by user, 9 illegal number.
 */
export const VONAGE_PERMANENT_ERRORS: ReadonlySet<string> = new Set(['3', '4', '9']);

/** Vonage's documented DLR error codes, named for the stored reason. */
const ERROR_NAMES: Record<string, string> = {
  '1': 'unknown', '2': 'absent subscriber - temporary', '3': 'absent subscriber - permanent', '4': 'call barred by user',
  '5': 'portability error', '6': 'anti-spam rejection', '7': 'handset busy', '8': 'network error', '9': 'illegal number',
  '10': 'illegal message', '11': 'unroutable', '12': 'destination unreachable', '13': 'subscriber age restriction',
  '14': 'number blocked by carrier', '15': 'prepaid insufficient funds', '16': 'gateway quota exceeded', '50': 'entity filter',
  '51': 'header filter', '52': 'content filter', '53': 'consent filter', '54': 'regulation error', '99': 'general error',
};

type Method = 'md5hash' | 'md5' | 'sha1' | 'sha256' | 'sha512';
const METHODS: readonly Method[] = ['md5hash', 'md5', 'sha1', 'sha256', 'sha512'];
/** Hex signature length per method, to tell which one a signature was made with. */
const LENGTHS: Record<Method, number> = { md5hash: 32, md5: 32, sha1: 40, sha256: 64, sha512: 128 };

/**
 * The signature secret and the methods to try: `inboundWebhookSigningKey` is the account's signature
 * secret, optionally prefixed with the method chosen in the dashboard (`sha256:secret`; `md5hash`,
 * `md5`, `sha1`, `sha256`, `sha512`). Unprefixed, the method follows from the signature's length
 * (an MD5-long one may be the MD5 hash or the MD5 HMAC).
 */
function secretAndMethods(signingKey: string, signature: string): { secret: string; methods: Method[] } {
  const colon = signingKey.indexOf(':');
  const prefix = colon > 0 ? signingKey.slice(0, colon).toLowerCase() : '';
  if ((METHODS as readonly string[]).includes(prefix)) return { secret: signingKey.slice(colon + 1), methods: [prefix as Method] };
  return { secret: signingKey, methods: METHODS.filter((method) => LENGTHS[method] === signature.length) };
}

/** The string Vonage signs: `&name=value` for every field but `sig`, sorted by name, `&` and `=` in values replaced by `_`. */
const signedString = (fields: Map<string, string>) =>
  [...fields.keys()]
    .filter((name) => name !== 'sig')
    .sort()
    .map((name) => `&${name}=${fields.get(name)!.replace(/[&=]/g, '_')}`)
    .join('');

function signatureOf(method: Method, secret: string, signed: string): string {
  return method === 'md5hash' ? createHash('md5').update(signed + secret, 'utf8').digest('hex') : hmac(method, secret, signed, 'hex');
}

/**
 * The receipt's fields: the query string (Vonage's GET receipts), then the body, JSON (POST-JSON) or
 * form-encoded (POST), whose fields win.
 */
function receiptFields(callback: ProviderCallback): Map<string, string> {
  const fields = new Map<string, string>();
  try {
    for (const [name, value] of new URL(callback.url).searchParams) fields.set(name, value);
  } catch {
    // No query string to read.
  }
  const body = callback.body.trim();
  if (body.startsWith('{')) {
    let json: Record<string, unknown> | undefined;
    try {
      json = record(JSON.parse(body));
    } catch {
      json = undefined;
    }
    if (!json) throw refusal(SERVICE, 'the body is not JSON');
    for (const [name, value] of Object.entries(json)) {
      const field = typeof value === 'boolean' ? String(value) : text(value);
      if (field !== undefined) fields.set(name, field);
    }
  } else if (body !== '') {
    for (const [name, value] of formFields(body)) fields.set(name, value);
  }
  return fields;
}

/** `message-timestamp` (`2026-06-01 12:00:00`, UTC) as ISO; else now. */
const receiptTime = (value: string | undefined) => isoTime(value && /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/.test(value) ? `${value.replace(' ', 'T')}Z` : undefined);

/**
 * Reads a Vonage SMS API delivery receipt (GET query, POST form or POST-JSON: `messageId`, `status`,
 * `err-code`, `msisdn`, `message-timestamp`…), signed webhooks on: `sig` over the other fields with the
 * signature secret (see `secretAndMethods`). Unsigned receipts are refused, and so is every receipt
 * when the integration has no signing key, and one whose signed `timestamp` is more than
 * `TOLERANCE_SECONDS` from the engine's clock (a replay, or a clock gone wrong). States: delivered;
 * failed, rejected and expired are failures (`permanent` for `VONAGE_PERMANENT_ERRORS`); accepted,
 * buffered and unknown are not tracked. The event id is a hash of the message id, status and error code.
 */
export async function readVonageStatus(callback: ProviderCallback, integration: StatusIntegration): Promise<ProviderStatusEvent[]> {
  const signingKey = requireSigningKey(SERVICE, integration);
  const fields = receiptFields(callback);
  const sig = fields.get('sig')?.toLowerCase();
  if (!sig) throw refusal(SERVICE, 'the receipt is not signed (no sig field; signed webhooks must be on for the account)');
  const { secret, methods } = secretAndMethods(signingKey, sig);
  const signed = signedString(fields);
  if (!secret || !methods.some((method) => safeEqual(sig, signatureOf(method, secret, signed)))) throw refusal(SERVICE, 'the sig does not match the receipt (are the signature secret and method right?)');
  // The signature covers the receipt's `timestamp`: a captured receipt is taken only while it is fresh.
  const timestamp = fields.get('timestamp');
  if (!timestamp) throw refusal(SERVICE, 'the receipt has no signed timestamp');
  checkFresh(SERVICE, timestamp, integration.now?.getTime());

  const messageId = fields.get('messageId') ?? fields.get('message-id');
  const status = fields.get('status')?.toLowerCase();
  if (!messageId || !status) throw refusal(SERVICE, 'the receipt has no messageId and status');
  const code = fields.get('err-code');
  const msisdn = fields.get('msisdn');
  const common = {
    providerMessageId: messageId,
    at: receiptTime(fields.get('message-timestamp')),
    eventId: contentEventId(SERVICE, messageId, status, code),
    address: msisdn && /^\d+$/.test(msisdn) ? `+${msisdn}` : msisdn,
  };
  switch (status) {
    case 'delivered':
      return [statusEvent({ ...common, state: 'delivered' })];
    case 'failed':
    case 'rejected':
    case 'expired': {
      const permanent = code !== undefined && VONAGE_PERMANENT_ERRORS.has(code);
      const named = code !== undefined && ERROR_NAMES[code] ? `${code} ${ERROR_NAMES[code]}` : code;
      return [statusEvent({ ...common, state: 'failed', reason: reasonText(named, status), ...(permanent && { permanent }) })];
    }
    default:
      return [];
  }
}
