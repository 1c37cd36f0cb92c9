import type { ProviderCallback, ProviderStatusEvent } from '@tidings/core';
import { contentEventId, header, isoTime, jsonBody, reasonText, record, refusal, requireSigningKey, safeEqual, statusEvent, text, type StatusIntegration } from '../status-callbacks.js';

const SERVICE = 'Postmark';

/** Bounce types that say the address is gone (besides any bounce after which Postmark deactivated it). */
const HARD = new Set(['HardBounce', 'BadEmailAddress', 'ManuallyDeactivated']);
/** Bounce records that are no delivery failure at all. */
const NOT_BOUNCES = new Set(['AutoResponder', 'AddressChange', 'Subscribe', 'Unsubscribe', 'ChallengeVerification', 'OpenRelayTest']);

/**
 * Postmark signs nothing: its webhooks are protected with HTTP Basic auth written into the webhook
 * URL (`https://user:password@…`). The integration's `inboundWebhookSigningKey` holds `user:password`;
 * the `Authorization` header must carry exactly that (compared timing-safe).
 */
function checkBasicAuth(callback: ProviderCallback, expected: string): void {
  if (!expected.includes(':')) throw refusal(SERVICE, 'the inboundWebhookSigningKey must be the user:password of the webhook URL');
  const authorization = header(callback, 'authorization');
  const match = authorization ? /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(authorization) : null;
  if (!match) throw refusal(SERVICE, 'the callback has no Basic Authorization header (put user:password in the webhook URL)');
  if (!safeEqual(Buffer.from(match[1]!, 'base64').toString('utf8'), expected)) throw refusal(SERVICE, 'the Basic Authorization user or password is wrong');
}

/**
 * Reads a Postmark webhook (one JSON record per POST): `RecordType` Delivery, Bounce (hard for
 * HardBounce, BadEmailAddress, ManuallyDeactivated or any bounce after which Postmark made the address
 * `Inactive`; auto-replies, address changes and the like are not failures; every other type, e.g.
 * SoftBounce, Transient, DnsError, is soft), SpamComplaint, Open, Click. The message id is `MessageID`,
 * as `send` returned it.
 */
export async function readPostmarkStatus(callback: ProviderCallback, integration: StatusIntegration): Promise<ProviderStatusEvent[]> {
  checkBasicAuth(callback, requireSigningKey(SERVICE, integration));
  const event = record(jsonBody(SERVICE, callback));
  if (!event) throw refusal(SERVICE, 'the body is not a webhook record');
  const messageId = text(event.MessageID);
  if (!messageId) return [];
  const kind = text(event.RecordType);
  const at = text(event.DeliveredAt) ?? text(event.BouncedAt) ?? text(event.ReceivedAt);
  const common = {
    providerMessageId: messageId,
    at: isoTime(at),
    // Bounces and complaints carry Postmark's numeric `ID`, but it may exceed what a JSON number holds
    // exactly, so the id is made from it together with the rest of the record's identity.
    eventId: contentEventId(SERVICE, kind, text(event.ID), messageId, text(event.Recipient) ?? text(event.Email), text(event.Type), at, text(event.OriginalLink)),
    address: text(event.Recipient) ?? text(event.Email),
  };
  switch (kind) {
    case 'Delivery':
      return [statusEvent({ ...common, state: 'delivered' })];
    case 'Bounce': {
      const type = text(event.Type) ?? '';
      const hard = event.Inactive === true || HARD.has(type);
      if (!hard && NOT_BOUNCES.has(type)) return [];
      return [statusEvent({ ...common, state: 'bounced', bounce: hard ? 'hard' : 'soft', reason: reasonText(type && text(event.Details) ? `${type}: ${text(event.Details)}` : undefined, event.Description, type) })];
    }
    case 'SpamComplaint':
      return [statusEvent({ ...common, state: 'complained' })];
    case 'Open':
      return [statusEvent({ ...common, state: 'opened' })];
    case 'Click':
      return [statusEvent({ ...common, state: 'clicked' })];
    default:
      // SubscriptionChange and anything newer: not tracked.
      return [];
  }
}
