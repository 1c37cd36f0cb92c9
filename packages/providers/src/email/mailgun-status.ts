import type { ProviderCallback, ProviderStatusEvent, StatusReading } from '@tidings/core';
import { checkFresh, contentEventId, hmac, TOLERANCE_SECONDS, isoTime, jsonBody, reasonText, record, refusal, requireSigningKey, safeEqual, statusEvent, text, type StatusIntegration } from '../status-callbacks.js';

const SERVICE = 'Mailgun';

/**
 * Mailgun's Messages API answers the id in angle brackets (`<20260601120000.abc@mg.example.com>`),
 * and `send` returns it so; webhooks carry the `Message-Id` header without them. The status events
 * use the bracketed form, so they match what `send` returned.
 */
export const mailgunMessageId = (id: string): string => (id.startsWith('<') && id.endsWith('>') ? id : `<${id}>`);

/**
 * Reads a Mailgun webhook: JSON `{ signature: { timestamp, token, signature }, "event-data": {…} }`,
 * where `signature` is the hex HMAC-SHA256 of timestamp + token keyed with the HTTP webhook signing key
 * (the integration's `inboundWebhookSigningKey`). Events: delivered; failed with `severity` permanent
 * (a hard bounce) or temporary (a soft one, Mailgun tries again); rejected (a failure); complained;
 * opened; clicked. The event id is `event-data.id`.
 *
 * The signature covers neither the body nor the URL, so a captured one would carry any body: the
 * signed timestamp must be within `TOLERANCE_SECONDS` of now (Mailgun documents the check but no
 * number), and the token is returned as the callback's one-time value, which the engine refuses a
 * second time until the timestamp is too old anyway.
 */
export async function readMailgunStatus(callback: ProviderCallback, integration: StatusIntegration): Promise<StatusReading> {
  const key = requireSigningKey(SERVICE, integration);
  const payload = record(jsonBody(SERVICE, callback));
  if (!payload) throw refusal(SERVICE, 'the body is not a webhook object');
  const signed = record(payload.signature);
  const timestamp = text(signed?.timestamp);
  const token = text(signed?.token);
  const signature = text(signed?.signature);
  if (!timestamp || !token || !signature) throw refusal(SERVICE, 'the callback is not signed (no signature.timestamp, token and signature)');
  if (!safeEqual(signature.toLowerCase(), hmac('sha256', key, timestamp + token, 'hex'))) throw refusal(SERVICE, 'the signature does not match (is the HTTP webhook signing key right?)');
  const signedAt = checkFresh(SERVICE, timestamp, integration.now?.getTime());
  const once = { value: token, until: new Date((signedAt + TOLERANCE_SECONDS + 1) * 1000).toISOString() };
  return { events: mailgunEvents(payload), once };
}

/** The events of a signed webhook's `event-data` that Tidings tracks. */
function mailgunEvents(payload: Record<string, unknown>): ProviderStatusEvent[] {
  const event = record(payload['event-data']);
  if (!event) throw refusal(SERVICE, 'the callback has no event-data');
  const headerId = text(record(record(event.message)?.headers)?.['message-id']);
  if (!headerId) return [];
  const kind = text(event.event);
  const status = record(event['delivery-status']);
  const common = {
    providerMessageId: mailgunMessageId(headerId),
    at: isoTime(event.timestamp),
    eventId: text(event.id) ?? contentEventId(SERVICE, headerId, kind, text(event.timestamp)),
    address: text(event.recipient),
  };
  const reason = () => reasonText(status?.description, status?.message, event.reason, status?.code);
  switch (kind) {
    case 'delivered':
      return [statusEvent({ ...common, state: 'delivered' })];
    case 'failed':
      return [statusEvent({ ...common, state: 'bounced', bounce: event.severity === 'temporary' ? 'soft' : 'hard', reason: reason() })];
    case 'rejected':
      return [statusEvent({ ...common, state: 'failed', reason: reason() })];
    case 'complained':
      return [statusEvent({ ...common, state: 'complained' })];
    case 'opened':
      return [statusEvent({ ...common, state: 'opened' })];
    case 'clicked':
      return [statusEvent({ ...common, state: 'clicked' })];
    default:
      // accepted, unsubscribed, stored, list_member_uploaded…: not tracked.
      return [];
  }
}
