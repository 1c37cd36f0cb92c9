import { randomUUID } from 'node:crypto';
import { fakeService, mailboxAddress, type ServiceReply } from './email-fake-server.js';

/** A mail Postmark accepted, as its `POST /email` body described it. */
export interface PostmarkMail {
  readonly MessageID: string;
  readonly From: string;
  readonly To: string;
  readonly Subject?: string;
  readonly HtmlBody?: string;
  readonly TextBody?: string;
  readonly [field: string]: unknown;
}

const error = (status: number, ErrorCode: number, Message: string): ServiceReply => ({ status, body: { ErrorCode, Message } });

/**
 * Plays Postmark's `POST /email`: the `X-Postmark-Server-Token` header (401 with ErrorCode 10),
 * a JSON body (422 with ErrorCode 300 for an invalid request, 400 for a sender that is not a
 * confirmed Sender Signature, 406 for an inactive recipient), and
 * `{ To, SubmittedAt, MessageID, ErrorCode: 0, Message: 'OK' }` on success.
 */
export async function fakePostmark(server: { token: string; senderSignatures: string[]; inactiveRecipients?: string[] }) {
  const accepted: PostmarkMail[] = [];
  const service = await fakeService((call) => {
    if (call.method !== 'POST' || call.path !== '/email') return { status: 404, body: 'Not Found' };
    if (call.headers['x-postmark-server-token'] !== server.token) return error(401, 10, 'The Server Token you provided in the X-Postmark-Server-Token request header was invalid.');
    if (!call.headers['content-type']?.startsWith('application/json')) return error(415, 0, 'Content-Type must be application/json.');
    let mail: PostmarkMail;
    try {
      mail = JSON.parse(call.body) as PostmarkMail;
    } catch {
      return error(422, 402, 'Received invalid JSON input.');
    }
    const from = mailboxAddress(mail.From);
    if (!from) return error(422, 300, "Invalid 'From' address.");
    if (!server.senderSignatures.includes(from)) return error(422, 400, "The 'From' address you supplied is not a Sender Signature on your account.");
    const to = typeof mail.To === 'string' ? mail.To.split(',').map((address) => address.trim()) : [];
    if (to.length === 0 || to.some((address) => !mailboxAddress(address))) return error(422, 300, "Error parsing 'To': Illegal email address.");
    if (!mail.HtmlBody && !mail.TextBody) return error(422, 300, 'Provide either email TextBody or HtmlBody or both.');
    if (to.some((address) => server.inactiveRecipients?.includes(mailboxAddress(address)!))) {
      return error(422, 406, 'You tried to send to recipient(s) that have been marked as inactive.');
    }
    const MessageID = randomUUID();
    accepted.push({ ...mail, MessageID });
    return { status: 200, body: { To: mail.To, SubmittedAt: new Date().toISOString(), MessageID, ErrorCode: 0, Message: 'OK' } };
  });
  return { ...service, accepted };
}
