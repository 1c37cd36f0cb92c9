import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { answerGate } from './answer-gate.js';

/** What a fake service saw of one request. */
export interface SeenRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** The body as form fields (empty unless it was form-encoded). */
  readonly form: URLSearchParams;
}

export interface Reply {
  readonly status: number;
  readonly headers?: Record<string, string>;
  readonly body?: string;
}

/**
 * A real HTTP server on 127.0.0.1 that a fake service plays on: `handle` answers each request, unless
 * a reply was queued with `replyNext` (a 429, a 5xx, a throttle), which is given first. Every request
 * is recorded in `received`. While answers are held (`holdAnswers`), each request is handled (the
 * message accepted) at once and its answer written only on release, as a service that answers late.
 */
export async function fakeServiceServer(handle: (request: SeenRequest) => Reply) {
  const received: SeenRequest[] = [];
  const queued: Reply[] = [];
  const gate = answerGate();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const formEncoded = (req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');
      const request: SeenRequest = { method: req.method ?? '', path: req.url ?? '/', headers: req.headers, body, form: new URLSearchParams(formEncoded ? body : '') };
      received.push(request);
      const reply = queued.shift() ?? handle(request);
      await gate.pass(res);
      // A client that gave up has closed its socket: the late answer goes nowhere, as on the real service.
      if (!res.destroyed) res.writeHead(reply.status, reply.headers).end(reply.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    /** Gives `reply` to the next request, before the service looks at it. */
    replyNext(reply: Reply) {
      queued.push(reply);
    },
    holdAnswers: gate.holdAnswers,
    waiting: gate.waiting,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

export const json = (status: number, body: unknown, headers: Record<string, string> = {}): Reply => ({
  status,
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});
