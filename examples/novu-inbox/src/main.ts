import { createHmac } from 'node:crypto';
import type { Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { serve as serveNode } from '@hono/node-server';
import { serve } from '@tidings/cli';
import { build } from 'esbuild';
import { Hono } from 'hono';

/** Bundles a React page (React 19, Novu's `<Inbox />` or `<Subscription />`) once, in memory. */
async function bundle(entry: string): Promise<string> {
  const result = await build({
    entryPoints: [fileURLToPath(new URL(`./client/${entry}`, import.meta.url))],
    bundle: true,
    format: 'esm',
    target: 'es2022',
    jsx: 'automatic',
    minify: true,
    define: { 'process.env.NODE_ENV': '"production"' },
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

const JAVASCRIPT = { 'content-type': 'text/javascript; charset=utf-8' };
/** The topic the `/subscription` page subscribes to. */
export const RELEASE_TOPIC = 'release-notes';

const page = (config: object, script: string) => `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Tidings · Novu's Inbox</title></head>
<body style="font-family: system-ui; margin: 2rem">
<h1>Acme</h1>
<div id="root"></div>
<script>window.INBOX_CONFIG = ${JSON.stringify(config).replace(/</g, '\\u003c')};</script>
<script type="module" src="${script}"></script>
</body>
</html>`;

export interface NovuInboxExampleOptions {
  /** The Tidings API (`tidings serve`). @default 3004 (0 picks a free port) */
  apiPort?: number;
  /** The app's page. @default 3003 (0 picks a free port) */
  pagePort?: number;
  /** SQLite file; the API key and application identifier are kept beside it. @default '.tidings/novu-inbox.db' */
  db?: string;
  /** The demo's signed-in user. @default 'ada' */
  subscriberId?: string;
}

/** Listens on 127.0.0.1:`port`; a port in use (or any other listen error) rejects with one line. */
function listen(fetch: (request: Request) => Response | Promise<Response>, port: number) {
  return new Promise<ReturnType<typeof serveNode>>((resolve, reject) => {
    const server = serveNode({ fetch, port, hostname: '127.0.0.1' }, () => resolve(server));
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(new Error(error.code === 'EADDRINUSE' ? `port ${port} on 127.0.0.1 is already in use (pick another with --port)` : `cannot listen on 127.0.0.1:${port}: ${error.message}`)),
    );
  });
}

/**
 * Two origins, as in production: `tidings serve` (the API and its live sockets, on SQLite) and the
 * app's own server, which serves the page and computes the subscriber's hash with the API key — the
 * code an app's backend runs, as Novu's docs show it. The page gets the public application
 * identifier, the subscriberId and its hash; never the API key.
 */
export async function start(options: NovuInboxExampleOptions = {}) {
  const tidings = await serve({ port: options.apiPort ?? 3004, db: options.db ?? '.tidings/novu-inbox.db', graceMs: 1_000 });
  const subscriberId = options.subscriberId ?? 'ada';
  await tidings.tidings.workflows.upsert({
    name: 'Comment received',
    triggers: [{ identifier: 'comment-received' }],
    severity: 'high',
    tags: ['social'],
    steps: [
      {
        template: {
          type: 'in_app',
          subject: 'New comment',
          content: '{{ payload.author }} commented on {{ payload.post }}',
          cta: { data: { url: '/posts/{{ payload.post }}' }, action: { buttons: [{ type: 'primary', content: 'Reply' }, { type: 'secondary', content: 'Dismiss' }] } },
        },
      },
      { template: { type: 'email', subject: 'New comment', content: '{{ payload.author }} commented' } },
    ],
  });
  await tidings.tidings.workflows.upsert({
    name: 'Release notes',
    triggers: [{ identifier: 'release-notes' }],
    tags: ['product'],
    steps: [
      { template: { type: 'in_app', subject: 'Release {{ payload.version }}', content: 'Version {{ payload.version }} is out' } },
      { template: { type: 'email', subject: 'Release {{ payload.version }}', content: 'Version {{ payload.version }} is out' } },
    ],
  });
  const subscriberHash = createHmac('sha256', tidings.apiKey).update(subscriberId).digest('hex');
  const [inboxScript, subscriptionScript] = await Promise.all([bundle('app.tsx'), bundle('subscription.tsx')]);
  const config = { backendUrl: tidings.url, applicationIdentifier: tidings.applicationIdentifier, subscriberId, subscriberHash };
  const app = new Hono();
  app.get('/', (c) => c.html(page(config, '/app.js')));
  app.get('/app.js', (c) => c.body(inboxScript, 200, JAVASCRIPT));
  // Novu's <Subscription /> for the topic `release-notes`, with the subscription's say over that workflow.
  app.get('/subscription', (c) => c.html(page({ ...config, topicKey: RELEASE_TOPIC, workflows: ['release-notes'] }, '/subscription.js')));
  app.get('/subscription.js', (c) => c.body(subscriptionScript, 200, JAVASCRIPT));
  // One workspace's Inbox (Novu's contexts): it shows only what was triggered in that workspace. The
  // contextHash is the HMAC of the context's canonical JSON (members sorted; with one member, its JSON).
  app.get('/workspace/:id', (c) => {
    const context = { workspace: c.req.param('id') };
    const contextHash = createHmac('sha256', tidings.apiKey).update(JSON.stringify(context)).digest('hex');
    return c.html(page({ ...config, context, contextHash }, '/app.js'));
  });
  app.post('/demo/comment', async (c) => {
    const workspace = c.req.query('workspace');
    return c.json(await tidings.tidings.trigger({ name: 'comment-received', to: subscriberId, payload: { author: 'Grace', post: 'Compilers' }, ...(workspace && { context: { workspace } }) }));
  });
  let server: ReturnType<typeof serveNode>;
  try {
    server = await listen(app.fetch, options.pagePort ?? 3003);
  } catch (error) {
    await tidings.close();
    throw error;
  }
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    api: tidings,
    subscriberId,
    /** Closes the page's server, then the API (its sockets, job loop and storage). */
    async close() {
      (server as Server).closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await tidings.close();
    },
  };
}

const USAGE = 'Usage: pnpm --filter @tidings/example-novu-inbox start [--port 3003] [--api-port 3004] [--db .tidings/novu-inbox.db]   (or PORT=3003 API_PORT=3004)';

/** A port from an option or its environment variable, if either is given; throws with a one-line reason. */
function portOf(raw: string | undefined, what: string): number | undefined {
  if (raw === undefined) return undefined;
  const port = Number(raw);
  if (raw.trim() === '' || !Number.isInteger(port) || port < 0 || port > 65_535) throw new Error(`${what} must be a port number, not "${raw}"`);
  return port;
}

/** `--port` (else PORT) for the page, `--api-port` (else API_PORT) for the Tidings API, and `--db`. */
function readArguments(args: readonly string[]): NovuInboxExampleOptions {
  const { values } = parseArgs({
    args: args[0] === '--' ? args.slice(1) : [...args],
    options: { port: { type: 'string' }, 'api-port': { type: 'string' }, db: { type: 'string' } },
  });
  const pagePort = portOf(values.port ?? process.env['PORT'], '--port (or PORT)');
  const apiPort = portOf(values['api-port'] ?? process.env['API_PORT'], '--api-port (or API_PORT)');
  return { ...(pagePort !== undefined && { pagePort }), ...(apiPort !== undefined && { apiPort }), ...(values.db !== undefined && { db: values.db }) };
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  let options: NovuInboxExampleOptions;
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
    console.error(`The Novu Inbox example could not start: ${(error as Error).message}`);
    process.exit(1);
  }
  const { api } = running;
  console.log(`Novu's Inbox on Tidings: ${running.url}`);
  console.log(`Tidings API: ${api.url}`);
  console.log(`Application identifier: ${api.applicationIdentifier}${api.applicationIdentifierFile ? ` (kept in ${api.applicationIdentifierFile})` : ''}`);
  if (api.apiKeyCreated) console.log(`API key (new, kept in ${api.apiKeyFile}): ${api.apiKey}`);
  else console.log(`API key: kept in ${api.apiKeyFile}`);
  console.log(`The page gets the application identifier, the subscriberId (${running.subscriberId}) and its hash; the API key stays on the server.`);
  console.log(`Novu's <Subscription /> to the topic ${RELEASE_TOPIC}: ${running.url}/subscription`);
  console.log(`One workspace's Inbox (Novu's contexts): ${running.url}/workspace/design`);
  console.log(`Try: curl -X POST ${running.url}/demo/comment   (the bell rings live; ?workspace=design for that workspace's Inbox); Ctrl-C to stop`);
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    setTimeout(() => {
      console.error('The Novu Inbox example took more than 10 s to stop; exiting');
      process.exit(1);
    }, 10_000).unref();
    try {
      await running.close();
      console.log('Novu Inbox example stopped');
      process.exit(0);
    } catch (error) {
      console.error(`Stopping the Novu Inbox example failed: ${(error as Error).message}`);
      process.exit(1);
    }
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
}
