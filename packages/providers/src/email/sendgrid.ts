import { type Provider, type ProviderMessage } from '@tidings/core';
import { answerError, atBase, serviceRequest } from '../http.js';
import { baseUrlOf, requestOptions, type ServiceProviderOptions } from '../service-options.js';
import { base64Files, checkMail, hasHeaders } from './mail-fields.js';
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

/** The message's files as SendGrid's `attachments`; an inline one needs its `content_id`. */
function attachments(message: ProviderMessage) {
  return base64Files(message).map((file) => ({
    content: file.base64,
    filename: file.filename,
    type: file.contentType,
    disposition: file.inline ? 'inline' : 'attachment',
    ...(file.contentId !== undefined && { content_id: file.contentId }),
  }));
}

/**
 * Email through SendGrid's v3 Mail Send API (`providerId: 'sendgrid'`). Credentials: `apiKey`, `from`,
 * `senderName`, `ipPoolName`, `region` ('eu' sends through the EU host), `baseUrl`. The trigger's
 * `overrides.email` go to `personalizations[0].to`/`cc`/`bcc`, `from` and `reply_to`. The message id is
 * the `X-Message-Id` header of the 202 answer. SendGrid's error answers carry messages but no codes,
 * so `errorId` is `http_<status>`. `readStatus` reads the Signed Event Webhook (`inboundWebhookSigningKey`:
 * the verification key SendGrid shows; see `readSendgridStatus`). Files go in `attachments` (base64 `content`,
 * `filename`, `type`, `disposition`, and `content_id` for an inline one).
 */
export function sendgridProvider(options: ServiceProviderOptions = {}): Provider {
  return {
    id: 'sendgrid',
    channel: 'email',
    attachments: true,
    async send(message, credentials, context) {
      const mail = checkMail('SendGrid', message, credentials, ['apiKey', 'from']);
      const base = baseUrlOf(credentials, options) ?? (credentials.region === 'eu' ? EU_BASE : undefined);
      const emails = (addresses: readonly string[]) => addresses.map((email) => ({ email }));
      // SendGrid refuses an address twice across to, cc and bcc of a personalization: the engine sends each once.
      const body = {
        personalizations: [{ to: emails(mail.to), ...(mail.cc.length > 0 && { cc: emails(mail.cc) }), ...(mail.bcc.length > 0 && { bcc: emails(mail.bcc) }) }],
        from: { email: mail.from, ...(mail.senderName && { name: mail.senderName }) },
        ...(mail.replyTo && { reply_to: { email: mail.replyTo } }),
        ...(hasHeaders(mail.headers) && { headers: mail.headers }),
        subject: message.subject ?? '',
        content: contentParts(message),
        ...(message.attachments?.length && { attachments: attachments(message) }),
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
