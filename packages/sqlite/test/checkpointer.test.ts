import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTidings } from '@tidings/core';
import Database from 'better-sqlite3';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { killSpawned, spawnTs } from '../../../test-support/spawn-ts.js';
import { sqliteStorage } from '../src/index.js';

afterEach(killSpawned);

const dir = mkdtempSync(join(tmpdir(), 'tidings-checkpoint-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const workflow = { name: 'W', triggers: [{ identifier: 'w' }], steps: [{ template: { type: 'in_app' as const, content: 'Hi {{ payload.n }}' } }] };

describe('WAL checkpoints off the main thread', () => {
  it('the commits leave checkpoints to a worker thread: the database file takes the log in while the writes go on, and close ends the thread', async () => {
    const filename = join(dir, 'busy.db');
    const storage = sqliteStorage({ filename });
    const tidings = createTidings({ storage });
    await tidings.workflows.upsert(workflow);
    const written = statSync(filename).size;
    // Well under the commit's own safety net (10,000 pages): only the worker copies the log into the file.
    for (let n = 0; n < 60; n++) await tidings.triggerBulk(Array.from({ length: 20 }, (_, i) => ({ name: 'w', to: `s-${n}-${i}`, payload: { n } })));
    await expect.poll(() => statSync(filename).size, { timeout: 20_000, interval: 20 }).toBeGreaterThan(written);
    expect(await tidings.messages.counts('s-59-19')).toMatchObject({ total: 1 });
    await storage.close();
    // Everything is in the file and readable by another connection.
    const raw = new Database(filename, { readonly: true });
    expect(raw.prepare('select count(*) as n from tidings_messages').get()).toEqual({ n: 1_200 });
    raw.close();
  });

  it('closing the storage ends the thread: a process that closed it exits on its own', async () => {
    const child = spawnTs(fileURLToPath(new URL('./fixtures/write-and-close.ts', import.meta.url)), [join(dir, 'child.db')]);
    expect(await child.exited).toBe(0);
    expect(child.output()).toContain('CLOSED');
  });

  it('a database the app opened itself keeps its own checkpoint settings', async () => {
    const filename = join(dir, 'quiet.db');
    const storage = sqliteStorage({ filename });
    await createTidings({ storage }).workflows.upsert(workflow);
    await storage.close();
    const handle = new Database(join(dir, 'app-owned.db'));
    handle.pragma('journal_mode = WAL');
    const borrowed = sqliteStorage({ database: handle });
    await createTidings({ storage: borrowed }).workflows.upsert(workflow);
    await borrowed.close();
    expect(handle.pragma('wal_autocheckpoint', { simple: true })).toBe(1_000);
    handle.close();
  });
});
