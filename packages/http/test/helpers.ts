import { serve as serveNode } from '@hono/node-server';
import { get as httpGet, type Server as HttpServer } from 'node:http';
import { createTidings, type Storage } from '@tidings/core';
import { manualClock } from '@tidings/core/testing';
import { memoryStorage } from '@tidings/memory';
import { createHttpApp } from '../src/index.js';

export const KEY_A = 'key-env-a';
export const KEY_B = 'key-env-b';

/** Two environments on one storage, each with its engine and API key, and the app over both. */
export async function setup() {
  const storage = memoryStorage();
  const clock = manualClock('2026-06-01T12:00:00.000Z');
  const a = createTidings({ storage, clock, environmentId: 'env-a', organizationId: 'org' });
  const b = createTidings({ storage, clock, environmentId: 'env-b', organizationId: 'org' });
  const app = createHttpApp({ environments: [{ tidings: a, apiKeys: [KEY_A] }, { tidings: b, apiKeys: [KEY_B] }], bodyLimit: 64 * 1024 });
  await a.workflows.upsert({
    name: 'Welcome',
    triggers: [{ identifier: 'welcome' }],
    steps: [{ template: { type: 'in_app', content: 'Hi {{ subscriber.firstName }}', cta: { action: { buttons: [{ type: 'primary', content: 'OK' }] } } } }],
  });
  const request = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}, key = KEY_A) =>
    app.request(path, {
      method,
      headers: { authorization: `ApiKey ${key}`, ...(body !== undefined && { 'content-type': 'application/json' }), ...headers },
      ...(body !== undefined && { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
  return { storage, clock, a, b, app, request };
}

/** The same app over a real socket on 127.0.0.1, on a free port. */
export async function listen(app: ReturnType<typeof createHttpApp>) {
  const server = await new Promise<ReturnType<typeof serveNode>>((resolve) => {
    const s = serveNode({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/**
 * One environment's engine on `storage`, its HTTP app with the Inbox sockets on a real port of
 * 127.0.0.1. `close()` stops the sockets, the server and the storage.
 */
export async function serveEngine(storage: Storage, apiKey: string, applicationIdentifier: string) {
  const tidings = createTidings({ storage });
  const app = createHttpApp({ environments: [{ tidings, apiKeys: [apiKey], applicationIdentifier }] });
  const server = await new Promise<ReturnType<typeof serveNode>>((resolve) => {
    const s = serveNode({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  const sockets = app.attachInboxSockets(server as unknown as HttpServer);
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const close = async () => {
    await sockets.close();
    (server as unknown as HttpServer).closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await storage.close();
  };
  return { tidings, url, close };
}

/**
 * One GET on a connection of its own: a kept-alive connection the server closes as idle just as the
 * next request goes out is reset, which says nothing about whether the server answers.
 */
function askOnce(url: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = httpGet(url, { agent: false }, (response) => {
      response.resume();
      response.on('end', () => (response.statusCode === 200 ? resolve() : reject(new Error(`${url} answered ${response.statusCode}`))));
    });
    request.on('error', reject);
  });
}

/**
 * Asks `/health/live` one request after another until the returned function is called, which
 * resolves with how many answers came and the slowest, in ms: whether the server kept answering while
 * something else ran.
 */
export function probeHealth(url: string) {
  let running = true;
  let slowest = 0;
  let answers = 0;
  const done = (async () => {
    while (running) {
      const started = performance.now();
      await askOnce(`${url}/health/live`);
      slowest = Math.max(slowest, performance.now() - started);
      answers += 1;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  })();
  return async () => {
    running = false;
    await done;
    return { slowest, answers };
  };
}
