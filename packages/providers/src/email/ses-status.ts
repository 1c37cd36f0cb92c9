import type { ProviderCallback, ProviderStatusEvent } from '@tidings/core';
import { answerError, atBase, serviceRequest } from '../http.js';
import { requestOptions, type ServiceProviderOptions } from '../service-options.js';
import { checkSnsSignature, SNS_SIGNED_KEYS, snsUrl, type SnsCertificates } from '../sns-signature.js';
import { jsonBody, reasonText, record, refusal, requireSigningKey, isoTime, statusEvent, text, type StatusIntegration } from '../status-callbacks.js';

export { snsCertificates, type SnsCertificates } from '../sns-signature.js';

const SERVICE = 'SES';

const strings = (value: unknown): string[] => (Array.isArray(value) ? value.map(text).filter((item): item is string => item !== undefined) : []);

/**
 * The events of one SES event (configuration-set event publishing, `eventType`; identity
 * notifications, `notificationType`, read the same): one per recipient it names. Bounce: `Permanent`
 * is hard, `Transient` and `Undetermined` soft. Reject and Rendering Failure are failures; Send,
 * DeliveryDelay and Subscription are not tracked.
 */
function sesEvents(event: Record<string, unknown>, snsMessageId: string): ProviderStatusEvent[] {
  const mail = record(event.mail);
  const messageId = text(mail?.messageId);
  if (!messageId) return [];
  const destination = strings(mail?.destination);
  const each = (addresses: string[], at: unknown, build: (address: string | undefined) => Pick<ProviderStatusEvent, 'state' | 'bounce' | 'reason'>) => {
    const targets: (string | undefined)[] = addresses.length > 0 ? addresses : [undefined];
    return targets.map((address) =>
      statusEvent({
        providerMessageId: messageId,
        at: isoTime(at ?? mail?.timestamp),
        // One SNS message per SES event; a second recipient of the same event needs its own id.
        eventId: targets.length > 1 ? `${snsMessageId}:${address}` : snsMessageId,
        address,
        ...build(address),
      }),
    );
  };
  switch (text(event.eventType) ?? text(event.notificationType)) {
    case 'Delivery': {
      const delivery = record(event.delivery);
      const recipients = strings(delivery?.recipients);
      return each(recipients.length > 0 ? recipients : destination, delivery?.timestamp, () => ({ state: 'delivered' }));
    }
    case 'Bounce': {
      const bounce = record(event.bounce);
      const recipients = (Array.isArray(bounce?.bouncedRecipients) ? bounce.bouncedRecipients : []).map(record);
      const diagnostic = new Map(recipients.map((r) => [text(r?.emailAddress), r?.diagnosticCode]));
      const kind = bounce?.bounceType === 'Permanent' ? 'hard' : 'soft';
      const addresses = recipients.map((r) => text(r?.emailAddress)).filter((a): a is string => a !== undefined);
      return each(addresses, bounce?.timestamp, (address) => ({
        state: 'bounced',
        bounce: kind,
        reason: reasonText(diagnostic.get(address), [text(bounce?.bounceType), text(bounce?.bounceSubType)].filter(Boolean).join('/')),
      }));
    }
    case 'Complaint': {
      const complaint = record(event.complaint);
      const addresses = (Array.isArray(complaint?.complainedRecipients) ? complaint.complainedRecipients : []).map((r) => text(record(r)?.emailAddress)).filter((a): a is string => a !== undefined);
      return each(addresses, complaint?.timestamp, () => ({ state: 'complained', reason: reasonText(complaint?.complaintFeedbackType) }));
    }
    case 'Open':
      return each(destination, record(event.open)?.timestamp, () => ({ state: 'opened' }));
    case 'Click':
      return each(destination, record(event.click)?.timestamp, () => ({ state: 'clicked' }));
    case 'Reject':
      return each(destination, undefined, () => ({ state: 'failed', reason: reasonText(record(event.reject)?.reason) }));
    case 'Rendering Failure':
      return each(destination, undefined, () => ({ state: 'failed', reason: reasonText(record(event.failure)?.errorMessage) }));
    default:
      return [];
  }
}

/**
 * Reads an Amazon SNS HTTP(S) notification carrying an SES event (raw message delivery off). SNS
 * signs with a certificate: `SigningCertURL` must be https on `sns.<region>.amazonaws.com`, the
 * certificate is fetched (and cached) through the guarded request and must be issued to SNS (see
 * `snsCertificates`), and `Signature` is checked over the members SNS documents for the message type.
 * Any AWS account can make a topic SNS signs, so the integration's `inboundWebhookSigningKey` names
 * the topic ARN(s) accepted (comma- or space-separated): a message of any other topic is refused.
 *
 * A `SubscriptionConfirmation` (once signed and of an accepted topic) is confirmed here: the provider
 * GETs its `SubscribeURL` (https on an SNS host, through the guarded request) and returns no events.
 * `UnsubscribeConfirmation` returns no events.
 */
export async function readSesStatus(
  callback: ProviderCallback,
  integration: StatusIntegration,
  certificates: SnsCertificates,
  options: ServiceProviderOptions,
): Promise<ProviderStatusEvent[]> {
  const topics = requireSigningKey(SERVICE, integration).split(/[\s,]+/).filter(Boolean);
  const message = record(jsonBody(SERVICE, callback));
  const type = text(message?.Type);
  if (!message || !type || !Object.hasOwn(SNS_SIGNED_KEYS, type)) throw refusal(SERVICE, 'the body is not an SNS message (raw message delivery must be off)');
  const topic = text(message.TopicArn);
  if (!topic || !topics.includes(topic)) throw refusal(SERVICE, 'the SNS topic is not one the integration accepts (list its ARN in inboundWebhookSigningKey)');
  await checkSnsSignature(message, type, certificates, integration.now?.getTime());
  if (type === 'SubscriptionConfirmation') {
    const url = atBase(snsUrl(message.SubscribeURL, 'the SubscribeURL'), options.baseUrl);
    const answer = await serviceRequest({ method: 'GET', url, headers: { 'user-agent': 'tidings' } }, requestOptions(options));
    if (answer.status < 200 || answer.status >= 300) throw answerError('SNS', answer);
    return [];
  }
  if (type !== 'Notification') return [];
  let event: Record<string, unknown> | undefined;
  try {
    event = record(JSON.parse(text(message.Message) ?? ''));
  } catch {
    event = undefined;
  }
  // Something else published to the topic: signed, but no SES event.
  return event ? sesEvents(event, text(message.MessageId) ?? '') : [];
}
