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

  describe('a reader in another connection lets the WAL grow while it reads; once readers leave, the log is truncated to walSizeLimitBytes (issue 40, item 9)', () => {
    const limit = 256 * 1024;
    const batch = (n: number) => Array.from({ length: 20 }, (_, i) => ({ name: 'w', to: `s-${n}-${i}`, payload: { n } }));
    const count = (reader: Database.Database) => reader.prepare('select count(*) as n from tidings_messages').get();

    /** A read transaction in a connection of its own, as another process would hold it. */
    function reading(filename: string) {
      const reader = new Database(filename, { readonly: true });
      reader.exec('BEGIN');
      const seen = count(reader);
      return {
        seen,
        still: () => count(reader),
        leave() {
          reader.exec('COMMIT');
          reader.close();
        },
      };
    }

    /** A storage whose WAL a reader held back until it grew well past the limit. */
    async function grownPastTheLimit(name: string) {
      const filename = join(dir, name);
      const storage = sqliteStorage({ filename, walSizeLimitBytes: limit });
      const tidings = createTidings({ storage });
      await tidings.workflows.upsert(workflow);
      const walSize = () => statSync(`${filename}-wal`, { throwIfNoEntry: false })?.size ?? 0;
      const reader = reading(filename);
      expect(reader.seen).toEqual({ n: 0 });
      let n = 0;
      // Enough commits for the checkpoint thread to start (32), and a log four times the limit.
      while (walSize() <= 4 * limit || n < 40) {
        await tidings.triggerBulk(batch(n++));
        if (n > 2_000) throw new Error(`the WAL is ${walSize()} bytes after ${n} writes`);
      }
      // The reader still sees its snapshot: the log could not be started over meanwhile.
      expect(reader.still()).toEqual({ n: 0 });
      return { filename, storage, tidings, reader, walSize, next: () => tidings.triggerBulk(batch(n++)), writes: () => n };
    }

    it('while writes go on, the next checkpoints bring it back to the limit', async () => {
      const { storage, reader, walSize, next } = await grownPastTheLimit('reader-writes.db');
      reader.leave();
      await expect
        .poll(
          async () => {
            await next();
            return walSize();
          },
          { timeout: 30_000, interval: 20 },
        )
        .toBeLessThanOrEqual(limit);
      await storage.close();
    }, 60_000);

    it('when the app has gone idle, a checkpoint held back by a reader is tried again until it can truncate', async () => {
      const { filename, storage, tidings, reader, walSize, writes } = await grownPastTheLimit('reader-idle.db');
      // A second reader, of the latest snapshot, lets every frame be copied but not the log be truncated.
      const latest = reading(filename);
      expect(latest.seen).toEqual({ n: writes() * 20 });
      reader.leave();
      const before = statSync(filename).size;
      // No writes from here: only a checkpoint tried again copies the frames the first reader held back…
      await expect.poll(() => statSync(filename).size, { timeout: 30_000, interval: 50 }).toBeGreaterThan(before);
      expect(walSize()).toBeGreaterThan(4 * limit);
      latest.leave();
      // …and, once the last reader has left, truncates the log.
      await expect.poll(walSize, { timeout: 30_000, interval: 50 }).toBeLessThanOrEqual(limit);
      expect(await tidings.messages.counts(`s-${writes() - 1}-19`)).toMatchObject({ total: 1 });
      await storage.close();
    }, 60_000);
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
    expect(handle.pragma('journal_size_limit', { simple: true })).toBe(-1);
    handle.close();
  });
});
