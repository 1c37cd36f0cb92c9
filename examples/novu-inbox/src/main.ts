import { createHmac } from 'node:crypto';
import type { Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import { serve as serveNode } from '@hono/node-server';
import { serve } from '@tidings/http';
import { build } from 'esbuild';
import { Hono } from 'hono';

/** Bundles the React page (React 19, Novu's `<Inbox />`) once, in memory. */
async function bundle(): Promise<string> {
  const result = await build({
    entryPoints: [fileURLToPath(new URL('./client/app.tsx', import.meta.url))],
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

const page = (config: object) => `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Tidings · Novu's Inbox</title></head>
<body style="font-family: system-ui; margin: 2rem">
<h1>Acme</h1>
<div id="root"></div>
<script>window.INBOX_CONFIG = ${JSON.stringify(config)};</script>
<script type="module" src="/app.js"></script>
</body>
</html>`;

/**
 * Two origins, as in production: `tidings serve` (the API and its live sockets, on SQLite) and the
 * app's own server, which serves the page and computes the subscriber's hash with the API key — the
 * code an app's backend runs, as Novu's docs show it.
 */
export async function start(options: { apiPort?: number; pagePort?: number; db?: string; subscriberId?: string } = {}) {
  const tidings = await serve({ port: options.apiPort ?? 3000, db: options.db ?? '.tidings/novu-inbox.db', graceMs: 1_000 });
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
  const subscriberHash = createHmac('sha256', tidings.apiKey).update(subscriberId).digest('hex');
  const script = await bundle();
  const app = new Hono();
  app.get('/', (c) => c.html(page({ backendUrl: tidings.url, applicationIdentifier: tidings.applicationIdentifier, subscriberId, subscriberHash })));
  app.get('/app.js', (c) => c.body(script, 200, { 'content-type': 'text/javascript; charset=utf-8' }));
  app.post('/demo/comment', async (c) => c.json(await tidings.tidings.trigger({ name: 'comment-received', to: subscriberId, payload: { author: 'Grace', post: 'Compilers' } })));
  const server = await new Promise<ReturnType<typeof serveNode>>((resolve) => {
    const s = serveNode({ fetch: app.fetch, port: options.pagePort ?? 3003, hostname: '127.0.0.1' }, () => resolve(s));
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    api: tidings,
    subscriberId,
    async close() {
      (server as Server).closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await tidings.close();
    },
  };
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  const running = await start();
  console.log(`Novu's Inbox on Tidings: ${running.url} (API at ${running.api.url})`);
  console.log(`Try: curl -X POST ${running.url}/demo/comment`);
}
