import { type Provider, type ProviderMessage } from '@tidings/core';
import { answerError, answerJson, atBase, serviceRequest } from '../http.js';
import { baseUrlOf, requestOptions, type ServiceProviderOptions } from '../service-options.js';
import { base64Files, checkMail, hasHeaders, mailbox } from './mail-fields.js';
import { readResendStatus } from './resend-status.js';

const SEND_URL = 'https://api.resend.com/emails';
/** Resend refuses requests without a User-Agent (403), and node:http sends none by itself. */
const USER_AGENT = 'tidings';

/** The message's files as Resend's `attachments`: base64 `content`; a `content_id` makes one inline. */
function attachments(message: ProviderMessage) {
  return base64Files(message).map((file) => ({
    filename: file.filename,
    content: file.base64,
    content_type: file.contentType,
    ...(file.contentId !== undefined && { content_id: file.contentId }),
  }));
}

/**
 * Email through Resend (`providerId: 'resend'`). Credentials: `apiKey`, `from`, `senderName`, `baseUrl`.
 * The trigger's `overrides.email` go to Resend's `to`, `cc`, `bcc`, `from` and `reply_to`.
 * Resend's error `name` (e.g. `validation_error`, `invalid_api_key`) becomes the message's `errorId`.
 * Every send carries the engine's idempotency key as Resend's `Idempotency-Key` header (Resend keeps a
 * key 24 hours and answers a request with a key it has seen with the first answer, without sending
 * again), so a send that timed out is safely tried again.
 * `readStatus` reads Resend's Svix-signed webhooks (`inboundWebhookSigningKey`: the endpoint's `whsec_`
 * signing secret; see `readResendStatus`). Files go in `attachments` (`filename`, base64 `content`,
 * `content_type`, and `content_id` for an inline one).
 */
export function resendProvider(options: ServiceProviderOptions = {}): Provider {
  return {
    id: 'resend',
    channel: 'email',
    idempotent: true,
    attachments: true,
    async send(message, credentials, context) {
      const mail = checkMail('Resend', message, credentials, ['apiKey', 'from']);
      const body = {
        from: mailbox(mail.from, mail.senderName),
        to: mail.to,
        ...(mail.cc.length > 0 && { cc: mail.cc }),
        ...(mail.bcc.length > 0 && { bcc: mail.bcc }),
        ...(mail.replyTo && { reply_to: mail.replyTo }),
        ...(hasHeaders(mail.headers) && { headers: mail.headers }),
        subject: message.subject ?? '',
        ...(message.html && { html: message.html }),
        ...(message.content && { text: message.content }),
        ...(message.attachments?.length && { attachments: attachments(message) }),
        ...message.overrides,
      };
      const answer = await serviceRequest(
        {
          url: atBase(SEND_URL, baseUrlOf(credentials, options)),
          headers: {
            authorization: `Bearer ${credentials.apiKey}`,
            'content-type': 'application/json',
            'user-agent': USER_AGENT,
            ...(context?.idempotencyKey && { 'idempotency-key': context.idempotencyKey }),
          },
          body: JSON.stringify(body),
        },
        requestOptions(options, context?.signal),
      );
      const json = answerJson(answer) as { id?: unknown; name?: unknown } | undefined;
      if (answer.status < 200 || answer.status >= 300) throw answerError('Resend', answer, typeof json?.name === 'string' ? json.name : undefined);
      return typeof json?.id === 'string' ? { id: json.id } : {};
    },
    readStatus: (callback, integration) => readResendStatus(callback, integration),
  };
}
