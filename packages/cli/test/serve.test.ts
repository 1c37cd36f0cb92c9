import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, expect, it } from 'vitest';
import { killSpawned, spawnTs, waitForOutput } from '../../../test-support/spawn-ts.js';

const dir = mkdtempSync(join(tmpdir(), 'tidings-serve-'));
afterEach(killSpawned);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('tidings serve: SQLite by default, prints the URL and a generated key once (kept for the next run), serves, and stops on SIGTERM', async () => {
  const db = join(dir, 'data', 'tidings.db');
  const child = spawnTs('packages/cli/src/cli.ts', ['serve', '--port', '0', '--db', db]);
  await waitForOutput(child, /Application identifier \(Novu's Inbox\): app_\w+.*\n/);
  const url = /listening on (http:\/\/\S+)/.exec(child.output())![1]!;
  const key = /API key \(new, kept in \S+\): (\S+)/.exec(child.output())![1]!;
  // The database holds integration credentials: readable by its owner only.
  expect(statSync(db).mode & 0o777).toBe(0o600);
  expect(readFileSync(join(dir, 'data', 'api-key'), 'utf8').trim()).toBe(key);
  // Novu's Inbox opens sessions with the public application identifier, kept beside the key.
  const identifier = /Application identifier \(Novu's Inbox\): (app_\w+)/.exec(child.output())![1]!;
  expect(readFileSync(join(dir, 'data', 'application-identifier'), 'utf8').trim()).toBe(identifier);
  const response = await fetch(`${url}/v1/integrations/active`, { headers: { authorization: `ApiKey ${key}` } });
  expect(response.status).toBe(200);
  expect(await response.json()).toEqual({ data: [] });
  child.kill('SIGTERM');
  expect(await child.exited).toBe(0);
  expect(child.output()).toContain('Tidings stopped');

  const again = spawnTs('packages/cli/src/cli.ts', ['serve', '--port', '0', '--db', db, '--no-inbox-hash']);
  await waitForOutput(again, /Warning: --no-inbox-hash: .*\n/);
  expect(again.output()).toContain(`API key: kept in ${join(dir, 'data', 'api-key')}`);
  expect(again.output()).not.toContain(key);
  expect(again.output()).toContain(`Application identifier (Novu's Inbox): ${identifier}`);
  expect(again.output()).toMatch(/Warning: --no-inbox-hash: .*anyone who knows the application identifier/);
  again.kill('SIGTERM');
  await again.exited;
}, 180_000);

it('serve() stores in-app messages within the trigger request by default; with inlineInApp off the job loop stores them', async () => {
  const { serve } = await import('../src/serve.js');
  for (const inlineInApp of [true, false]) {
    const server = await serve({ port: 0, db: join(dir, `inline-${inlineInApp}.db`), apiKey: 'k', inlineInApp });
    try {
      await server.tidings.workflows.upsert({ name: 'Hi', triggers: [{ identifier: 'hi' }], steps: [{ template: { type: 'in_app', content: 'Hi {{ payload.n }}' } }] });
      const response = await fetch(`${server.url}/v1/events/trigger/bulk`, {
        method: 'POST',
        headers: { authorization: 'ApiKey k', 'content-type': 'application/json' },
        body: JSON.stringify({ events: [{ name: 'hi', to: 'ann', payload: { n: 1 } }, { name: 'hi', to: 'bob', payload: { n: 2 } }] }),
      });
      expect(response.status).toBe(201);
      const stored = async () => (await server.tidings.messages.feed('bob', { limit: 10 })).items.map((m) => m.content);
      if (inlineInApp) expect(await stored()).toEqual(['Hi 2']);
      else await expect.poll(stored, { timeout: 10_000 }).toEqual(['Hi 2']);
    } finally {
      await server.close();
    }
  }
}, 180_000);

it('SIGTERM with a live stream held open by a client: the stream ends and the process exits promptly with 0', async () => {
  const db = join(dir, 'sigterm', 'tidings.db');
  const child = spawnTs('packages/cli/src/cli.ts', ['serve', '--port', '0', '--db', db, '--api-key', 'k']);
  await waitForOutput(child, 'listening on');
  const url = /listening on (http:\/\/\S+)/.exec(child.output())![1]!;
  const stream = await fetch(`${url}/v1/subscribers/ada/events`, { headers: { authorization: 'ApiKey k' } }).catch(() => null);
  // The subscriber does not exist yet: counts answer 404 before a stream opens; create it and retry.
  if (!stream || stream.status !== 200) {
    await fetch(`${url}/v1/subscribers`, { method: 'POST', headers: { authorization: 'ApiKey k', 'content-type': 'application/json' }, body: JSON.stringify({ subscriberId: 'ada' }) });
  }
  const live = await fetch(`${url}/v1/subscribers/ada/events`, { headers: { authorization: 'ApiKey k' } });
  expect(live.status).toBe(200);
  const reader = live.body!.getReader();
  await reader.read();
  child.kill('SIGTERM');
  // 0 is a clean shutdown; a shutdown held up by the open stream ends at its bound with exit code 1.
  expect(await child.exited).toBe(0);
  // The client sees its stream end rather than hang.
  for (;;) if ((await reader.read().catch(() => ({ done: true }))).done) break;
}, 180_000);
