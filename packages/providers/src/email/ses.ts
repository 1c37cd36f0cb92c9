import { ProviderError, type Credentials, type Provider, type ProviderMessage } from '@tidings/core';
import { AwsV4Signer } from 'aws4fetch';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import type { Attachment } from 'nodemailer/lib/mailer/index.js';
import { answerError, answerJson, atBase, serviceRequest, type ServiceAnswer } from '../http.js';
import { baseUrlOf, requestOptions, type ServiceProviderOptions } from '../service-options.js';
import { checkMail, hasHeaders, headerList, nodemailerFiles, type MailEnvelope } from './mail-fields.js';
import { readSesStatus, snsCertificates } from './ses-status.js';

/** Throttling answers AWS may give with status 400 rather than 429: still worth another try. */
const THROTTLING = new Set(['TooManyRequestsException', 'ThrottlingException', 'Throttling']);

function check(message: ProviderMessage, credentials: Credentials) {
  const mail = checkMail('SES', message, credentials, ['apiKey', 'secretKey', 'region', 'from']);
  // The region becomes part of the host name.
  if (!/^[a-z0-9-]+$/.test(credentials.region!)) throw new ProviderError('the SES integration’s region is not an AWS region name', { retryable: false, code: 'invalid_region' });
  return mail;
}

/** `Name <address>`; SES wants a non-ASCII display name as a MIME encoded-word. */
function mailbox(address: string, name: string | undefined): string {
  if (!name) return address;
  if (/[^\x20-\x7e]/.test(name)) return `=?UTF-8?B?${Buffer.from(name).toString('base64')}?= <${address}>`;
  return `${/[()<>[\]:;@\\,."]/.test(name) ? `"${name.replace(/["\\]/g, '\\$&')}"` : name} <${address}>`;
}

/** The AWS error code: the `x-amzn-ErrorType` header, else the body's `__type`, without namespace or URL. */
function errorType(answer: ServiceAnswer): string | undefined {
  const header = answer.headers['x-amzn-errortype'];
  const json = answerJson(answer) as { __type?: unknown; code?: unknown } | undefined;
  const raw = typeof header === 'string' ? header : typeof json?.__type === 'string' ? json.__type : typeof json?.code === 'string' ? json.code : undefined;
  return raw?.split(':')[0]?.split('#').pop() || undefined;
}

/** The email as SES's `Content.Simple`: subject, text and HTML bodies, headers. */
function simpleContent(message: ProviderMessage, mail: MailEnvelope) {
  const charset = 'UTF-8';
  return {
    Simple: {
      Subject: { Data: message.subject ?? '', Charset: charset },
      Body: {
        ...(message.content && { Text: { Data: message.content, Charset: charset } }),
        ...(message.html && { Html: { Data: message.html, Charset: charset } }),
      },
      ...(hasHeaders(mail.headers) && { Headers: headerList(mail.headers) }),
    },
  };
}

/**
 * The email as one MIME message in base64, for SES's `Content.Raw` (how files go with SES v2): built
 * by nodemailer's MailComposer, as SMTP sends it. Bcc stays out of its headers: SES sends to
 * `Destination`'s addresses, Bcc among them.
 */
async function rawMessage(message: ProviderMessage, mail: MailEnvelope & { from: string }, files: Attachment[]): Promise<string> {
  const composer = new MailComposer({
    from: mail.senderName ? { name: mail.senderName, address: mail.from } : mail.from,
    to: [...mail.to],
    ...(mail.cc.length > 0 && { cc: [...mail.cc] }),
    ...(mail.replyTo && { replyTo: mail.replyTo }),
    subject: message.subject ?? '',
    ...(message.content && { text: message.content }),
    ...(message.html && { html: message.html }),
    ...(hasHeaders(mail.headers) && { headers: { ...mail.headers } }),
    attachments: files,
  });
  return (await composer.compile().build()).toString('base64');
}

/**
 * Email through Amazon SES v2 `SendEmail` (`providerId: 'ses'`), signed with SigV4.
 * Credentials: `apiKey` (access key id), `secretKey` (secret access key), `region`, `from`,
 * `senderName`, `baseUrl`. The trigger's `overrides.email` go to `Destination`'s `ToAddresses`,
 * `CcAddresses` and `BccAddresses`, `FromEmailAddress` and `ReplyToAddresses`. The AWS error type (e.g. `MessageRejected`,
 * `MailFromDomainNotVerifiedException`) becomes the message's `errorId`; throttling is retried.
 * `readStatus` reads SES events published to an SNS topic with an HTTP(S) subscription
 * (`inboundWebhookSigningKey`: the topic ARN(s) accepted; see `readSesStatus`); SNS signing
 * certificates and subscription confirmations are fetched at the provider's `baseUrl` option (not an
 * integration's `credentials.baseUrl`, which points at the SES API) when it is set. A message with
 * files goes as `Content.Raw` (a MIME message built by nodemailer's MailComposer), one without as
 * `Content.Simple`.
 */
export function sesProvider(options: ServiceProviderOptions = {}): Provider {
  const certificates = snsCertificates(options);
  return {
    id: 'ses',
    channel: 'email',
    attachments: true,
    async send(message, credentials, context) {
      const mail = check(message, credentials);
      const region = credentials.region!;
      const files = nodemailerFiles(message);
      const body = {
        FromEmailAddress: mailbox(mail.from, mail.senderName),
        Destination: {
          ToAddresses: mail.to,
          ...(mail.cc.length > 0 && { CcAddresses: mail.cc }),
          ...(mail.bcc.length > 0 && { BccAddresses: mail.bcc }),
        },
        // A raw message carries its Reply-To among its own headers.
        ...(mail.replyTo && !files && { ReplyToAddresses: [mail.replyTo] }),
        Content: files ? { Raw: { Data: await rawMessage(message, mail, files) } } : simpleContent(message, mail),
        ...message.overrides,
      };
      const url = atBase(`https://email.${region}.amazonaws.com/v2/email/outbound-emails`, baseUrlOf(credentials, options));
      const payload = JSON.stringify(body);
      const signed = await new AwsV4Signer({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/json' },
        body: payload,
        accessKeyId: credentials.apiKey!,
        secretAccessKey: credentials.secretKey!,
        service: 'ses',
        region,
      }).sign();
      const headers: Record<string, string> = { 'user-agent': 'tidings' };
      signed.headers.forEach((value, name) => (headers[name] = value));
      const answer = await serviceRequest({ method: 'POST', url: signed.url.toString(), headers, body: payload }, requestOptions(options, context?.signal));
      if (answer.status >= 200 && answer.status < 300) {
        const accepted = answerJson(answer) as { MessageId?: unknown } | undefined;
        return typeof accepted?.MessageId === 'string' ? { id: accepted.MessageId } : {};
      }
      const code = errorType(answer);
      if (code !== undefined && THROTTLING.has(code) && answer.status < 500 && answer.status !== 429) {
        throw new ProviderError(`SES answered ${answer.status} (${code})`, { retryable: true, status: answer.status, code });
      }
      throw answerError('SES', answer, code);
    },
    readStatus: (callback, integration) => readSesStatus(callback, integration, certificates, options),
  };
}
