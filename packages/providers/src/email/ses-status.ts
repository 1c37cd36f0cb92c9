import { X509Certificate, verify } from 'node:crypto';
import type { ProviderCallback, ProviderStatusEvent } from '@tidings/core';
import { answerError, atBase, serviceRequest } from '../http.js';
import { requestOptions, type ServiceProviderOptions } from '../service-options.js';
import { jsonBody, reasonText, record, refusal, requireSigningKey, isoTime, statusEvent, text, type StatusIntegration } from '../status-callbacks.js';

const SERVICE = 'SES';

/** Where SNS keeps its signing certificates (and its subscription confirmations): `sns.<region>.amazonaws.com`. */
const SNS_HOST = /^sns\.[a-z0-9-]+\.amazonaws\.com(\.cn)?$/;

/** The members SNS signs, in the order it signs them, per message type (absent members are skipped). */
const SIGNED_KEYS: Record<string, readonly string[]> = {
  Notification: ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type'],
  SubscriptionConfirmation: ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'],
  UnsubscribeConfirmation: ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'],
};

/** Certificates kept at most: SNS uses one per region, rotated now and then. */
const MAX_CERTIFICATES = 32;

/** An https URL on an SNS host, or a refusal naming `what`. */
function snsUrl(value: unknown, what: string): string {
  const raw = text(value);
  let url: URL | undefined;
  try {
    url = raw ? new URL(raw) : undefined;
  } catch {
    url = undefined;
  }
  if (!url || url.protocol !== 'https:' || !SNS_HOST.test(url.hostname) || url.username || url.password || url.port) {
    throw refusal(SERVICE, `${what} is not an https URL on an sns.<region>.amazonaws.com host`);
  }
  return url.toString();
}

/** SNS signing certificates by the URL fetched, for one provider (fetched once, checked on each use). */
export interface SnsCertificates {
  get(certUrl: string): Promise<X509Certificate>;
}

/**
 * Fetches SNS signing certificates through the guarded `serviceRequest` (GET), at `options.baseUrl`
 * in place of the SNS host when set (a test server), and caches them by URL. A certificate the
 * answer does not hold is a refusal; no answer, or a 5xx, a retryable ProviderError (SNS then tries
 * the callback again).
 */
export function snsCertificates(options: ServiceProviderOptions): SnsCertificates {
  const cache = new Map<string, Promise<X509Certificate>>();
  const fetchCertificate = async (url: string) => {
    const answer = await serviceRequest({ method: 'GET', url, headers: { accept: 'application/x-pem-file, */*', 'user-agent': 'tidings' } }, requestOptions(options));
    if (answer.status >= 500 || answer.status === 429) throw answerError('SNS', answer);
    if (answer.status !== 200) throw refusal(SERVICE, `the SigningCertURL answered ${answer.status}`);
    try {
      return new X509Certificate(answer.body);
    } catch {
      throw refusal(SERVICE, 'the SigningCertURL holds no X.509 certificate');
    }
  };
  return {
    async get(certUrl) {
      const url = atBase(certUrl, options.baseUrl);
      let pending = cache.get(url);
      if (!pending) {
        pending = fetchCertificate(url);
        if (cache.size >= MAX_CERTIFICATES) cache.delete(cache.keys().next().value!);
        cache.set(url, pending);
        pending.catch(() => cache.delete(url));
      }
      const certificate = await pending;
      const now = Date.now();
      if (now < Date.parse(certificate.validFrom) || now > Date.parse(certificate.validTo)) throw refusal(SERVICE, 'the SNS signing certificate is not valid now');
      return certificate;
    },
  };
}

/** Checks an SNS message's `Signature` (SignatureVersion 1: SHA1withRSA, 2: SHA256withRSA) with the certificate at `SigningCertURL`. */
async function checkSignature(message: Record<string, unknown>, type: string, certificates: SnsCertificates): Promise<void> {
  const signature = text(message.Signature);
  if (!signature) throw refusal(SERVICE, 'the SNS message is not signed (no Signature)');
  const version = text(message.SignatureVersion);
  const algorithm = version === '1' ? 'sha1' : version === '2' ? 'sha256' : undefined;
  if (!algorithm) throw refusal(SERVICE, 'the SNS SignatureVersion is neither 1 nor 2');
  const certUrl = snsUrl(message.SigningCertURL, 'the SigningCertURL');
  // Only SNS's own certificate files, so a caller cannot make every request fetch a new URL.
  if (!/^\/SimpleNotificationService-[0-9a-f]+\.pem$/.test(new URL(certUrl).pathname)) throw refusal(SERVICE, 'the SigningCertURL is not an SNS signing certificate');
  const certificate = await certificates.get(certUrl);
  const signed = SIGNED_KEYS[type]!.filter((key) => typeof message[key] === 'string')
    .map((key) => `${key}\n${message[key] as string}\n`)
    .join('');
  let valid = false;
  try {
    valid = verify(algorithm, Buffer.from(signed, 'utf8'), certificate.publicKey, Buffer.from(signature, 'base64'));
  } catch {
    valid = false;
  }
  if (!valid) throw refusal(SERVICE, 'the SNS Signature does not match the message');
}

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
 * certificate is fetched (and cached) through the guarded request, and `Signature` is checked over
 * the members SNS documents for the message type. Any AWS account can make a topic SNS signs, so the
 * integration's `inboundWebhookSigningKey` names the topic ARN(s) accepted (comma- or space-separated):
 * a message of any other topic is refused.
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
  if (!message || !type || !Object.hasOwn(SIGNED_KEYS, type)) throw refusal(SERVICE, 'the body is not an SNS message (raw message delivery must be off)');
  const topic = text(message.TopicArn);
  if (!topic || !topics.includes(topic)) throw refusal(SERVICE, 'the SNS topic is not one the integration accepts (list its ARN in inboundWebhookSigningKey)');
  await checkSignature(message, type, certificates);
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
