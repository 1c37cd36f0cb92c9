import { randomBytes } from 'node:crypto';
import { fakeService, mailboxAddress, type ReceivedFile, type ServiceCall, type ServiceReply } from './email-fake-server.js';

/** A mail Mailgun accepted: its form fields (a repeated field keeps every value). */
export interface MailgunMail {
  readonly id: string;
  readonly domain: string;
  readonly fields: Record<string, string[]>;
  /** The `attachment` and `inline` file parts; an inline one's Content-ID is its file name, as Mailgun shows it. */
  readonly files: ReceivedFile[];
}

interface ReceivedForm {
  readonly fields: Record<string, string[]>;
  readonly files: ReceivedFile[];
}

const error = (status: number, message: string): ServiceReply => ({ status, body: { message } });
const FILE_FIELDS = new Set(['attachment', 'inline']);

/**
 * The body as Mailgun reads it: form-encoded (no files), or multipart/form-data, where `attachment`
 * and `inline` must be file parts (with a file name). A string is the refusal's message.
 */
async function readForm(call: ServiceCall): Promise<ReceivedForm | string> {
  const type = call.headers['content-type'] ?? '';
  const fields: Record<string, string[]> = {};
  if (type.startsWith('application/x-www-form-urlencoded')) {
    for (const [name, value] of new URLSearchParams(call.body)) {
      if (FILE_FIELDS.has(name)) return `'${name}' must be a file: send files as multipart/form-data`;
      (fields[name] ??= []).push(value);
    }
    return { fields, files: [] };
  }
  if (!type.startsWith('multipart/form-data')) return 'from parameter is missing';
  let form: FormData;
  try {
    form = await new Response(new Uint8Array(call.raw), { headers: { 'content-type': type } }).formData();
  } catch {
    return 'the multipart/form-data body could not be parsed';
  }
  const files: ReceivedFile[] = [];
  const parts: [string, FormDataEntryValue][] = [];
  form.forEach((value, name) => parts.push([name, value]));
  for (const [name, value] of parts) {
    if (typeof value === 'string') {
      if (FILE_FIELDS.has(name)) return `'${name}' must be a file part, with a file name`;
      (fields[name] ??= []).push(value);
    } else {
      if (!FILE_FIELDS.has(name) || !value.name) return `'${name}' is not a file parameter`;
      const content = Buffer.from(await value.arrayBuffer());
      files.push({ filename: value.name, contentType: value.type || 'application/octet-stream', content, ...(name === 'inline' && { cid: value.name }) });
    }
  }
  return { fields, files };
}

/**
 * Plays Mailgun's `POST /v3/{domain}/messages` for one region's host: HTTP Basic auth with the
 * account's user and API key (401 "Forbidden" as text), domains of this region only (404 "Domain
 * not found"), a form-encoded body, or multipart/form-data whose `attachment` and `inline` are file
 * parts (files only go that way; 400 `{ message }` for missing or bad fields), and
 * `{ id: '<…@domain>', message: 'Queued. Thank you.' }` on success.
 */
export async function fakeMailgun(account: { user?: string; apiKey: string; domains: string[] }) {
  const accepted: MailgunMail[] = [];
  const service = await fakeService(async (call) => {
    const route = /^\/v3\/([^/]+)\/messages$/.exec(call.path);
    if (call.method !== 'POST' || !route) return { status: 404, body: '404 page not found' };
    const expected = `Basic ${Buffer.from(`${account.user ?? 'api'}:${account.apiKey}`).toString('base64')}`;
    if (call.headers.authorization !== expected) return { status: 401, body: 'Forbidden' };
    const domain = decodeURIComponent(route[1]!);
    if (!account.domains.includes(domain)) return error(404, `Domain not found: ${domain}`);
    const form = await readForm(call);
    if (typeof form === 'string') return error(400, form);
    const field = (name: string) => form.fields[name]?.[0];
    if (!field('from')) return error(400, "'from' parameter is missing");
    if (!mailboxAddress(field('from'))) return error(400, "'from' parameter is not a valid address. please check documentation");
    const to = form.fields['to'] ?? [];
    if (to.length === 0) return error(400, "'to' parameter is missing");
    if (to.some((address) => !mailboxAddress(address))) return error(400, "to parameter is not a valid address. please check documentation");
    if (!field('text') && !field('html')) return error(400, "Need at least one of 'text', 'html' or 'template' parameters specified");
    const id = `<${new Date().toISOString().replace(/\D/g, '').slice(0, 14)}.${randomBytes(8).toString('hex')}@${domain}>`;
    accepted.push({ id, domain, ...form });
    return { status: 200, body: { id, message: 'Queued. Thank you.' } };
  });
  return { ...service, accepted };
}
