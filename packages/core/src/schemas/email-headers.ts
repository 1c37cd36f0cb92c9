import { z } from 'zod';

/** Most custom headers one email carries. */
export const MAX_EMAIL_HEADERS = 50;

/** Headers the message itself sets (its addressing, parts and one-click unsubscribe): never custom ones. */
const RESERVED_HEADERS: ReadonlySet<string> = new Set([
  'from', 'to', 'cc', 'bcc', 'subject', 'reply-to', 'sender', 'date', 'message-id', 'mime-version', 'content-type',
  'content-transfer-encoding', 'content-disposition', 'return-path', 'list-unsubscribe', 'list-unsubscribe-post',
]);

/** What is wrong with a custom header's name (an RFC 5322 field name, not one the message sets itself); null when nothing. */
function headerNameProblem(name: string): string | null {
  if (!/^[!-9;-~]{1,76}$/.test(name)) return 'is not a header name: 1 to 76 printable ASCII characters, no colon or space';
  if (RESERVED_HEADERS.has(name.toLowerCase())) return `is set by the message itself (its addresses, subject, parts and unsubscribe headers): use the member for it instead`;
  return null;
}

/** Custom headers by name, each name checked (the issue's path is the header's name). */
const headersOf = (value: z.ZodType<string>) =>
  z.record(z.string(), value).superRefine((headers, ctx) => {
    const names = Object.keys(headers);
    if (names.length > MAX_EMAIL_HEADERS) ctx.addIssue({ code: 'custom', message: `must hold at most ${MAX_EMAIL_HEADERS} headers` });
    for (const name of names) {
      const problem = headerNameProblem(name);
      if (problem) ctx.addIssue({ code: 'custom', path: [name], message: problem });
    }
  });

/** A header's value: one line (no CR or LF) of at most 998 characters. */
export const emailHeaderValueSchema = z.string({ error: 'must be text' }).max(998, 'must be at most 998 characters').regex(/^[^\r\n]*$/, 'must be one line (no CR or LF)');

/** Custom headers by name (`{ "X-Campaign": "spring" }`): at most MAX_EMAIL_HEADERS. */
export const emailHeadersSchema = headersOf(emailHeaderValueSchema);

/** A step's custom headers: names checked when saved, values liquid (each rendered, then checked as one line). */
export const emailHeaderTemplatesSchema = headersOf(z.string({ error: 'must be text' }).max(998, 'must be at most 998 characters'));
