import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import type { ProviderCallback, ProviderStatusEvent } from '@tidings/core';
import { checkFresh, contentEventId, header, isoTime, jsonBody, reasonText, record, refusal, requireSigningKey, statusEvent, text, type StatusIntegration } from '../status-callbacks.js';

const SERVICE = 'SendGrid';

/**
 * The verification key SendGrid shows for the Signed Event Webhook: base64 of the SPKI DER of an
 * ECDSA P-256 public key (a PEM `PUBLIC KEY` block is taken too).
 */
function verificationKey(signingKey: string): KeyObject {
  try {
    if (signingKey.includes('-----BEGIN')) return createPublicKey(signingKey);
    return createPublicKey({ key: Buffer.from(signingKey.replace(/\s+/g, ''), 'base64'), format: 'der', type: 'spki' });
  } catch {
    throw refusal(SERVICE, 'the inboundWebhookSigningKey is not the verification key (base64 public key) SendGrid shows');
  }
}

/**
 * `sg_message_id` is the `X-Message-Id` of the send (what `send` returned) followed by `.` and
 * SendGrid's routing suffix.
 */
const messageIdOf = (sgMessageId: string) => sgMessageId.split('.')[0]!;

function readEvent(value: unknown): ProviderStatusEvent[] {
  const event = record(value);
  const sgMessageId = text(event?.sg_message_id);
  if (!event || !sgMessageId) return [];
  const common = {
    providerMessageId: messageIdOf(sgMessageId),
    at: isoTime(event.timestamp),
    eventId: text(event.sg_event_id) ?? contentEventId(SERVICE, sgMessageId, text(event.event), text(event.timestamp)),
    address: text(event.email),
  };
  switch (event.event) {
    case 'delivered':
      return [statusEvent({ ...common, state: 'delivered' })];
    case 'bounce':
      // `type` is `bounce` (the receiving server refused the address) or `blocked` (it refused
      // this message, e.g. for reputation or content: the address may take mail later).
      return [statusEvent({ ...common, state: 'bounced', bounce: event.type === 'blocked' ? 'soft' : 'hard', reason: reasonText(event.reason, event.status) })];
    case 'dropped':
      // SendGrid did not even try; `Bounced Address` means the address is on its bounce list.
      return [statusEvent({ ...common, state: 'failed', reason: reasonText(event.reason), permanent: event.reason === 'Bounced Address' ? true : undefined })];
    case 'spamreport':
      return [statusEvent({ ...common, state: 'complained' })];
    case 'open':
      return [statusEvent({ ...common, state: 'opened' })];
    case 'click':
      return [statusEvent({ ...common, state: 'clicked' })];
    default:
      // processed, deferred, unsubscribe, group_unsubscribe, group_resubscribe: not tracked.
      return [];
  }
}

/**
 * Reads a SendGrid Event Webhook POST (a JSON array of events), signed: the
 * `X-Twilio-Email-Event-Webhook-Signature` header is the base64 DER ECDSA P-256/SHA-256 signature of
 * the `X-Twilio-Email-Event-Webhook-Timestamp` header followed by the raw body, checked with the
 * verification key in the integration's `inboundWebhookSigningKey`. Timestamps more than 5 minutes
 * from now are refused as replays.
 */
export async function readSendgridStatus(callback: ProviderCallback, integration: StatusIntegration): Promise<ProviderStatusEvent[]> {
  const key = verificationKey(requireSigningKey(SERVICE, integration));
  const signature = header(callback, 'x-twilio-email-event-webhook-signature');
  const timestamp = header(callback, 'x-twilio-email-event-webhook-timestamp');
  if (!signature || !timestamp) throw refusal(SERVICE, 'the callback is not signed (no X-Twilio-Email-Event-Webhook-Signature and -Timestamp headers)');
  checkFresh(SERVICE, timestamp, integration.now?.getTime());
  let valid = false;
  try {
    valid = verify('sha256', Buffer.from(timestamp + callback.body, 'utf8'), { key, dsaEncoding: 'der' }, Buffer.from(signature, 'base64'));
  } catch {
    valid = false;
  }
  if (!valid) throw refusal(SERVICE, 'the X-Twilio-Email-Event-Webhook-Signature does not match the body');
  const events = jsonBody(SERVICE, callback);
  if (!Array.isArray(events)) throw refusal(SERVICE, 'the body is not an array of events');
  return events.flatMap(readEvent);
}
