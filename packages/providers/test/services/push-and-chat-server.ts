import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a fake service received. */
export interface ServiceCall {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** The body as JSON, or null when it is not JSON. */
  readonly json: any;
}

/** What a fake service answers: JSON by default. */
export interface ServiceReply {
  readonly status: number;
  readonly json?: unknown;
  readonly headers?: Record<string, string>;
}

/**
 * A real HTTP server on 127.0.0.1 on which a fake service (push and chat services' documented APIs)
 * answers every request; `calls` keeps them in order for the test to look at.
 */
export async function serviceServer(answer: (call: ServiceCall) => ServiceReply | Promise<ServiceReply>) {
  const calls: ServiceCall[] = [];
  let open = 0;
  const server = createServer((req, res) => {
    // A request is open until its answer is sent or the client gives up on it (its connection closes).
    open++;
    res.once('close', () => open--);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown = null;
      try {
        json = JSON.parse(body);
      } catch {
        json = null;
      }
      const call = { method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers, body, json };
      calls.push(call);
      const reply = await answer(call);
      res.writeHead(reply.status, { 'content-type': 'application/json; charset=utf-8', ...reply.headers }).end(reply.json === undefined ? '' : JSON.stringify(reply.json));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    /** Requests received and neither answered nor given up by the client yet. */
    open: () => open,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
