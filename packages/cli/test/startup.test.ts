import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTidings, type Storage } from '@tidings/core';
import { memoryStorage } from '@tidings/memory';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { killSpawned, spawnTs } from '../../../test-support/spawn-ts.js';
import { createHttpApp } from '@tidings/http';

// A failing test must not leave its child processes running.
afterEach(killSpawned);

const dir = mkdtempSync(join(tmpdir(), 'tidings-startup-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `tidings serve` expecting it to fail: one line naming the cause, exit code 1, no stack. */
async function failsToStart(args: string[], expected: RegExp) {
  const child = spawnTs('packages/cli/src/cli.ts', ['serve', ...args]);
  const code = await child.exited;
  const output = child.output().trim();
  expect(code).toBe(1);
  expect(output).toMatch(expected);
  expect(output.split('\n')).toHaveLength(1);
  expect(output).not.toMatch(/\n\s+at /);
  expect(output).not.toContain('listening');
}

describe('tidings serve refuses to start, in one line, when it cannot work', () => {
  it('the backend package (or its driver) is not installed: it says what to install', async () => {
    const { backendModule, StartupError } = await import('../src/serve.js');
    const missing = Object.assign(new Error("Cannot find package 'better-sqlite3' imported from /app/node_modules/@tidings/sqlite/dist/index.js"), { code: 'ERR_MODULE_NOT_FOUND' });
    const refused = await backendModule(() => Promise.reject(missing), '@tidings/sqlite better-sqlite3').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(StartupError);
    expect((refused as Error).message).toBe('this backend needs better-sqlite3, which is not installed: npm install @tidings/sqlite better-sqlite3');
    const other = new Error('boom');
    await expect(backendModule(() => Promise.reject(other), 'x')).rejects.toBe(other);
  });

  it('the port is already in use', { timeout: 30_000 }, async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as AddressInfo;
    try {
      await failsToStart(['--port', String(port), '--db', join(dir, 'port.db')], new RegExp(`^Tidings could not start: port ${port} on 127.0.0.1 is already in use$`));
    } finally {
      taken.close();
    }
  });

  it('the SQLite path is under a file, or in a system folder', { timeout: 30_000 }, async () => {
    const file = join(dir, 'plain-file');
    writeFileSync(file, 'not a folder');
    await failsToStart(['--port', '0', '--db', join(file, 'tidings.db')], /^Tidings could not start: cannot (keep a database at|create the folder) .*plain-file.*(is a file, not a folder|a part of that path is a file)/);
    await failsToStart(['--port', '0', '--db', '/proc/self/tidings.db'], /^Tidings could not start: cannot keep a database at \/proc\/self\/tidings\.db: .* is a system folder, not storage$/);
  });

  it.skipIf(process.getuid?.() === 0)('a read-only folder or database file (skipped as root, who may write anywhere)', { timeout: 30_000 }, async () => {
    const { chmodSync, mkdirSync } = await import('node:fs');
    const locked = join(dir, 'locked');
    mkdirSync(locked);
    chmodSync(locked, 0o500);
    await failsToStart(['--port', '0', '--db', join(locked, 'tidings.db')], /cannot write in .*locked/);
    const readOnly = join(dir, 'ro.db');
    writeFileSync(readOnly, '');
    chmodSync(readOnly, 0o400);
    await failsToStart(['--port', '0', '--db', readOnly], /ro\.db is read-only/);
  });

  it('Postgres is not there', { timeout: 30_000 }, async () => {
    await failsToStart(['--port', '0', '--postgres', 'postgres://postgres@127.0.0.1:1/test'], /^Tidings could not start: cannot use Postgres at 127\.0\.0\.1:1: .*ECONNREFUSED/);
    // With several processes the primary checks the database once, before starting any: still one line.
    await failsToStart(['--port', '0', '--postgres', 'postgres://postgres@127.0.0.1:1/test', '--processes', '2'], /^Tidings could not start: cannot use Postgres at 127\.0\.0\.1:1: .*ECONNREFUSED/);
  });

  it('arguments it cannot use: exit 2, the option named, then the usage pointing to --help', { timeout: 30_000 }, async () => {
    const needsPostgres = 'needs Postgres (--postgres, or a postgres:// TIDINGS_DATABASE_URL)';
    const cases: [string[], string][] = [
      [['--processes', '2'], '--processes needs Postgres or MySQL (--postgres or --mysql, or such a TIDINGS_DATABASE_URL): a SQLite file is written by one process; several share the work through Postgres or MySQL'],
      [['--processes', '0', '--postgres', 'postgres://x@127.0.0.1/db'], '--processes must be a whole number from 1 to 64, not "0"'],
      [['--processes', 'two', '--postgres', 'postgres://x@127.0.0.1/db'], '--processes must be a whole number from 1 to 64, not "two"'],
      [['--lease-ms', '5s'], '--lease-ms must be a whole number of milliseconds from 100 to 86400000, not "5s"'],
      [['--schema', 'tidings'], `--schema ${needsPostgres}`],
      [['--port', '70000'], '--port must be a port number from 1 to 65535 (0 picks a free port), not "70000"'],
      [['--db', 'a.db', '--postgres', 'postgres://x@127.0.0.1/db'], '--db and --postgres cannot be used together: --db is a SQLite file, --postgres a Postgres URL, --mysql a MySQL URL'],
      [['--postgres', 'postgres://x@127.0.0.1/db', '--mysql', 'mysql://x@127.0.0.1/db'], '--postgres and --mysql cannot be used together: --db is a SQLite file, --postgres a Postgres URL, --mysql a MySQL URL'],
    ];
    await Promise.all(
      cases.map(async ([args, line]) => {
        const child = spawnTs('packages/cli/src/cli.ts', ['serve', ...args]);
        expect(await child.exited).toBe(2);
        const [first, usage] = child.output().trim().split('\n');
        expect(first).toBe(line);
        expect(usage).toMatch(/^Usage: tidings serve .*tidings serve --help/);
      }),
    );
  });
});

describe('health routes', () => {
  it('live always answers; ready and /health report each storage, 503 when one does not answer', async () => {
    const good = createTidings({ storage: memoryStorage(), environmentId: 'good' });
    const base = memoryStorage();
    const failing: Storage = { ...base, jobs: { ...base.jobs, nextDueAt: () => Promise.reject(new Error('database is down')) } };
    const bad = createTidings({ storage: failing, environmentId: 'bad' });
    const healthy = createHttpApp({ environments: [{ tidings: good, apiKeys: ['k'] }] });
    const live = await healthy.request('/health/live');
    expect(live.status).toBe(200);
    const ok = await healthy.request('/health');
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ status: 'ok', storage: [{ environmentId: 'good', ok: true }], jobLoop: [{ environmentId: 'good', running: false, stalledForMs: 0, stuck: false }] });
    const sick = createHttpApp({ environments: [{ tidings: good, apiKeys: ['k'] }, { tidings: bad, apiKeys: ['b'] }] });
    const ready = await sick.request('/health/ready');
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ status: 'unavailable', storage: [{ environmentId: 'good', ok: true }, { environmentId: 'bad', ok: false, error: 'database is down' }] });
    expect((await sick.request('/health/live')).status).toBe(200);
  });
});
