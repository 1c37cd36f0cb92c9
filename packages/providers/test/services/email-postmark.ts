import { randomUUID } from 'node:crypto';
import { fakeService, isBase64, mailboxAddress, type ReceivedFile, type ServiceReply } from './email-fake-server.js';

/** A mail Postmark accepted, as its `POST /email` body described it. */
export interface PostmarkMail {
  readonly MessageID: string;
  readonly From: string;
  readonly To: string;
  readonly Subject?: string;
  readonly HtmlBody?: string;
  readonly TextBody?: string;
  readonly Attachments?: PostmarkAttachment[];
  /** The attachments, decoded. */
  readonly files: ReceivedFile[];
  readonly [field: string]: unknown;
}

/** One of `POST /email`'s `Attachments`. */
interface PostmarkAttachment {
  readonly Name: string;
  readonly Content: string;
  readonly ContentType: string;
  readonly ContentID?: string;
}

/** File types Postmark refuses to send (a few of its documented list). */
const FORBIDDEN = /\.(exe|bat|cmd|com|vbs|js|jar|scr|msi)$/i;

const error = (status: number, ErrorCode: number, Message: string): ServiceReply => ({ status, body: { ErrorCode, Message } });

/** Postmark's checks of `Attachments`: Name, base64 Content and ContentType each present, an allowed file type, a ContentID as `cid:…`. */
function refusedAttachments(attachments: unknown): ServiceReply | null {
  if (attachments === undefined) return null;
  if (!Array.isArray(attachments)) return error(422, 300, 'Invalid Attachments: must be an array.');
  for (const file of attachments as Partial<PostmarkAttachment>[]) {
    if (typeof file.Name !== 'string' || file.Name === '' || typeof file.ContentType !== 'string' || file.ContentType === '') return error(422, 300, 'Attachments must have Name, Content and ContentType.');
    if (!isBase64(file.Content) || file.Content === '') return error(422, 300, `Invalid attachment content for '${file.Name}': not a base64 string.`);
    if (FORBIDDEN.test(file.Name)) return error(422, 300, `Forbidden attachment type: '${file.Name}'.`);
    if (file.ContentID !== undefined && !/^cid:\S+$/.test(file.ContentID)) return error(422, 300, `Invalid ContentID for '${file.Name}': expected 'cid:…'.`);
  }
  return null;
}

const decoded = (attachments: PostmarkAttachment[] = []): ReceivedFile[] =>
  attachments.map((file) => ({ filename: file.Name, contentType: file.ContentType, content: Buffer.from(file.Content, 'base64'), ...(file.ContentID !== undefined && { cid: file.ContentID.slice('cid:'.length) }) }));

/**
 * Plays Postmark's `POST /email`: the `X-Postmark-Server-Token` header (401 with ErrorCode 10),
 * a JSON body (422 with ErrorCode 300 for an invalid request, 400 for a sender that is not a
 * confirmed Sender Signature, 406 for an inactive recipient; `Attachments` with Name, base64 Content,
 * ContentType and a `cid:` ContentID), and
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
    const refusal = refusedAttachments(mail.Attachments);
    if (refusal) return refusal;
    if (to.some((address) => server.inactiveRecipients?.includes(mailboxAddress(address)!))) {
      return error(422, 406, 'You tried to send to recipient(s) that have been marked as inactive.');
    }
    const MessageID = randomUUID();
    accepted.push({ ...mail, MessageID, files: decoded(mail.Attachments) });
    return { status: 200, body: { To: mail.To, SubmittedAt: new Date().toISOString(), MessageID, ErrorCode: 0, Message: 'OK' } };
  });
  return { ...service, accepted };
}
