import { ProviderError, type Credentials, type Provider, type ProviderMessage } from '@tidings/core';
import { answerError, atBase, serviceRequest } from '../http.js';
import { baseUrlOf, requestOptions, type ServiceProviderOptions } from '../service-options.js';
import { checkMail, mailbox } from './mail-fields.js';
import { readSendgridStatus } from './sendgrid-status.js';

const SEND_URL = 'https://api.sendgrid.com/v3/mail/send';
/** SendGrid's EU data-residency host, for accounts (or subusers) hosted in the EU. */
const EU_BASE = 'https://api.eu.sendgrid.com';


/** The text/plain part must come before text/html; SendGrid refuses empty parts. */
function contentParts(message: ProviderMessage): { type: string; value: string }[] {
  return [
    ...(message.content ? [{ type: 'text/plain', value: message.content }] : []),
    ...(message.html ? [{ type: 'text/html', value: message.html }] : []),
  ];
}

/**
 * Email through SendGrid's v3 Mail Send API (`providerId: 'sendgrid'`). Credentials: `apiKey`, `from`,
 * `senderName`, `ipPoolName`, `region` ('eu' sends through the EU host), `baseUrl`. The message id is
 * the `X-Message-Id` header of the 202 answer. SendGrid's error answers carry messages but no codes,
 * so `errorId` is `http_<status>`. `readStatus` reads the Signed Event Webhook (`inboundWebhookSigningKey`:
 * the verification key SendGrid shows; see `readSendgridStatus`).
 */
export function sendgridProvider(options: ServiceProviderOptions = {}): Provider {
  return {
    id: 'sendgrid',
    channel: 'email',
    async send(message, credentials, context) {
      checkMail('SendGrid', message, credentials, ['apiKey', 'from']);
      const base = baseUrlOf(credentials, options) ?? (credentials.region === 'eu' ? EU_BASE : undefined);
      const body = {
        personalizations: [{ to: [{ email: message.to.email }] }],
        from: { email: credentials.from, ...(credentials.senderName && { name: credentials.senderName }) },
        subject: message.subject ?? '',
        content: contentParts(message),
        ...(credentials.ipPoolName && { ip_pool_name: credentials.ipPoolName }),
        ...message.overrides,
      };
      const answer = await serviceRequest(
        { url: atBase(SEND_URL, base), headers: { authorization: `Bearer ${credentials.apiKey}`, 'content-type': 'application/json', 'user-agent': 'tidings' }, body: JSON.stringify(body) },
        requestOptions(options, context?.signal),
      );
      if (answer.status < 200 || answer.status >= 300) throw answerError('SendGrid', answer);
      const id = answer.headers['x-message-id'];
      return typeof id === 'string' && id !== '' ? { id } : {};
    },
    readStatus: (callback, integration) => readSendgridStatus(callback, integration),
  };
}
