import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { start } from '../src/main.js';

it('http-server example — Tidings answers under /notifications, the app keeps the rest', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tidings-http-example-'));
  const server = await start({ port: 0, filename: join(dir, 'app.db'), apiKey: 'secret' });
  try {
    expect(await (await fetch(`${server.url}/`)).text()).toBe('the rest of your app\n');
    const headers = { authorization: 'ApiKey secret', 'content-type': 'application/json' };
    const triggered = await fetch(`${server.url}/notifications/v1/events/trigger`, { method: 'POST', headers, body: JSON.stringify({ name: 'ping', to: 'ada', payload: { n: 1 } }) });
    expect(triggered.status).toBe(201);
    let feed: { data: { content: string }[] } = { data: [] };
    for (let i = 0; i < 50 && feed.data.length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      feed = (await (await fetch(`${server.url}/notifications/v1/subscribers/ada/notifications/feed`, { headers })).json()) as typeof feed;
    }
    expect(feed.data.map((m) => m.content)).toEqual(['pong 1']);
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
