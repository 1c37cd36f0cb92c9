import { type JsonObject, type Provider, type ProviderMessage } from '@tidings/core';
import { answerError, answerJson, atBase, serviceRequest } from '../http.js';
import { baseUrlOf, requestOptions, type ServiceProviderOptions } from '../service-options.js';
import { checkMail, contentIdOf, mailbox } from './mail-fields.js';
import { readMailgunStatus } from './mailgun-status.js';

const API_BASE = 'https://api.mailgun.net';

interface EncodedForm {
  readonly body: string | Uint8Array;
  readonly contentType: string;
}

/**
 * The form as Mailgun takes it: form-encoded without files; with files, multipart/form-data (which
 * Mailgun requires for them), each file an `attachment` part, or an `inline` part whose file name is
 * its Content-ID (Mailgun shows an inline file as `cid:<its file name>`).
 */
async function encoded(form: URLSearchParams, message: ProviderMessage): Promise<EncodedForm> {
  const files = message.attachments ?? [];
  if (files.length === 0) return { body: form.toString(), contentType: 'application/x-www-form-urlencoded' };
  const data = new FormData();
  for (const [name, value] of form) data.append(name, value);
  for (const file of files) {
    const inline = file.disposition === 'inline';
    data.append(inline ? 'inline' : 'attachment', new Blob([Buffer.from(file.content)], { type: file.contentType }), inline ? contentIdOf(file) : file.filename);
  }
  // The platform's own multipart encoder (boundary and part headers), through a Request that is never sent.
  const request = new Request('http://multipart.invalid/', { method: 'POST', body: data });
  return { body: new Uint8Array(await request.arrayBuffer()), contentType: request.headers.get('content-type')! };
}

/** Trigger overrides as form fields (`o:tag`, `h:Reply-To`, `v:…`): a list repeats the field. */
function addOverrides(form: URLSearchParams, overrides: JsonObject): void {
  for (const [name, value] of Object.entries(overrides)) {
    if (value === null || value === undefined) continue;
    form.delete(name);
    for (const item of Array.isArray(value) ? value : [value]) form.append(name, typeof item === 'object' && item !== null ? JSON.stringify(item) : String(item));
  }
}

/**
 * Email through Mailgun's Messages API (`providerId: 'mailgun'`), form-encoded with HTTP Basic auth
 * (multipart/form-data when the message has files: `attachment` parts, `inline` ones by Content-ID).
 * Credentials: `apiKey`, `domain`, `user` (the Basic-auth user name, `api` when unset), `from`,
 * `senderName`, `baseUrl` (`https://api.eu.mailgun.net` for domains in the EU region). The trigger's
 * `overrides.email` go to `to`, `cc`, `bcc`, `from` and the `h:Reply-To` header; the other fields of
 * `overrides.mailgun` (`o:tag`, `h:…`, `v:…`) are added, each replacing a field of the same name. Mailgun's
 * error answers carry a message but no code, so `errorId` is `http_<status>`. The message id is Mailgun's
 * `<…@domain>`, angle brackets included. `readStatus` reads Mailgun's signed webhooks
 * (`inboundWebhookSigningKey`: the HTTP webhook signing key; see `readMailgunStatus`).
 */
export function mailgunProvider(options: ServiceProviderOptions = {}): Provider {
  return {
    id: 'mailgun',
    channel: 'email',
    attachments: true,
    async send(message, credentials, context) {
      const mail = checkMail('Mailgun', message, credentials, ['apiKey', 'domain', 'from']);
      const form = new URLSearchParams({ from: mailbox(mail.from, mail.senderName) });
      // A list is the field repeated, as Mailgun documents for `to`, `cc` and `bcc`.
      for (const address of mail.to) form.append('to', address);
      for (const address of mail.cc) form.append('cc', address);
      for (const address of mail.bcc) form.append('bcc', address);
      if (mail.replyTo) form.set('h:Reply-To', mail.replyTo);
      for (const [name, value] of Object.entries(mail.headers)) form.set(`h:${name}`, value);
      form.set('subject', message.subject ?? '');
      if (message.content) form.set('text', message.content);
      if (message.html) form.set('html', message.html);
      addOverrides(form, message.overrides);
      const documented = `${API_BASE}/v3/${encodeURIComponent(credentials.domain!)}/messages`;
      const auth = Buffer.from(`${credentials.user || 'api'}:${credentials.apiKey}`).toString('base64');
      const { body, contentType } = await encoded(form, message);
      const answer = await serviceRequest(
        { url: atBase(documented, baseUrlOf(credentials, options)), headers: { authorization: `Basic ${auth}`, 'content-type': contentType, 'user-agent': 'tidings' }, body },
        requestOptions(options, context?.signal),
      );
      if (answer.status < 200 || answer.status >= 300) throw answerError('Mailgun', answer);
      const json = answerJson(answer) as { id?: unknown } | undefined;
      return typeof json?.id === 'string' ? { id: json.id } : {};
    },
    readStatus: (callback, integration) => readMailgunStatus(callback, integration),
  };
}
