import { createHmac, randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { serve } from '@hono/node-server';
import { createTidings } from '@tidings/core';
import { createHttpApp } from '@tidings/http';
import { webPushProvider, type NetworkPolicy } from '@tidings/providers';
import { sqliteStorage } from '@tidings/sqlite';
import { build } from 'esbuild';
import { Hono } from 'hono';
import { inboxPage } from './page.js';
import { keepSubscription, vapidKeys, type VapidKeys } from './web-push.js';

/** Bundles a browser script (the page's, the service worker) once, in memory. */
async function bundle(entry: string, format: 'esm' | 'iife'): Promise<string> {
  const result = await build({
    entryPoints: [fileURLToPath(new URL(entry, import.meta.url))],
    bundle: true,
    format,
    target: 'es2022',
    write: false,
  });
  return result.outputFiles[0]!.text;
}

/** Listens on 127.0.0.1:`port`; a port in use (or any other listen error) rejects with one line. */
function listen(fetch: (request: Request) => Response | Promise<Response>, port: number) {
  return new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const server = serve({ fetch, port, hostname: '127.0.0.1' }, () => resolve(server));
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(new Error(error.code === 'EADDRINUSE' ? `port ${port} on 127.0.0.1 is already in use (pick another with --port)` : `cannot listen on 127.0.0.1:${port}: ${error.message}`)),
    );
  });
}

export interface InboxExampleOptions {
  /** @default 3002 (0 picks a free port) */
  port?: number;
  /** SQLite file. @default '.tidings/inbox-example.db' */
  filename?: string;
  /** The demo's signed-in user. @default 'ada' */
  subscriberId?: string;
  /** The environment's secret API key: server side only. @default TIDINGS_API_KEY, else a new random key each start */
  apiKey?: string;
  /** The environment's public application identifier (what Inbox sessions are opened with). @default 'inbox-demo' */
  applicationIdentifier?: string;
  /** Browser push keys. @default VAPID_PUBLIC_KEY, VAPID_PRIVATE_KEY and VAPID_SUBJECT, else a new pair each start */
  vapid?: VapidKeys;
  /** Which push service addresses browser push may reach. @default public addresses only (a test allows its local push service) */
  pushNetwork?: NetworkPolicy;
}

/**
 * A demo app with an in-app inbox: the page at `/`, its script at `/inbox.js`, and the Tidings API
 * (with its Inbox routes and live socket) under `/api`.
 *
 * The browser never sees the API key. For each page it serves, the app's server opens an Inbox
 * session for the signed-in subscriber — `POST /v1/inbox/session` with the public application
 * identifier, the subscriberId and its HMAC hash, which only the server can compute since it is
 * keyed with the API key — and puts the session token in the page. The page uses that token
 * (`Authorization: Bearer`) for the feed and the actions, and on the live socket: it reaches that one
 * subscriber's inbox and nothing else.
 */
