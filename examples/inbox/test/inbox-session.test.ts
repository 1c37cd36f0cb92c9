/**
 * The inbox example without a browser: what the page and its script carry (a session token, never
 * the API key or a subscriber hash), what that token can and cannot reach, and the command line
 * (`--port`, PORT, Ctrl-C).
 */
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { killSpawned, spawnTs, waitForOutput } from '../../../test-support/spawn-ts.js';
import { start } from '../src/main.js';

const dir = mkdtempSync(join(tmpdir(), 'tidings-inbox-session-'));
afterEach(killSpawned);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const API_KEY = 'tid_inbox_example_secret_0123456789';

/** A port nothing listens on now (the OS picks it; the child takes it right after). */
const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

describe('the page gets a subscriber session token, never the API key', () => {
  it('the HTML and the script hold no API key, no hash and no VAPID private key; the token opens this subscriber’s inbox and nothing else', async () => {
    const app = await start({ port: 0, filename: join(dir, 'page.db'), apiKey: API_KEY });
    try {
      const page = await fetch(app.url);
      expect(page.headers.get('cache-control')).toBe('no-store');
      const html = await page.text();
      const script = await (await fetch(`${app.url}/inbox.js`)).text();
      const hash = createHmac('sha256', API_KEY).update(app.subscriberId).digest('hex');
      for (const text of [html, script]) {
        expect(text).not.toContain(API_KEY);
        expect(text).not.toContain(app.vapid.privateKey);
        expect(text).not.toContain(hash);
        expect(text).not.toMatch(/ApiKey /);
      }
      const config = JSON.parse(/window\.TIDINGS = (.*);<\/script>/.exec(html)![1]!) as Record<string, string>;
      expect(Object.keys(config).sort()).toEqual(['api', 'token', 'vapidPublicKey']);
      expect(config['vapidPublicKey']).toBe(app.vapid.publicKey);
      const bearer = { authorization: `Bearer ${config['token']}` };

      // The token reads this subscriber's feed through the Inbox routes…
      await app.tidings.trigger({ name: 'invitation', to: app.subscriberId, payload: { from: 'Grace', project: 'compilers' } });
      await expect
        .poll(async () => ((await (await fetch(`${app.url}/api/v1/inbox/notifications`, { headers: bearer })).json()) as { data: { body: string }[] }).data.map((n) => n.body))
        .toEqual(['Grace invited you to compilers']);
      // …and is no key to the rest of the API, whichever scheme it is sent with.
      expect((await fetch(`${app.url}/api/v1/subscribers/${app.subscriberId}`, { headers: bearer })).status).toBe(401);
      expect((await fetch(`${app.url}/api/v1/subscribers/${app.subscriberId}`, { headers: { authorization: `ApiKey ${config['token']}` } })).status).toBe(401);
      expect((await fetch(`${app.url}/api/v1/inbox/notifications`)).status).toBe(401);

      // A browser cannot open a session of its own choosing: the hash is required, and only the server can compute it.
      const session = (body: object) => fetch(`${app.url}/api/v1/inbox/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ applicationIdentifier: app.applicationIdentifier, ...body }) });
      expect((await session({ subscriberId: 'grace' })).status).toBe(400);
      expect((await session({ subscriberId: 'grace', subscriberHash: createHmac('sha256', 'a guess').update('grace').digest('hex') })).status).toBe(400);
      expect((await session({ subscriberId: 'grace', subscriberHash: createHmac('sha256', API_KEY).update('grace').digest('hex') })).status).toBe(201);
    } finally {
      await app.close();
    }
  });
});

describe('command line', () => {
  it('--port is honoured, the URL and application identifier are printed, and SIGINT closes it with exit 0', async () => {
    const port = await freePort();
    const child = spawnTs('examples/inbox/src/main.ts', ['--port', String(port), '--db', join(dir, 'cli.db')], { TIDINGS_API_KEY: API_KEY });
    await waitForOutput(child, /Try: .*\n/);
    expect(child.output()).toContain(`Inbox demo on http://127.0.0.1:${port}\n`);
    expect(child.output()).toContain('Application identifier: inbox-demo');
    expect(child.output()).not.toContain(API_KEY);
    const html = await (await fetch(`http://127.0.0.1:${port}/`)).text();
    expect(html).toContain('window.TIDINGS');
    expect(html).not.toContain(API_KEY);
    child.kill('SIGINT');
    expect(await child.exited).toBe(0);
    expect(child.output()).toContain('Inbox demo stopped');
  });

  it('PORT is the default of --port; SIGTERM stops it too; a bad port is refused with the usage', async () => {
    const port = await freePort();
    const child = spawnTs('examples/inbox/src/main.ts', ['--db', join(dir, 'env.db')], { PORT: String(port) });
    await waitForOutput(child, /Try: .*\n/);
    expect(child.output()).toContain(`Inbox demo on http://127.0.0.1:${port}\n`);
    expect((await fetch(`http://127.0.0.1:${port}/inbox.js`)).status).toBe(200);
    child.kill('SIGTERM');
    expect(await child.exited).toBe(0);

    const bad = spawnTs('examples/inbox/src/main.ts', ['--port', 'abc', '--db', join(dir, 'bad.db')]);
    expect(await bad.exited).toBe(2);
    expect(bad.output()).toMatch(/--port \(or PORT\) must be a port number.*\nUsage:/);
  });
});
