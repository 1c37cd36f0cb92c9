import { z } from 'zod';
import { channelSchema } from './enums.js';

/** Most files one trigger attaches (`payload.attachments`). */
export const MAX_ATTACHMENTS = 20;
/** Most bytes the files of one trigger hold together, decoded. */
export const MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024;

const decodedBytes = (text: string) => Buffer.byteLength(text, 'base64');

/**
 * One file a trigger attaches to its emails, as Novu's `payload.attachments` item: `file` its content
 * in base64 (`Buffer.from(bytes).toString('base64')`; decoded as Node's `Buffer.from(file, 'base64')`
 * reads it, as Novu does), `name` the file name recipients see, `mime` its type
 * (`application/octet-stream` when absent); `channels` the channels that send it (every channel that
 * can when absent: email); `cid` and `disposition: 'inline'` for an image the HTML shows
 * (`<img src="cid:…">`).
 */
export const emailAttachmentSchema = z.strictObject({
  file: z.string({ error: 'must be the file in base64' }).min(1, 'must not be empty'),
  name: z.string({ error: 'is required: the file name recipients see' }).trim().min(1, 'must not be empty').max(255, 'must be at most 255 characters').refine((name) => !/[\\/\u0000-\u001f]/.test(name), 'must be a file name, without "/", "\\" or control characters'),
  mime: z.string({ error: 'must be a media type such as application/pdf' }).trim().regex(/^[\w.+-]+\/[\w.+-]+$/, 'must be a media type such as application/pdf or image/png').optional(),
  channels: z.array(channelSchema).optional(),
  cid: z.string().trim().min(1, 'must not be empty').max(255, 'must be at most 255 characters').optional(),
  disposition: z.enum(['attachment', 'inline']).optional(),
});
export type EmailAttachmentInput = z.input<typeof emailAttachmentSchema>;

/** `payload.attachments`: at most MAX_ATTACHMENTS files of at most MAX_ATTACHMENT_BYTES in all. */
export const emailAttachmentsSchema = z
  .array(emailAttachmentSchema, { error: 'must be an array of files ({ file, name, mime })' })
  .max(MAX_ATTACHMENTS, `must hold at most ${MAX_ATTACHMENTS} files`)
  .refine((files) => files.reduce((sum, f) => sum + decodedBytes(f.file), 0) <= MAX_ATTACHMENT_BYTES, `must hold at most ${MAX_ATTACHMENT_BYTES / 1024 / 1024} MiB of files in all`);

/** A file as a provider sends it (`ProviderMessage.attachments`). */
export interface EmailAttachment {
  readonly filename: string;
  readonly contentType: string;
  readonly content: Uint8Array;
  /** The id the HTML names it by (`cid:…`), for an inline image. */
  readonly cid?: string;
  /** @default 'attachment' */
  readonly disposition: 'attachment' | 'inline';
}

/** The files of a trigger's payload that go out through `channel`, decoded; none when it attaches none (or its attachments are not valid). */
export function attachmentsOf(payload: Readonly<Record<string, unknown>>, channel: string): EmailAttachment[] {
  if (!('attachments' in payload)) return [];
  const parsed = emailAttachmentsSchema.safeParse(payload['attachments']);
  if (!parsed.success) return [];
  return parsed.data
    .filter((a) => a.channels === undefined || (a.channels as readonly string[]).includes(channel))
    .map((a) => ({ filename: a.name, contentType: a.mime ?? 'application/octet-stream', content: Uint8Array.from(Buffer.from(a.file, 'base64')), ...(a.cid !== undefined && { cid: a.cid }), disposition: a.disposition ?? (a.cid !== undefined ? 'inline' : 'attachment') }));
}
