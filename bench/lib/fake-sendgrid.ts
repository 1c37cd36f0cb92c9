import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the fake provider saw: its own concurrency and when it accepted the first and last mail. */
export interface FakeProviderStats {
  readonly accepted: number;
  /** Mails to a recipient it had accepted a mail for already (a send made twice). */
  readonly duplicates: number;
  readonly refused: number;
  /** Most requests it held at once (received, not yet answered). */
  readonly maxInFlight: number;
  /** When (epoch ms, sub-ms precision: comparable across processes) it sent the first and the last 202, or null before any. */
  readonly firstAcceptedAt: number | null;
  readonly lastAcceptedAt: number | null;
}

export interface FakeSendgrid {
  /** `http://127.0.0.1:<port>`: the integration's `baseUrl`. */
  readonly url: string;
  readonly apiKey: string;
  stats(): FakeProviderStats;
  /** Forgets what it counted (a new run on the same server). */
  reset(): void;
  close(): Promise<void>;
}

type Reply = { status: number; body?: unknown; headers?: Record<string, string> };
const refusal = (status: number, message: string, field: string | null = null): Reply => ({ status, body: { errors: [{ message, field, help: null }] } });

/** SendGrid's checks that matter for a bench: the route, the Bearer key, a JSON body with a recipient, a sender, a subject and content. */
function check(req: IncomingMessage, body: string, apiKey: string): Reply | { recipient: string } {
  if (req.method !== 'POST' || req.url !== '/v3/mail/send') return refusal(404, 'resource not found');
  if (req.headers.authorization !== `Bearer ${apiKey}`) return refusal(401, 'The provided authorization grant is invalid, expired, or revoked');
  if (!req.headers['content-type']?.startsWith('application/json')) return refusal(415, 'Content-Type should be application/json.');
  let mail: { personalizations?: { to?: { email?: unknown }[] }[]; from?: { email?: unknown }; subject?: unknown; content?: { type?: unknown; value?: unknown }[] };
  try {
    mail = JSON.parse(body) as typeof mail;
  } catch {
    return refusal(400, 'Bad Request');
  }
  const to = mail.personalizations?.[0]?.to?.[0]?.email;
  if (typeof to !== 'string' || !to.includes('@')) return refusal(400, 'The to array is required for all personalization objects, and must have at least one email object with a valid email address.', 'personalizations.0.to');
  if (typeof mail.from?.email !== 'string') return refusal(400, 'The from object must be provided for every email send.', 'from');
  if (typeof mail.subject !== 'string' || mail.subject === '') return refusal(400, 'The subject is required.', 'subject');
  if (!Array.isArray(mail.content) || mail.content.length === 0 || mail.content.some((part) => typeof part.value !== 'string' || part.value === '')) return refusal(400, 'The content value must be a string at least one character in length.', 'content');
  return { recipient: to.toLowerCase() };
}

/**
 * A local stand-in for SendGrid's documented `POST /v3/mail/send` (Bearer key, JSON body, `202
 * Accepted` with the message id in `X-Message-Id`, errors as `{ errors: [{ message, field, help }] }`)
 * that answers after `latencyMs`, as a hosted service does, and measures its own concurrency.
 */
export async function fakeSendgrid(options: { latencyMs: number; apiKey?: string }): Promise<FakeSendgrid> {
  const apiKey = options.apiKey ?? 'SG.bench';
  let inFlight = 0;
  let maxInFlight = 0;
  let accepted = 0;
  let duplicates = 0;
  let refused = 0;
  let firstAcceptedAt: number | null = null;
  let lastAcceptedAt: number | null = null;
  let recipients = new Set<string>();
  const answer = (res: ServerResponse, reply: Reply) => {
    res.writeHead(reply.status, { ...(reply.body !== undefined && { 'content-type': 'application/json' }), ...reply.headers });
    res.end(reply.body === undefined ? undefined : JSON.stringify(reply.body));
    inFlight--;
  };
  const server = createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
    inFlight++;
    if (inFlight > maxInFlight) maxInFlight = inFlight;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const checked = check(req, Buffer.concat(chunks).toString('utf8'), apiKey);
      setTimeout(() => {
        if (!('recipient' in checked)) {
          refused++;
          return answer(res, checked);
        }
        accepted++;
        if (recipients.has(checked.recipient)) duplicates++;
        else recipients.add(checked.recipient);
        const now = performance.timeOrigin + performance.now();
        firstAcceptedAt ??= now;
        lastAcceptedAt = now;
        answer(res, { status: 202, headers: { 'x-message-id': randomBytes(11).toString('base64url') } });
      }, options.latencyMs);
    });
  });
  server.maxRequestsPerSocket = 0;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    apiKey,
    stats: () => ({ accepted, duplicates, refused, maxInFlight, firstAcceptedAt, lastAcceptedAt }),
    reset() {
      maxInFlight = inFlight;
      accepted = duplicates = refused = 0;
      firstAcceptedAt = lastAcceptedAt = null;
      recipients = new Set();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
