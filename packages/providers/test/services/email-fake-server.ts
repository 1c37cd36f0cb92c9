import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { answerGate } from './answer-gate.js';

/** One request as the fake service received it. */
export interface ServiceCall {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  /** The body as UTF-8 text. */
  readonly body: string;
  /** The body's bytes, as they came (a multipart body's files are binary). */
  readonly raw: Buffer;
}

/** An answer: a string body is sent as text, anything else as JSON. */
export interface ServiceReply {
  readonly status: number;
  readonly headers?: Record<string, string>;
  readonly body?: unknown;
}

/**
 * A real HTTP server on 127.0.0.1 that plays one service: `handle` answers each request as the
 * service would. `outage(reply)` makes the next request get `reply` instead (a 5xx, a 429), as when
 * the service is down or throttling. While answers are held (`holdAnswers`), each request is handled
 * (the mail accepted) at once and its answer written only on release, as a service that answers late.
 */
export async function fakeService(handle: (call: ServiceCall) => ServiceReply | Promise<ServiceReply>) {
  const calls: ServiceCall[] = [];
  const outages: ServiceReply[] = [];
  const gate = answerGate();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const raw = Buffer.concat(chunks);
      const call = { method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers, body: raw.toString('utf8'), raw };
      calls.push(call);
      const reply = outages.shift() ?? (await handle(call));
      await gate.pass(res);
      // A client that gave up has closed its socket: the late answer goes nowhere, as on the real service.
      if (res.destroyed) return;
      const text = typeof reply.body === 'string';
      const headers = { ...(reply.body !== undefined && { 'content-type': text ? 'text/plain; charset=utf-8' : 'application/json' }), ...reply.headers };
      res.writeHead(reply.status, headers).end(reply.body === undefined ? '' : text ? reply.body : JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    outage(reply: ServiceReply) {
      outages.push(reply);
    },
    holdAnswers: gate.holdAnswers,
    waiting: gate.waiting,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A plain `local@domain` address (what these services accept after parsing a mailbox). */
export const isEmail = (value: unknown): value is string => typeof value === 'string' && /^[^\s@<>"]+@[^\s@<>"]+\.[^\s@<>"]+$/.test(value);

/** The address inside `Name <address>` (or the bare address), or null when it is malformed. */
export function mailboxAddress(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const angled = /^(?:"(?:[^"\\]|\\.)*"|[^<>"]*|=\?[^?]+\?[BbQq]\?[^?]*\?=)\s*<([^<>]+)>$/.exec(value.trim());
  const address = angled ? angled[1] : value.trim();
  return isEmail(address) ? address : null;
}

/** The display name of `Name <address>`, quotes and encoded-words undone. */
export function mailboxName(value: string): string | undefined {
  const name = /^(.*?)\s*<[^<>]+>$/.exec(value.trim())?.[1];
  if (!name) return undefined;
  const encoded = /^=\?UTF-8\?B\?([^?]*)\?=$/i.exec(name);
  if (encoded) return Buffer.from(encoded[1]!, 'base64').toString('utf8');
  return name.startsWith('"') ? name.slice(1, -1).replace(/\\(.)/g, '$1') : name;
}

/** Standard base64 (RFC 4648 §4, padded), as the JSON mail APIs require a file's content. */
export const isBase64 = (value: unknown): value is string => typeof value === 'string' && value.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(value);

/** A file a fake service received, decoded: what a test compares with what the trigger attached. */
export interface ReceivedFile {
  readonly filename: string;
  readonly contentType: string;
  readonly content: Buffer;
  /** The Content-ID it is shown by, for an inline file. */
  readonly cid?: string;
}
