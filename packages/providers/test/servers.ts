import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  json: unknown;
}

/** A real HTTP server on 127.0.0.1 that records requests; `respond` decides each answer. */
export async function webhookServer(respond: (request: Received, count: number) => { status: number; body?: string; headers?: Record<string, string> } | 'hang' = () => ({ status: 200, body: 'ok' })) {
  const received: Received[] = [];
  const hanging: (() => void)[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      let json: unknown = null;
      try {
        json = JSON.parse(body);
      } catch {
        json = null;
      }
      const request = { path: req.url ?? '/', headers: req.headers, body, json };
      received.push(request);
      const answer = respond(request, received.length);
      if (answer === 'hang') {
        hanging.push(() => res.destroy());
        return;
      }
      res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers }).end(answer.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path = '/hook') => `http://127.0.0.1:${port}${path}`,
    received,
    async close() {
      for (const h of hanging) h();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

export interface Mail {
  from: string;
  to: string[];
  raw: string;
}

/**
 * A real SMTP server on 127.0.0.1 (no TLS, no auth); `reject` may refuse a message with an SMTP code.
 * `connections` counts the connections clients opened, `open` those not closed yet.
 */
export async function smtpServer(reject: (count: number) => { code: number; message: string } | null = () => null) {
  const mails: Mail[] = [];
  let count = 0;
  const seen = { connections: 0, open: 0 };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onConnect(_session, callback) {
      seen.connections++;
      seen.open++;
      callback();
    },
    onClose() {
      seen.open--;
    },
    onData(stream, session, callback) {
      let raw = '';
      stream.on('data', (chunk: Buffer) => (raw += chunk.toString()));
      stream.on('end', () => {
        count++;
        const refusal = reject(count);
        if (refusal) {
          const error = Object.assign(new Error(refusal.message), { responseCode: refusal.code });
          return callback(error);
        }
        mails.push({ from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', to: session.envelope.rcptTo.map((r) => r.address), raw });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    port,
    mails,
    /** Connections opened so far. */
    connections: () => seen.connections,
    /** Connections open now. */
    open: () => seen.open,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