export async function start(options: InboxExampleOptions = {}) {
  const vapid = vapidKeys(options.vapid);
  const storage = sqliteStorage({ filename: options.filename ?? '.tidings/inbox-example.db' });
  const tidings = createTidings({ storage, providers: [webPushProvider(options.pushNetwork ? { network: options.pushNetwork } : {})] });
  // Browser push: the VAPID keys are the integration's credentials (the private one stays on the server).
  await tidings.integrations.upsert({
    identifier: 'browser-push',
    name: 'Browser push',
    providerId: 'web-push',
    channel: 'push',
    credentials: { apiKey: vapid.publicKey, secretKey: vapid.privateKey, from: vapid.subject },
    active: true,
    primary: true,
  });
  await tidings.workflows.upsert({
    name: 'Invitation',
    triggers: [{ identifier: 'invitation' }],
    steps: [
      {
        template: {
          type: 'in_app',
          content: '{{ payload.from }} invited you to {{ payload.project }}',
          cta: { type: 'redirect', data: { url: '/projects/{{ payload.project }}' }, action: { buttons: [{ type: 'primary', content: 'Accept' }, { type: 'secondary', content: 'Decline' }] } },
        },
      },
      // To each browser the subscriber turned on with "Notify me in this browser" (none: not sent).
      { template: { type: 'push', title: 'New invitation', content: '{{ payload.from }} invited you to {{ payload.project }}' } },
    ],
  });
  tidings.start();
  // Server-side secrets: the API key (which also keys the subscriber hashes and signs session tokens).
  const apiKey = options.apiKey ?? process.env['TIDINGS_API_KEY'] ?? `tid_${randomBytes(24).toString('hex')}`;
  const applicationIdentifier = options.applicationIdentifier ?? 'inbox-demo';
  const subscriberId = options.subscriberId ?? 'ada';
  await tidings.subscribers.upsert({ subscriberId, firstName: 'Ada' });
  // The Inbox requires the subscriber hash (the default): no one can open a session for a subscriber without it.
  const api = createHttpApp({ environments: [{ tidings, apiKeys: [apiKey], applicationIdentifier }] });
  const [script, serviceWorker] = await Promise.all([bundle('./client/inbox.ts', 'esm'), bundle('./client/sw.ts', 'iife')]);

  /**
   * Opens an Inbox session for `subscriber` as any app backend would (here in-process; against a
   * remote Tidings it is the same POST over HTTP): the hash is HMAC-SHA256 of the subscriberId keyed
   * with the API key, hex.
   */
  async function openSession(subscriber: string): Promise<string> {
    const subscriberHash = createHmac('sha256', apiKey).update(subscriber).digest('hex');
    const response = await api.request('/v1/inbox/session', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ applicationIdentifier, subscriberId: subscriber, subscriberHash }),
    });
    if (response.status !== 201) throw new Error(`opening the inbox session failed: ${response.status} ${await response.text()}`);
    return ((await response.json()) as { data: { token: string } }).data.token;
  }

  const app = new Hono();
  // A real app takes the subscriberId from its own sign-in; the demo has one user. The page carries a
  // credential (the token), so it is never cached.
  app.get('/', async (c) => c.html(inboxPage({ api: '/api', token: await openSession(subscriberId), vapidPublicKey: vapid.publicKey }), 200, { 'cache-control': 'no-store' }));
  app.get('/inbox.js', (c) => c.body(script, 200, { 'content-type': 'text/javascript; charset=utf-8' }));
  // The service worker, at the root so its scope is the whole site; never cached, so an update reaches browsers.
  app.get('/sw.js', (c) => c.body(serviceWorker, 200, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-cache' }));
  // "Notify me in this browser": the page posts its push subscription, kept for the signed-in
  // subscriber (as for `/`, the demo's one user; a real app takes them from its own sign-in).
  app.post('/push/subscriptions', keepSubscription(tidings, subscriberId));
  app.post('/demo/invite', async (c) => c.json(await tidings.trigger({ name: 'invitation', to: subscriberId, payload: { from: 'Grace', project: 'compilers' } })));
  app.all('/api/*', (c) => {
    const url = new URL(c.req.url);
    url.pathname = url.pathname.slice('/api'.length);
    return api.fetch(new Request(url, c.req.raw));
  });

  let server: ReturnType<typeof serve>;
  try {
    server = await listen(app.fetch, options.port ?? 3002);
  } catch (error) {
    await tidings.stop();
    await storage.close();
    throw error;
  }
  // Live updates on this server's own port: a WebSocket upgrade on any path (the page uses
  // /api/live?token=…) is checked against the session token, never the API key.
  const sockets = api.attachInboxSockets(server as Server);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    tidings,
    subscriberId,
    applicationIdentifier,
    vapid,
    openSession,
    async close() {
      await sockets.close();
      (server as Server).closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await tidings.stop();
      await storage.close();
    },
  };
}

const USAGE = 'Usage: pnpm --filter @tidings/example-inbox start [--port 3002] [--db .tidings/inbox-example.db]   (or PORT=3002)';

/** `--port` (else PORT, else 3002) and `--db`; throws with a one-line reason. */
function readArguments(args: readonly string[]): InboxExampleOptions {
  const { values } = parseArgs({ args: args[0] === '--' ? args.slice(1) : [...args], options: { port: { type: 'string' }, db: { type: 'string' } } });
  const raw = values.port ?? process.env['PORT'];
  const port = raw === undefined ? undefined : Number(raw);
  if (port !== undefined && (raw!.trim() === '' || !Number.isInteger(port) || port < 0 || port > 65_535)) throw new Error(`--port (or PORT) must be a port number, not "${raw}"`);
  return { ...(port !== undefined && { port }), ...(values.db !== undefined && { filename: values.db }) };
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  let options: InboxExampleOptions;
  try {
    options = readArguments(process.argv.slice(2));
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    process.exit(2);
  }
  let running: Awaited<ReturnType<typeof start>>;
  try {
    running = await start(options);
  } catch (error) {
    console.error(`The inbox example could not start: ${(error as Error).message}`);
    process.exit(1);
  }
  const { url } = running;
  console.log(`Inbox demo on ${url}`);
  console.log(`Application identifier: ${running.applicationIdentifier}; subscriber: ${running.subscriberId} (the page gets only this subscriber's Inbox session token)`);
  console.log(`API key: ${process.env['TIDINGS_API_KEY'] ? 'from TIDINGS_API_KEY' : 'a new random one for this run (set TIDINGS_API_KEY to choose it)'}; it stays on this server`);
  console.log(`Browser push: ${running.vapid.generated ? 'new VAPID keys for this run (keep a pair in VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY: npx web-push generate-vapid-keys)' : 'VAPID keys from VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY'}`);
  console.log(`Try: curl -X POST ${url}/demo/invite   (a notification appears live); Ctrl-C to stop`);
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    setTimeout(() => {
      console.error('The inbox example took more than 10 s to stop; exiting');
      process.exit(1);
    }, 10_000).unref();
    try {
      await running.close();
      console.log('Inbox demo stopped');
      process.exit(0);
    } catch (error) {
      console.error(`Stopping the inbox example failed: ${(error as Error).message}`);
      process.exit(1);
    }
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
}
