import { randomBytes } from 'node:crypto';
import { fakeService, isBase64, isEmail, type ReceivedFile, type ServiceReply } from './email-fake-server.js';

/** A mail SendGrid accepted, as its v3 Mail Send body described it. */
export interface SendgridMail {
  readonly id: string;
  readonly personalizations: { to: { email: string; name?: string }[]; cc?: { email: string; name?: string }[]; bcc?: { email: string; name?: string }[] }[];
  readonly from: { email: string; name?: string };
  readonly reply_to?: { email: string; name?: string };
  readonly subject: string;
  readonly content: { type: string; value: string }[];
  readonly attachments?: SendgridAttachment[];
  /** The attachments, decoded. */
  readonly files: ReceivedFile[];
  readonly [field: string]: unknown;
}

/** One of v3 Mail Send's `attachments`. */
interface SendgridAttachment {
  readonly content: string;
  readonly filename: string;
  readonly type?: string;
  readonly disposition?: string;
  readonly content_id?: string;
}

const error = (status: number, message: string, field: string | null = null): ServiceReply => ({ status, body: { errors: [{ message, field, help: null }] } });

/** SendGrid's checks of `attachments`: base64 content, a file name, a type without `;` or CRLF, a known disposition, a content_id when inline. */
function refusedAttachments(attachments: unknown): ServiceReply | null {
  if (attachments === undefined) return null;
  if (!Array.isArray(attachments)) return error(400, 'The attachments field must be an array.', 'attachments');
  for (const [i, file] of (attachments as Partial<SendgridAttachment>[]).entries()) {
    if (!isBase64(file.content) || file.content === '') return error(400, 'The attachment content must be base64 encoded.', `attachments.${i}.content`);
    if (typeof file.filename !== 'string' || file.filename === '') return error(400, 'The attachment filename parameter is required.', `attachments.${i}.filename`);
    if (file.type !== undefined && (typeof file.type !== 'string' || /[;\r\n]/.test(file.type))) return error(400, "The attachment type cannot contain ';', or CRLF characters.", `attachments.${i}.type`);
    if (file.disposition !== undefined && file.disposition !== 'inline' && file.disposition !== 'attachment') return error(400, 'The disposition must be either inline or attachment.', `attachments.${i}.disposition`);
    if (file.disposition === 'inline' && !file.content_id) return error(400, 'The content_id parameter is required when disposition is inline.', `attachments.${i}.content_id`);
  }
  return null;
}

const decoded = (attachments: SendgridAttachment[] = []): ReceivedFile[] =>
  attachments.map((file) => ({ filename: file.filename, contentType: file.type ?? 'application/octet-stream', content: Buffer.from(file.content, 'base64'), ...(file.content_id !== undefined && { cid: file.content_id }) }));

/**
 * Plays SendGrid's `POST /v3/mail/send`: Bearer API key, a JSON body validated as SendGrid does
 * (recipients in to, cc and bcc, each address once per personalization, a valid reply_to, a verified sender identity, subject, content with text/plain first,
 * attachments with base64 content, a filename and a content_id when inline), 202 with the
 * message id in `X-Message-Id`, errors as `{ errors: [{ message, field, help }] }`.
 */
export async function fakeSendgrid(account: { apiKey: string; verifiedSenders: string[] }) {
  const accepted: SendgridMail[] = [];
  const service = await fakeService((call) => {
    if (call.method !== 'POST' || call.path !== '/v3/mail/send') return error(404, 'resource not found');
    if (call.headers.authorization !== `Bearer ${account.apiKey}`) return error(401, 'The provided authorization grant is invalid, expired, or revoked');
    if (!call.headers['content-type']?.startsWith('application/json')) return error(415, 'Content-Type should be application/json.');
    let mail: SendgridMail;
    try {
      mail = JSON.parse(call.body) as SendgridMail;
    } catch {
      return error(400, 'Bad Request');
    }
    if (!Array.isArray(mail.personalizations) || mail.personalizations.length === 0) return error(400, 'The personalizations field is required and must have at least one personalization.', 'personalizations');
    let recipients = 0;
    for (const [p, personalization] of mail.personalizations.entries()) {
      if (!Array.isArray(personalization.to) || personalization.to.length === 0) return error(400, 'The to array is required for all personalization objects, and must have at least one email object with a valid email address.', `personalizations.${p}.to`);
      const seen = new Set<string>();
      for (const kind of ['to', 'cc', 'bcc'] as const) {
        const list = personalization[kind];
        if (list === undefined) continue;
        if (!Array.isArray(list) || list.length === 0) return error(400, `The ${kind} array, when present, must have at least one email object.`, `personalizations.${p}.${kind}`);
        for (const [i, address] of list.entries()) {
          if (!isEmail(address.email)) return error(400, 'Does not contain a valid address.', `personalizations.${p}.${kind}.${i}.email`);
          const key = address.email.toLowerCase();
          if (seen.has(key)) return error(400, `Each email address in the personalization block should be unique between to, cc, and bcc. We found the first duplicate instance of [${address.email}] in the personalizations.${p}.${kind} field.`, `personalizations.${p}.${kind}`);
          seen.add(key);
          recipients++;
        }
      }
    }
    if (recipients > 1000) return error(400, 'There is a limit of 1000 total recipients (to + cc + bcc) per request.', 'personalizations');
    if (mail.reply_to !== undefined && !isEmail(mail.reply_to?.email)) return error(400, 'The reply_to email does not contain a valid address.', 'reply_to.email');
    if (!isEmail(mail.from?.email)) return error(400, 'The from object must be provided for every email send.', 'from');
    if (!account.verifiedSenders.includes(mail.from.email)) return error(403, 'The from address does not match a verified Sender Identity.', 'from');
    if (typeof mail.subject !== 'string' || mail.subject === '') return error(400, 'The subject is required.', 'subject');
    if (!Array.isArray(mail.content) || mail.content.length === 0) return error(400, 'Unless a valid template_id is provided, the content parameter is required.', 'content');
    if (mail.content.some((part) => typeof part.value !== 'string' || part.value === '')) return error(400, 'The content value must be a string at least one character in length.', 'content.0.value');
    const plain = mail.content.findIndex((part) => part.type === 'text/plain');
    if (plain > 0) return error(400, 'If present, text/plain must be first, followed by text/html, followed by any other content.', 'content.0.type');
    const refusal = refusedAttachments(mail.attachments);
    if (refusal) return refusal;
    const id = randomBytes(16).toString('base64url').slice(0, 22);
    accepted.push({ ...mail, id, files: decoded(mail.attachments) });
    return { status: 202, headers: { 'x-message-id': id } };
  });
  return { ...service, accepted };
}
