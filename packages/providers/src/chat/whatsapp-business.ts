import { ProviderError, type Provider } from '@tidings/core';
import { answerError, answerJson, atBase, serviceRequest } from '../http.js';
import { baseUrlOf, requestOptions, type ServiceProviderOptions } from '../service-options.js';

const MESSAGES_URL = 'https://graph.facebook.com/v18.0/{phoneNumberId}/messages';

/**
 * Graph API codes that ask to slow down or say Meta failed for now, though often answered with 400:
 * 1/2 (temporary API errors), 4 (app rate limit), 80007 and 130429 (rate limits), 131000 (unknown
 * error), 131016 (service unavailable), 131056 (too many messages to one number).
 */
const TEMPORARY_CODES = new Set(['1', '2', '4', '80007', '130429', '131000', '131016', '131056']);

type Answer = { messages?: { id?: unknown }[]; error?: { code?: unknown } };

/**
 * WhatsApp Business (Meta Cloud API): `POST https://graph.facebook.com/v18.0/{phoneNumberIdentification}/messages`,
 * `Authorization: Bearer <apiToken>`, JSON `{ messaging_product: 'whatsapp', to, type: 'text', text: { body } }`
 * to the subscriber's phone; `overrides['whatsapp-business'].template` sends that template instead, and
 * other overrides are added to the body. Meta answers `{ messages: [{ id }] }`, or
 * `{ error: { code, message, type } }`: its `code` becomes the errorId (190 bad token, 131026
 * undeliverable, 131047 outside the 24-hour window, ...); rate limits are retried whatever the status.
 */
export const whatsAppProvider = (options: ServiceProviderOptions = {}): Provider => ({
  id: 'whatsapp-business',
  channel: 'chat',
  chatAddress: 'phone',
  async send(message, credentials, context) {
    const { apiToken, phoneNumberIdentification } = credentials;
    if (!apiToken || !phoneNumberIdentification) {
      const missing = [!apiToken && 'apiToken', !phoneNumberIdentification && 'phoneNumberIdentification'].filter(Boolean);
      throw new ProviderError(`whatsapp-business: the integration has no ${missing.join(', ')} credential`, { retryable: false, code: 'missing_credentials' });
    }
    const phone = message.to.phone?.trim();
    if (!phone) throw new ProviderError('whatsapp-business: the recipient has no phone number', { retryable: false, code: 'missing_phone' });
    const { template, ...overrides } = message.overrides;
    const content = template !== undefined ? { type: 'template', template } : { type: 'text', text: { body: message.content, preview_url: false } };
    const answer = await serviceRequest(
      {
        url: atBase(MESSAGES_URL.replace('{phoneNumberId}', encodeURIComponent(phoneNumberIdentification)), baseUrlOf(credentials, options)),
        headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${apiToken}` },
        body: JSON.stringify({ messaging_product: 'whatsapp', recipient_type: 'individual', to: phone, ...content, ...overrides }),
      },
      requestOptions(options, context?.signal),
    );
    const json = answerJson(answer) as Answer | undefined;
    const id = json?.messages?.[0]?.id;
    if (answer.status >= 200 && answer.status < 300 && typeof id === 'string') return { id };
    const rawCode = json?.error?.code;
    const code = typeof rawCode === 'number' || typeof rawCode === 'string' ? String(rawCode) : undefined;
    const error = answerError('whatsapp-business', answer, code);
    throw code !== undefined && TEMPORARY_CODES.has(code) && !error.retryable ? new ProviderError(error.message, { ...error.options, retryable: true }) : error;
  },
});
