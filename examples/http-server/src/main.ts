import { createServer, type Server } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { createTidings } from '@tidings/core';
import { createHttpApp } from '@tidings/http';
import { sqliteStorage } from '@tidings/sqlite';

/**
 * Embeds the Tidings API in an existing Node server: requests under /notifications go to Tidings,
 * everything else stays with the app.
 */
export async function start(options: { port?: number; filename?: string; apiKey?: string } = {}) {
  const storage = sqliteStorage({ filename: options.filename ?? '.tidings/http-example.db' });
  const tidings = createTidings({ storage });
  await tidings.workflows.upsert({ name: 'Ping', triggers: [{ identifier: 'ping' }], steps: [{ template: { type: 'in_app', content: 'pong {{ payload.n }}' } }] });
  tidings.start();

  const apiKey = options.apiKey ?? process.env['TIDINGS_API_KEY'] ?? 'dev-key';
  const tidingsApp = createHttpApp({ environments: [{ tidings, apiKeys: [apiKey] }] });
  const tidingsListener = getRequestListener((request) => {
    // Strip the mount prefix so Tidings sees its own paths (/v1/…).
    const url = new URL(request.url);
    url.pathname = url.pathname.replace(/^\/notifications/, '') || '/';
    return tidingsApp.fetch(new Request(url, request));
  });

  const server: Server = createServer((req, res) => {
    if (req.url?.startsWith('/notifications/')) return void tidingsListener(req, res);
    res.writeHead(200, { 'content-type': 'text/plain' }).end('the rest of your app\n');
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 3001, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    apiKey,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await tidings.stop();
      await storage.close();
    },
  };
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  const { url, apiKey } = await start();
  console.log(`App on ${url}; Tidings under ${url}/notifications (Authorization: ApiKey ${apiKey})`);
}
