import { ProviderError, type Provider } from '@tidings/core';
import { answerError, answerJson, atBase, serviceRequest } from '../http.js';
import type { ServiceProviderOptions } from '../service-options.js';
import { readVonageStatus } from './vonage-status.js';
import { baseUrlOf, formBody, overrideFields, recipientPhone, requestOptions, requireCredentials, serviceCode } from './sms-fields.js';

const SMS_URL = 'https://rest.nexmo.com/sms/json';

/** Vonage's documented SMS API statuses (0 is success), named for the stored error text. */
const STATUS_NAMES: Record<string, string> = {
  '1': 'throttled',
  '2': 'missing parameters',
  '3': 'invalid parameters',
  '4': 'invalid credentials',
  '5': 'internal error',
  '6': 'invalid message',
  '7': 'number barred',
  '8': 'partner account barred',
  '9': 'partner quota violation',
  '10': 'too many existing binds',
  '11': 'account not enabled for HTTP',
  '12': 'message too long',
  '14': 'invalid signature',
  '15': 'invalid sender address',
};

/** Throttled, internal error and too many binds: Vonage's documented resolution is to back off and retry. */
const RETRYABLE_STATUSES = new Set(['1', '5', '10']);

// GSM 03.38 basic set and extension table: any other character needs `type=unicode`, or Vonage mangles it.
const GSM_7 = new Set('@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà^{}\\[~]|€\f');
const isGsm7 = (text: string) => [...text].every((c) => GSM_7.has(c));

/** Vonage wants the number in E.164 without the leading `+` (and without spaces or dashes). */
const vonageNumber = (phone: string) => phone.replace(/[\s().-]/g, '').replace(/^\+/, '');

interface SmsAnswer {
  messages?: { status?: unknown; 'message-id'?: unknown }[];
}

/**
 * Vonage (formerly Nexmo, Novu's providerId `nexmo`) SMS API: `POST https://rest.nexmo.com/sms/json`,
 * form-encoded `api_key`, `api_secret`, `from`, `to`, `text`. Vonage answers HTTP 200 even when it
 * refuses a message: the outcome is `messages[n].status` ("0" accepted, else the error code, which
 * becomes the errorId). The trigger's `overrides.nexmo` add or replace fields (`callback`, `ttl`, ...).
 * `readStatus` reads signed delivery receipts (`inboundWebhookSigningKey`: the signature secret,
 * optionally `method:secret`; see `readVonageStatus`).
 */
export const vonageProvider = (options: ServiceProviderOptions = {}): Provider => ({
  id: 'nexmo',
  channel: 'sms',
  async send(message, credentials, context) {
    const { apiKey, secretKey, from } = requireCredentials('nexmo', credentials, ['apiKey', 'secretKey', 'from']);
    const to = vonageNumber(recipientPhone('nexmo', message));
    const own = { api_key: apiKey, api_secret: secretKey, from, to, text: message.content, ...(!isGsm7(message.content) && { type: 'unicode' }) };
    const answer = await serviceRequest(
      {
        method: 'POST',
        url: atBase(SMS_URL, baseUrlOf(credentials, options)),
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: formBody(own, overrideFields(message.overrides), ['api_key', 'api_secret']),
      },
      requestOptions(options, context?.signal),
    );
    if (answer.status < 200 || answer.status >= 300) throw answerError('nexmo', answer);
    const parts = (answerJson(answer) as SmsAnswer | undefined)?.messages;
    // A 2xx says nothing here: without the per-message statuses the outcome is unknown.
    if (!Array.isArray(parts) || parts.length === 0) {
      throw new ProviderError(`nexmo answered ${answer.status} without message statuses`, { retryable: false, status: answer.status, code: 'unexpected_answer' });
    }
    // A long text is sent as several parts, each with its own status.
    const refused = parts.find((part) => String(part.status) !== '0');
    if (refused) {
      const status = serviceCode(refused.status) ?? 'unknown';
      const name = STATUS_NAMES[status];
      throw new ProviderError(`nexmo refused the message: status ${status}${name ? ` (${name})` : ''}`, {
        retryable: RETRYABLE_STATUSES.has(status),
        status: answer.status,
        code: status,
      });
    }
    const id = parts[0]?.['message-id'];
    return typeof id === 'string' ? { id } : {};
  },
  readStatus: (callback, integration) => readVonageStatus(callback, integration),
});
