import { randomUUID } from 'node:crypto';
import { fakeService, mailboxAddress, type ServiceReply } from './email-fake-server.js';

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
  readonly [field: string]: unknown;
}

const error = (statusCode: number, name: string, message: string): ServiceReply => ({ status: statusCode, body: { statusCode, name, message } });

/**
 * Plays Resend's `POST /emails`: a User-Agent is required (else Cloudflare's 403 "error code: 1010"),
 * Bearer API key (401 `missing_api_key`, 403 `invalid_api_key`), a JSON body validated as Resend does (`to` up to 50; `cc`, `bcc` and `reply_to` each an address or a list),
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
    const domain = from.split('@')[1]!;
    if (!account.verifiedDomains.includes(domain)) return error(403, 'validation_error', `The ${domain} domain is not verified.`);
    const key = call.headers['idempotency-key'];
    const before = typeof key === 'string' ? sentFor.get(key) : undefined;
    if (before) return before;
    const id = randomUUID();
    accepted.push({ ...mail, id });
    const reply = { status: 200, body: { id } };
    if (typeof key === 'string') sentFor.set(key, reply);
    return reply;
  });
  return { ...service, accepted };
}
