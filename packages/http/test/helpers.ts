import { serve as serveNode } from '@hono/node-server';
import { createTidings } from '@tidings/core';
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
