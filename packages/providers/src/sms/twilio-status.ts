import type { ProviderCallback, ProviderStatusEvent } from '@tidings/core';
import { contentEventId, formFields, header, hmac, isoTime, reasonText, refusal, safeEqual, statusEvent, type StatusIntegration } from '../status-callbacks.js';

const SERVICE = 'Twilio';

/**
 * Twilio error codes of an undelivered or failed message that mean the number will never take an SMS,
 * so retrying or resending is pointless (`permanent`): 21211 invalid To number, 21610 the recipient
 * replied STOP (unsubscribed), 21614 To is not a mobile number, 30005 unknown destination handset
 * (the number does not exist), 30006 landline or unreachable carrier. Others (30003 handset
 * unreachable, 30007 carrier filtering, 30008 unknown error, 3002x/3003x sender registration…) may
 * pass later or are about the sender, not the number.
 */
export const TWILIO_PERMANENT_ERRORS: ReadonlySet<string> = new Set(['21211', '21610', '21614', '30005', '30006']);

const userinfo = (url: URL) => (url.username || url.password ? `${url.username}${url.password ? `:${url.password}` : ''}@` : '');

/**
 * The URL as Twilio may have signed it: as called, and with and without the standard port, since
 * Twilio's own validators accept either (its signing is not consistent about the port).
 */
function signedUrls(url: string): string[] {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [url];
  }
  const withoutPort = new URL(parsed);
  withoutPort.port = '';
  const standard = parsed.protocol === 'https:' ? '443' : '80';
  // Written out by hand: URL drops a scheme's default port.
  const withPort = parsed.port ? parsed.toString() : `${parsed.protocol}//${userinfo(parsed)}${parsed.hostname}:${standard}${parsed.pathname}${parsed.search}${parsed.hash}`;
  return [...new Set([url, parsed.toString(), withoutPort.toString(), withPort])];
}

/** Twilio's signed string: the URL, then each POST field name and value, fields sorted by name (a repeated name's values sorted too). */
function signedData(url: string, fields: [string, string][]): string {
  const byName = new Map<string, Set<string>>();
  for (const [name, value] of fields) byName.set(name, (byName.get(name) ?? new Set()).add(value));
  let data = url;
  for (const name of [...byName.keys()].sort()) for (const value of [...byName.get(name)!].sort()) data += name + value;
  return data;
}

/**
 * Reads a Twilio Messaging status callback (form-encoded `MessageSid`, `MessageStatus`, `ErrorCode`,
 * `To`…), checking `X-Twilio-Signature`: base64 HMAC-SHA1, keyed with the account's auth token (the
 * `token` credential), of the full callback URL followed by the POST fields sorted by name. States:
 * delivered; undelivered and failed are failures (`permanent` for `TWILIO_PERMANENT_ERRORS`); read
 * (WhatsApp, RCS) is an open; queued, sending, sent and the like are not tracked. Twilio gives no
 * event id nor time: the id is a hash of MessageSid and MessageStatus, the time is when the callback came.
 */
export async function readTwilioStatus(callback: ProviderCallback, integration: StatusIntegration): Promise<ProviderStatusEvent[]> {
  const token = integration.credentials.token;
  if (!token) throw refusal(SERVICE, 'the integration has no token (auth token) credential to check the signature with');
  const signature = header(callback, 'x-twilio-signature');
  if (!signature) throw refusal(SERVICE, 'the callback is not signed (no X-Twilio-Signature header)');
  const fields = formFields(callback.body);
  const valid = signedUrls(callback.url).some((url) => safeEqual(signature, hmac('sha1', token, signedData(url, fields), 'base64')));
  if (!valid) throw refusal(SERVICE, 'the X-Twilio-Signature does not match the URL and fields (is the callback URL the one Twilio called?)');

  const field = (name: string) => fields.find(([key]) => key === name)?.[1] || undefined;
  const sid = field('MessageSid') ?? field('SmsSid');
  const status = field('MessageStatus') ?? field('SmsStatus');
  if (!sid || !status) throw refusal(SERVICE, 'the callback has no MessageSid and MessageStatus');
  const common = { providerMessageId: sid, at: isoTime(undefined), eventId: contentEventId(SERVICE, sid, status), address: field('To') };
  switch (status) {
    case 'delivered':
      return [statusEvent({ ...common, state: 'delivered' })];
    case 'undelivered':
    case 'failed': {
      const code = field('ErrorCode');
      const permanent = code !== undefined && TWILIO_PERMANENT_ERRORS.has(code);
      return [statusEvent({ ...common, state: 'failed', reason: reasonText(code, status), ...(permanent && { permanent }) })];
    }
    case 'read':
      return [statusEvent({ ...common, state: 'opened' })];
    default:
      return [];
  }
}
