import { randomUUID } from 'node:crypto';
import { fakeService, isBase64, mailboxAddress, type ReceivedFile, type ServiceReply } from './email-fake-server.js';

/** A mail Resend accepted, as its `POST /emails` body described it. */
export interface ResendMail {
  readonly id: string;
  readonly from: string;
  readonly to: string | string[];
  readonly subject: string;
  readonly html?: string;
  readonly text?: string;
  readonly cc?: string | string[];
  readonly bcc?: string | string[];
  readonly reply_to?: string | string[];
  readonly attachments?: ResendAttachment[];
  /** The attachments, decoded. */
  readonly files: ReceivedFile[];
  readonly [field: string]: unknown;
}

/** One of `POST /emails`' `attachments`: the file's `content` (base64, or its bytes as numbers) or a `path` to fetch it from. */
interface ResendAttachment {
  readonly filename?: string;
  readonly content?: string | number[];
  readonly path?: string;
  readonly content_type?: string;
  readonly content_id?: string;
}

const error = (statusCode: number, name: string, message: string): ServiceReply => ({ status: statusCode, body: { statusCode, name, message } });

const isByteList = (value: unknown): value is number[] => Array.isArray(value) && value.every((n) => Number.isInteger(n) && n >= 0 && n <= 255);

/** Resend's checks of `attachments`: content (base64 or bytes) with a filename, or a path; a content_id under 128 characters. */
function refusedAttachments(attachments: unknown): ServiceReply | null {
  if (attachments === undefined) return null;
  if (!Array.isArray(attachments)) return error(422, 'validation_error', 'Invalid `attachments` field.');
  for (const [i, file] of (attachments as ResendAttachment[]).entries()) {
    if (file.content === undefined && file.path === undefined) return error(422, 'validation_error', `\`attachments[${i}]\` needs \`content\` or \`path\`.`);
    if (file.content !== undefined && !isBase64(file.content) && !isByteList(file.content)) return error(422, 'validation_error', `\`attachments[${i}].content\` must be base64 or a list of bytes.`);
    if (file.content !== undefined && (typeof file.filename !== 'string' || file.filename === '')) return error(422, 'validation_error', `\`attachments[${i}].filename\` is required with \`content\`.`);
    if (file.content_type !== undefined && typeof file.content_type !== 'string') return error(422, 'validation_error', `\`attachments[${i}].content_type\` must be a string.`);
    if (file.content_id !== undefined && (typeof file.content_id !== 'string' || file.content_id.length >= 128)) return error(422, 'validation_error', `\`attachments[${i}].content_id\` must be less than 128 characters.`);
  }
  return null;
}

const decoded = (attachments: ResendAttachment[] = []): ReceivedFile[] =>
  attachments.map((file) => ({
    filename: file.filename ?? '',
    contentType: file.content_type ?? 'application/octet-stream',
    content: typeof file.content === 'string' ? Buffer.from(file.content, 'base64') : Buffer.from(file.content ?? []),
    ...(file.content_id !== undefined && { cid: file.content_id }),
  }));

/**
 * Plays Resend's `POST /emails`: a User-Agent is required (else Cloudflare's 403 "error code: 1010"),
 * Bearer API key (401 `missing_api_key`, 403 `invalid_api_key`), a JSON body validated as Resend does (`to` up to 50; `cc`, `bcc` and `reply_to` each an address or a list;
 * `attachments` with base64 or byte-list `content` and a `filename`, or a `path`),
 * the sender's domain verified (403 `validation_error`), `{ id }` on success and
 * `{ statusCode, name, message }` on errors. A request with an `Idempotency-Key` Resend has sent a
 * mail for already gets that first answer and sends nothing (Resend keeps keys 24 hours; the fake
 * for its whole life).
 */
export async function fakeResend(account: { apiKey: string; verifiedDomains: string[] }) {
  const accepted: ResendMail[] = [];
  const sentFor = new Map<string, ServiceReply>();
  const service = await fakeService((call) => {
    if (!call.headers['user-agent']) return { status: 403, body: 'error code: 1010' };
    if (call.method !== 'POST' || call.path !== '/emails') return error(404, 'not_found', 'The requested endpoint does not exist.');
    const auth = call.headers.authorization;
    if (!auth?.startsWith('Bearer ')) return error(401, 'missing_api_key', 'Missing API key in the authorization header.');
    if (auth !== `Bearer ${account.apiKey}`) return error(403, 'invalid_api_key', 'API key is invalid');
    if (!call.headers['content-type']?.startsWith('application/json')) return error(422, 'validation_error', 'Invalid content type.');
    let mail: ResendMail;
    try {
      mail = JSON.parse(call.body) as ResendMail;
    } catch {
      return error(400, 'validation_error', 'Invalid JSON body.');
    }
    const from = mailboxAddress(mail.from);
    if (!from) return error(422, 'validation_error', 'Invalid `from` field. The email address needs to follow the `email@example.com` or `Name <email@example.com>` format.');
    const to = Array.isArray(mail.to) ? mail.to : [mail.to];
    if (to.length === 0 || to.some((address) => !mailboxAddress(address))) return error(422, 'validation_error', 'Invalid `to` field.');
    if (to.length > 50) return error(422, 'validation_error', 'Invalid `to` field. You can only send to up to 50 recipients.');
    // cc, bcc and reply_to: one address or a list of them, as Resend documents.
    for (const field of ['cc', 'bcc', 'reply_to'] as const) {
      const value = mail[field];
      if (value === undefined) continue;
      const list = Array.isArray(value) ? value : [value];
      if (list.some((address) => typeof address !== 'string' || !mailboxAddress(address))) return error(422, 'validation_error', `Invalid \`${field}\` field.`);
    }
    if (typeof mail.subject !== 'string' || mail.subject === '') return error(422, 'missing_required_field', 'Missing `subject` field.');
    if (!mail.html && !mail.text) return error(422, 'validation_error', 'Missing `html` or `text` field.');
    const refusal = refusedAttachments(mail.attachments);
    if (refusal) return refusal;
    const domain = from.split('@')[1]!;
    if (!account.verifiedDomains.includes(domain)) return error(403, 'validation_error', `The ${domain} domain is not verified.`);
    const key = call.headers['idempotency-key'];
    const before = typeof key === 'string' ? sentFor.get(key) : undefined;
    if (before) return before;
    const id = randomUUID();
    accepted.push({ ...mail, id, files: decoded(mail.attachments) });
    const reply = { status: 200, body: { id } };
    if (typeof key === 'string') sentFor.set(key, reply);
    return reply;
  });
  return { ...service, accepted };
}
