import { randomBytes } from 'node:crypto';
import { fakeService, mailboxAddress, type ServiceReply } from './email-fake-server.js';

/** A mail Mailgun accepted: its form fields (a repeated field keeps every value). */
export interface MailgunMail {
  readonly id: string;
  readonly domain: string;
  readonly fields: Record<string, string[]>;
}

const error = (status: number, message: string): ServiceReply => ({ status, body: { message } });

/**
 * Plays Mailgun's `POST /v3/{domain}/messages` for one region's host: HTTP Basic auth with the
 * account's user and API key (401 "Forbidden" as text), domains of this region only (404 "Domain
 * not found"), a form-encoded body (400 `{ message }` for missing or bad fields), and
 * `{ id: '<…@domain>', message: 'Queued. Thank you.' }` on success.
 */
export async function fakeMailgun(account: { user?: string; apiKey: string; domains: string[] }) {
  const accepted: MailgunMail[] = [];
  const service = await fakeService((call) => {
    const route = /^\/v3\/([^/]+)\/messages$/.exec(call.path);
    if (call.method !== 'POST' || !route) return { status: 404, body: '404 page not found' };
    const expected = `Basic ${Buffer.from(`${account.user ?? 'api'}:${account.apiKey}`).toString('base64')}`;
    if (call.headers.authorization !== expected) return { status: 401, body: 'Forbidden' };
    const domain = decodeURIComponent(route[1]!);
    if (!account.domains.includes(domain)) return error(404, `Domain not found: ${domain}`);
    if (!call.headers['content-type']?.startsWith('application/x-www-form-urlencoded')) return error(400, 'from parameter is missing');
    const form = new URLSearchParams(call.body);
    const fields: Record<string, string[]> = {};
    for (const [name, value] of form) (fields[name] ??= []).push(value);
    if (!form.get('from')) return error(400, "'from' parameter is missing");
    if (!mailboxAddress(form.get('from'))) return error(400, "'from' parameter is not a valid address. please check documentation");
    const to = form.getAll('to');
    if (to.length === 0) return error(400, "'to' parameter is missing");
    if (to.some((address) => !mailboxAddress(address))) return error(400, "to parameter is not a valid address. please check documentation");
    if (!form.get('text') && !form.get('html')) return error(400, "Need at least one of 'text', 'html' or 'template' parameters specified");
    const id = `<${new Date().toISOString().replace(/\D/g, '').slice(0, 14)}.${randomBytes(8).toString('hex')}@${domain}>`;
    accepted.push({ id, domain, fields });
    return { status: 200, body: { id, message: 'Queued. Thank you.' } };
  });
  return { ...service, accepted };
}
