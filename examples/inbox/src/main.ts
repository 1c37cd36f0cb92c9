import type { Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import { serve } from '@hono/node-server';
import { createTidings } from '@tidings/core';
import { createHttpApp } from '@tidings/http';
import { sqliteStorage } from '@tidings/sqlite';
import { build } from 'esbuild';
import { Hono } from 'hono';
import { inboxPage } from './page.js';

/** Bundles the page script once, in memory. */
async function bundle(): Promise<string> {
  const result = await build({
    entryPoints: [fileURLToPath(new URL('./client/inbox.ts', import.meta.url))],
    bundle: true,
    format: 'esm',
    target: 'es2022',
    write: false,
  });
  return result.outputFiles[0]!.text;
}

/**
 * A demo app with an in-app inbox: the page at `/`, its script at `/inbox.js`, and the Tidings API
 * under `/api`. The page holds a development API key — a real app would give the browser a
 * subscriber-scoped token instead.
 */
export async function start(options: { port?: number; filename?: string; subscriberId?: string } = {}) {
  const storage = sqliteStorage({ filename: options.filename ?? '.tidings/inbox-example.db' });
  const tidings = createTidings({ storage });
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
    ],
  });
  tidings.start();
  const apiKey = 'inbox-demo-key';
  const subscriberId = options.subscriberId ?? 'ada';
  await tidings.subscribers.upsert({ subscriberId, firstName: 'Ada' });
  const api = createHttpApp({ environments: [{ tidings, apiKeys: [apiKey] }] });
  const script = await bundle();

  const app = new Hono();
  app.get('/', (c) => c.html(inboxPage({ api: '/api', apiKey, subscriberId })));
  app.get('/inbox.js', (c) => c.body(script, 200, { 'content-type': 'text/javascript; charset=utf-8' }));
  app.post('/demo/invite', async (c) => c.json(await tidings.trigger({ name: 'invitation', to: subscriberId, payload: { from: 'Grace', project: 'compilers' } })));
  app.all('/api/*', (c) => {
    const url = new URL(c.req.url);
    url.pathname = url.pathname.slice('/api'.length);
    return api.fetch(new Request(url, c.req.raw));
  });

  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, port: options.port ?? 3002, hostname: '127.0.0.1' }, () => resolve(s));
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    tidings,
    subscriberId,
    async close() {
      // The page's live stream stays open; end it with the server.
      (server as Server).closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await tidings.stop();
      await storage.close();
    },
  };
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  const { url } = await start();
  console.log(`Inbox demo on ${url} — POST ${url}/demo/invite to send a notification`);
}
