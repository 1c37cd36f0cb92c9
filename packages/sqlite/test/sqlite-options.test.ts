import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTidings } from '@tidings/core';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnTs } from '../../../test-support/spawn-ts.js';
import { sqliteStorage } from '../src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'tidings-sqlite-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('sqliteStorage options', () => {
  it('a file database: folder created, WAL and synchronous=NORMAL set, records survive a reopen', async () => {
    const filename = join(dir, 'nested', 'app.db');
    const first = sqliteStorage({ filename });
    const tidings = createTidings({ storage: first });
    await tidings.subscribers.upsert({ subscriberId: 'ada', firstName: 'Ada' });
    await first.close();
    const raw = new Database(filename);
    expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
    raw.close();
    const second = sqliteStorage({ filename });
    expect(await createTidings({ storage: second }).subscribers.get('ada')).toMatchObject({ firstName: 'Ada' });
    expect(second.capabilities).toEqual({ multiProcess: false, durable: true });
    await second.close();
  });

  it('{ database }: uses the app’s handle and leaves it open on close', async () => {
    const database = new Database(':memory:');
    const storage = sqliteStorage({ database });
    await createTidings({ storage }).subscribers.upsert({ subscriberId: 'x' });
    await storage.close();
    expect(database.open).toBe(true);
    expect(database.prepare('select count(*) as n from tidings_subscribers').get()).toEqual({ n: 1 });
    database.close();
  });

  it('migrations: recorded once, safe when several processes migrate one file at once, skipped with migrate: false', async () => {
    const filename = join(dir, 'migrate.db');
    const children = Array.from({ length: 3 }, () => spawnTs('packages/sqlite/test/fixtures/migrate-once.ts', [filename]));
    expect(await Promise.all(children.map((c) => c.exited))).toEqual([0, 0, 0]);
    const applied = children.map((c) => JSON.parse(/APPLIED (.*)/.exec(c.output())![1]!) as string[]);
    expect(applied.flat()).toEqual(['0001_initial', '0002_digests', '0003_idempotency', '0004_inbox', '0005_jobs_env_due']);
    const again = sqliteStorage({ filename, migrate: false });
    expect(await again.migrate()).toEqual([]);
    await again.close();
    const untouched = join(dir, 'untouched.db');
    const lazy = sqliteStorage({ filename: untouched, migrate: false });
    await expect(lazy.subscribers.getMany('e', ['a'])).rejects.toThrow(/no such table/);
    await lazy.close();
  }, 60_000);

  it('batches larger than the variable limit are split', async () => {
    const storage = sqliteStorage({ filename: ':memory:' });
    const tidings = createTidings({ storage });
    await tidings.workflows.upsert({ name: 'big', triggers: [{ identifier: 'big' }], steps: [{ template: { type: 'in_app', content: 'hi' } }] });
    const ids = Array.from({ length: 12_000 }, (_, i) => `member-${i}`);
    await storage.subscribers.upsertMany('default', ids.map((subscriberId, i) => ({ _id: `i${i}`, patch: { subscriberId } })), new Date().toISOString(), 'org');
    for (let i = 0; i < ids.length; i += 6_000) expect(await tidings.topics.addSubscribers('all', ids.slice(i, i + 6_000))).toMatchObject({ notFound: [] });
    const result = await tidings.trigger({ name: 'big', to: { type: 'Topic', topicKey: 'all' } });
    expect(await tidings.runDue()).toBe(12_000);
    expect(await tidings.messages.byTransaction(result.transactionId!)).toHaveLength(12_000);
    await storage.close();
  });
});
