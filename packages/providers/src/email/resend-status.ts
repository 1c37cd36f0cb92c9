import type { ProviderCallback, ProviderStatusEvent } from '@tidings/core';
import { verifyStandardWebhook } from '../standard-webhooks.js';
import { isoTime, jsonBody, reasonText, record, refusal, requireSigningKey, statusEvent, text, type StatusIntegration } from '../status-callbacks.js';

const SERVICE = 'Resend';

/**
 * Reads a Resend webhook: signed by Svix (`svix-id`, `svix-timestamp`, `svix-signature`, see
 * `verifyStandardWebhook`) with the endpoint's `whsec_` signing secret in the integration's
 * `inboundWebhookSigningKey`; timestamps more than 5 minutes from now are refused. The event id is
 * `svix-id`, the same for every retry of one event. `email.bounced` is a hard bounce unless
 * `data.bounce.type` says it was transient; `email.suppressed` (Resend did not send to an address on
 * its suppression list) is a permanent failure, `email.failed` a failure.
 */
export async function readResendStatus(callback: ProviderCallback, integration: StatusIntegration): Promise<ProviderStatusEvent[]> {
  const secret = requireSigningKey(SERVICE, integration);
  const { id } = verifyStandardWebhook(secret, callback.headers, callback.body, { service: SERVICE });
  const event = record(jsonBody(SERVICE, callback));
  if (!event) throw refusal(SERVICE, 'the body is not an event object');
  const data = record(event.data);
  const emailId = text(data?.email_id);
  if (!data || !emailId) return [];
  const to = Array.isArray(data.to) ? data.to : [data.to];
  const common = { providerMessageId: emailId, at: isoTime(event.created_at), eventId: id, address: text(to[0]) };
  switch (event.type) {
    case 'email.delivered':
      return [statusEvent({ ...common, state: 'delivered' })];
    case 'email.bounced': {
      const bounce = record(data.bounce);
      const soft = /transient|soft|temporary/i.test(text(bounce?.type) ?? '');
      return [statusEvent({ ...common, state: 'bounced', bounce: soft ? 'soft' : 'hard', reason: reasonText(bounce?.message, bounce?.subType, bounce?.type) })];
    }
    case 'email.complained':
      return [statusEvent({ ...common, state: 'complained' })];
    case 'email.opened':
      return [statusEvent({ ...common, state: 'opened' })];
    case 'email.clicked':
      return [statusEvent({ ...common, state: 'clicked' })];
    case 'email.failed':
      return [statusEvent({ ...common, state: 'failed', reason: reasonText(record(data.failed)?.reason) })];
    case 'email.suppressed':
      return [statusEvent({ ...common, state: 'failed', permanent: true, reason: reasonText(record(data.suppressed)?.message, record(data.suppressed)?.type, 'suppressed') })];
    default:
      // email.sent, email.scheduled, email.delivery_delayed, email.received, contact.*, domain.*: not tracked.
      return [];
  }
}
