/**
 * The example's command line: `--port` / PORT for the page, `--api-port` / API_PORT for the Tidings
 * API (so it runs beside `pnpm serve` on 3000), what it prints, and a clean stop on Ctrl-C.
 */
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, expect, it } from 'vitest';
import { killSpawned, spawnTs, waitForOutput } from '../../../test-support/spawn-ts.js';

const dir = mkdtempSync(join(tmpdir(), 'tidings-novu-inbox-cli-'));
afterEach(killSpawned);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SCRIPT = 'examples/novu-inbox/src/main.ts';

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

it('--port and --api-port are honoured; it prints both URLs, the application identifier and the key; SIGINT stops it with exit 0', async () => {
  const [page, api] = [await freePort(), await freePort()];
  const data = join(dir, 'flags');
  const child = spawnTs(SCRIPT, ['--port', String(page), '--api-port', String(api), '--db', join(data, 'inbox.db')]);
  await waitForOutput(child, /Try: .*\n/);
  const output = child.output();
  expect(output).toContain(`Novu's Inbox on Tidings: http://127.0.0.1:${page}\n`);
  expect(output).toContain(`Tidings API: http://127.0.0.1:${api}\n`);
  const identifier = readFileSync(join(data, 'application-identifier'), 'utf8').trim();
  const key = readFileSync(join(data, 'api-key'), 'utf8').trim();
  expect(output).toContain(`Application identifier: ${identifier} (kept in ${join(data, 'application-identifier')})\n`);
  expect(output).toContain(`API key (new, kept in ${join(data, 'api-key')}): ${key}\n`);

  // The page carries the public identifier and the subscriber's hash, never the key.
  const html = await (await fetch(`http://127.0.0.1:${page}/`)).text();
  expect(html).toContain(identifier);
  expect(html).not.toContain(key);
  const health = await fetch(`http://127.0.0.1:${api}/v1/integrations/active`, { headers: { authorization: `ApiKey ${key}` } });
  expect(health.status).toBe(200);

  child.kill('SIGINT');
  expect(await child.exited).toBe(0);
  expect(child.output()).toContain('Novu Inbox example stopped');
  // Both ports are free again.
  for (const port of [page, api]) await expect(fetch(`http://127.0.0.1:${port}/`)).rejects.toThrow();
});

it('PORT and API_PORT are the defaults of the flags; a second start reuses the key without printing it; SIGTERM stops it too', async () => {
  const [page, api] = [await freePort(), await freePort()];
  const db = join(dir, 'flags', 'inbox.db');
  const child = spawnTs(SCRIPT, ['--db', db], { PORT: String(page), API_PORT: String(api) });
  await waitForOutput(child, /Try: .*\n/);
  expect(child.output()).toContain(`Novu's Inbox on Tidings: http://127.0.0.1:${page}\n`);
  expect(child.output()).toContain(`Tidings API: http://127.0.0.1:${api}\n`);
  expect(child.output()).toContain(`API key: kept in ${join(dir, 'flags', 'api-key')}\n`);
  expect(child.output()).not.toContain(readFileSync(join(dir, 'flags', 'api-key'), 'utf8').trim());
  child.kill('SIGTERM');
  expect(await child.exited).toBe(0);
});

it('a port in use or a bad port is one line and a non-zero exit', async () => {
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  try {
    const port = (taken.address() as { port: number }).port;
    const busy = spawnTs(SCRIPT, ['--port', String(port), '--api-port', '0', '--db', join(dir, 'busy', 'inbox.db')]);
    expect(await busy.exited).toBe(1);
    expect(busy.output()).toContain(`The Novu Inbox example could not start: port ${port} on 127.0.0.1 is already in use`);
  } finally {
    await new Promise((resolve) => taken.close(resolve));
  }
  const bad = spawnTs(SCRIPT, ['--api-port', '70000', '--db', join(dir, 'bad', 'inbox.db')]);
  expect(await bad.exited).toBe(2);
  expect(bad.output()).toMatch(/--api-port \(or API_PORT\) must be a port number, not "70000"\nUsage:/);
});
