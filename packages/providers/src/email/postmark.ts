import { ProviderError, type Provider, type ProviderMessage } from '@tidings/core';
import { answerError, answerJson, atBase, serviceRequest } from '../http.js';
import { baseUrlOf, requestOptions, type ServiceProviderOptions } from '../service-options.js';
import { base64Files, checkMail, hasHeaders, headerList, mailbox } from './mail-fields.js';
import { readPostmarkStatus } from './postmark-status.js';

const SEND_URL = 'https://api.postmarkapp.com/email';

/** The message's files as Postmark's `Attachments`; an inline one carries its `ContentID` as `cid:…`. */
function attachments(message: ProviderMessage) {
  return base64Files(message).map((file) => ({
    Name: file.filename,
    Content: file.base64,
    ContentType: file.contentType,
    ...(file.contentId !== undefined && { ContentID: `cid:${file.contentId}` }),
  }));
}

/**
 * Email through Postmark (`providerId: 'postmark'`), authenticated with the server token.
 * Credentials: `apiKey` (the server token), `from`, `senderName`, `baseUrl`. The trigger's `overrides.email` go to `To`, `Cc`, `Bcc`, `From` and
 * `ReplyTo`. Postmark's `ErrorCode`
 * (e.g. 300 invalid email request, 406 inactive recipient, 10 bad token) becomes the message's
 * `errorId`. `readStatus` reads Postmark's webhooks, protected by Basic auth in the webhook URL
 * (`inboundWebhookSigningKey`: `user:password`; see `readPostmarkStatus`). Files go in `Attachments`
 * (`Name`, base64 `Content`, `ContentType`, and `ContentID` for an inline one).
 */
export function postmarkProvider(options: ServiceProviderOptions = {}): Provider {
  return {
    id: 'postmark',
    channel: 'email',
    attachments: true,
    async send(message, credentials, context) {
      const mail = checkMail('Postmark', message, credentials, ['apiKey', 'from']);
      // Postmark takes each recipient field as one comma-separated string (at most 50 addresses in all).
      const body = {
        From: mailbox(mail.from, mail.senderName),
        To: mail.to.join(', '),
        ...(mail.cc.length > 0 && { Cc: mail.cc.join(', ') }),
        ...(mail.bcc.length > 0 && { Bcc: mail.bcc.join(', ') }),
        ...(mail.replyTo && { ReplyTo: mail.replyTo }),
        ...(hasHeaders(mail.headers) && { Headers: headerList(mail.headers) }),
        Subject: message.subject ?? '',
        ...(message.html && { HtmlBody: message.html }),
        ...(message.content && { TextBody: message.content }),
        ...(message.attachments?.length && { Attachments: attachments(message) }),
        ...message.overrides,
      };
      const answer = await serviceRequest(
        {
          url: atBase(SEND_URL, baseUrlOf(credentials, options)),
          headers: { 'x-postmark-server-token': credentials.apiKey!, accept: 'application/json', 'content-type': 'application/json', 'user-agent': 'tidings' },
          body: JSON.stringify(body),
        },
        requestOptions(options, context?.signal),
      );
      const json = answerJson(answer) as { MessageID?: unknown; ErrorCode?: unknown } | undefined;
      const errorCode = typeof json?.ErrorCode === 'number' && json.ErrorCode !== 0 ? String(json.ErrorCode) : undefined;
      if (answer.status < 200 || answer.status >= 300) throw answerError('Postmark', answer, errorCode);
      // Postmark answers 200 with ErrorCode 0 on success; anything else is a refusal.
      if (errorCode !== undefined) throw new ProviderError(`Postmark refused the message (${errorCode})`, { retryable: false, status: answer.status, code: errorCode });
      return typeof json?.MessageID === 'string' ? { id: json.MessageID } : {};
    },
    readStatus: (callback, integration) => readPostmarkStatus(callback, integration),
  };
}
