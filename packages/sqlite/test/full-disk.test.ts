import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTidings } from '@tidings/core';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { sqliteStorage } from '../src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'tidings-full-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a full disk', () => {
  it('a write that finds no room fails with SQLITE_FULL (not "cannot rollback - no transaction is active"), changes nothing, and writes go on once there is room', async () => {
    const database = new Database(join(dir, 'full.db'));
    database.pragma('journal_mode = WAL');
    const storage = sqliteStorage({ database });
    const tidings = createTidings({ storage });
    await tidings.subscribers.upsert({ subscriberId: 'ada' });
    // SQLite's own cap on the file's pages stands in for the disk: a write past it is SQLITE_FULL, after which SQLite has rolled the transaction back itself.
    // The pages of the tables the migrations dropped go first, so the write must grow the file.
    database.exec('VACUUM');
    database.pragma(`max_page_count = ${Number(database.pragma('page_count', { simple: true })) + 4}`);
    const big = (id: string) => tidings.subscribers.upsert({ subscriberId: id, data: { notes: 'x'.repeat(200_000) } });
    const error = await big('bob').then(
      () => undefined,
      (e: unknown) => e as Error & { code?: string },
    );
    expect(error?.message).toBe('database or disk is full');
    expect(error?.code).toBe('SQLITE_FULL');
    expect(await tidings.subscribers.get('bob')).toBeNull();
    // The connection is not left inside a transaction: later writes work once there is room.
    database.pragma('max_page_count = 1073741823');
    await big('bob');
    expect(await tidings.subscribers.get('bob')).toMatchObject({ subscriberId: 'bob' });
    await storage.close();
    database.close();
  });
});
