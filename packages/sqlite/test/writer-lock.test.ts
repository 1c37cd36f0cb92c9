/**
 * One writing process per SQLite file: a second writer, in this process or another, is refused with a
 * line that says what to do; a read-only storage reads the file while its writer runs; the lock goes
 * with a process that is killed, so the next one opens at once.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createTidings } from '@tidings/core';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { killSpawned, spawnTs, waitForOutput } from '../../../test-support/spawn-ts.js';
import { eventually } from '../../http/test/eventually.js';
import { SqliteInUseError, sqliteStorage } from '../src/index.js';

afterEach(killSpawned);
const dir = mkdtempSync(join(tmpdir(), 'tidings-writer-lock-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const refusal = (open: () => unknown) => {
  try {
    open();
  } catch (error) {
    return error;
  }
  return null;
};

describe('the writer lock of a SQLite file', () => {
  it('a second storage writing the same file in this process is refused, naming the file, the lock and the read-only way; it opens once the first is closed', async () => {
    const filename = join(dir, 'one.db');
    const first = sqliteStorage({ filename });
    const refused = refusal(() => sqliteStorage({ filename }));
    expect(refused).toBeInstanceOf(SqliteInUseError);
    expect((refused as Error).message).toBe(
      `${filename} is in use: another process (or another storage of this one) writes it, and SQLite takes one writing process (the lock is ${filename}-lock). ` +
        'Stop that process first; to look at its database while it runs, open it read-only (sqliteStorage({ filename, readOnly: true }), or tidings serve --read-only). ' +
        'For several processes on one database, use Postgres or MySQL.',
    );
    // The app's own handle on the same file is refused too; a read-only handle is not.
    const handle = new Database(filename);
    expect(refusal(() => sqliteStorage({ database: handle }))).toBeInstanceOf(SqliteInUseError);
    handle.close();
    const readOnlyHandle = new Database(filename, { readonly: true });
    const viaHandle = sqliteStorage({ database: readOnlyHandle, readOnly: true });
    await viaHandle.close();
    readOnlyHandle.close();
    await first.close();
    const second = sqliteStorage({ filename });
    await second.close();
    // In memory there is nothing to share, and nothing to lock.
    const a = sqliteStorage({ filename: ':memory:' });
    const b = sqliteStorage({ filename: ':memory:' });
    await Promise.all([a.close(), b.close()]);
  });

  it('another process writing the file refuses this one; a read-only storage reads what it writes meanwhile and cannot write; killed, its lock is gone at once', async () => {
    const filename = join(dir, 'shared.db');
    const setup = sqliteStorage({ filename });
    const app = createTidings({ storage: setup });
    await app.workflows.upsert({ name: 'Hello', triggers: [{ identifier: 'hello' }], steps: [{ template: { type: 'in_app', content: 'Hi {{ payload.n }}' } }] });
    // Walks in jobs (not inline), so the other process makes the messages.
    const app2 = createTidings({ storage: setup, inlineInApp: false });
    await app2.triggerBulk(Array.from({ length: 5 }, (_, n) => ({ name: 'hello', to: `s${n}`, payload: { n } })));
    await setup.close();

    const worker = spawnTs('packages/sqlite/test/fixtures/run-jobs.ts', [filename]);
    await waitForOutput(worker, 'READY');
    expect(refusal(() => sqliteStorage({ filename }))).toBeInstanceOf(SqliteInUseError);

    const reader = sqliteStorage({ filename, readOnly: true });
    const watch = createTidings({ storage: reader });
    const delivered = async () => (await watch.activity.list({ limit: 50 })).items.filter((i) => i.messages.length === 1);
    await eventually(async () => ((await delivered()).length === 5 ? true : undefined), 'the worker\'s five messages, read while it runs');
    await expect(watch.trigger({ name: 'hello', to: 'late' })).rejects.toThrow(/readonly|read-only/i);

    worker.kill('SIGKILL');
    await worker.exited;
    const next = sqliteStorage({ filename });
    expect((await createTidings({ storage: next }).messages.feed('s3')).items.map((m) => m.content)).toEqual(['Hi 3']);
    await next.close();
    await reader.close();
  }, 90_000);

  it('a read-only storage of a file that is not there is refused, and makes none', () => {
    const filename = join(dir, 'missing.db');
    expect(() => sqliteStorage({ filename, readOnly: true })).toThrow(/unable to open|does not exist|no such file/i);
    expect(existsSync(filename)).toBe(false);
  });
});
