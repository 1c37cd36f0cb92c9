import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTidings } from '@tidings/core';
import { upsertSubscribers } from '@tidings/core/internal';
import { fixtures } from '@tidings/core/testing';
import Database from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { killSpawned, spawnTs } from '../../../test-support/spawn-ts.js';
import { sqliteStorage } from '../src/index.js';

// A failing test must not leave its child processes running.
afterEach(killSpawned);

const dir = mkdtempSync(join(tmpdir(), 'tidings-sqlite-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A migrated storage over an in-memory database, with the text of every statement it prepares. */
async function storageRecordingStatements() {
  const database = new Database(':memory:');
  const prepared: string[] = [];
  const prepare = database.prepare.bind(database);
  database.prepare = ((source: string) => (prepared.push(source), prepare(source))) as typeof database.prepare;
  const storage = sqliteStorage({ database });
  await storage.migrate();
  return { database, prepared, storage };
}

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

  it('migrations: recorded once when several processes start on one file at once (they take turns through its writer lock), skipped with migrate: false', async () => {
    const filename = join(dir, 'migrate.db');
    const children = Array.from({ length: 3 }, () => spawnTs('packages/sqlite/test/fixtures/migrate-once.ts', [filename]));
    expect(await Promise.all(children.map((c) => c.exited)), children.map((c) => c.output()).join('\n')).toEqual([0, 0, 0]);
    const applied = children.map((c) => JSON.parse(/APPLIED (.*)/.exec(c.output())![1]!) as string[]);
    expect(applied.flat()).toEqual(['0001_initial', '0002_digests', '0003_idempotency', '0004_inbox', '0005_jobs_env_due', '0006_digest_events', '0007_idempotency_since', '0008_inbox_filters', '0009_job_keys', '0010_delivery_status', '0011_frequency', '0012_message_expiry', '0013_window_hits_expiry', '0014_inbox_index_expiry', '0015_held_status_integration', '0016_records', '0017_digests_records', '0018_delivery_status_records', '0019_topics_records', '0020_people_and_triggers_records', '0021_message_context', '0022_job_priority']);
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
    await storage.transaction((tx) => upsertSubscribers(tx, 'default', ids.map((subscriberId, i) => ({ _id: `i${i}`, patch: { subscriberId } })), new Date().toISOString(), 'org'));
    for (let i = 0; i < ids.length; i += 6_000) expect(await tidings.topics.addSubscribers('all', ids.slice(i, i + 6_000))).toMatchObject({ notFound: [] });
    const result = await tidings.trigger({ name: 'big', to: { type: 'Topic', topicKey: 'all' } });
    // 120 fan-out jobs of 100 members; one batch of 100 of them stores 10,000 messages and their
    // decision records, in statements split below the variable limit.
    expect(await tidings.runDue()).toBe(120);
    expect(await tidings.messages.byTransaction(result.transactionId!)).toHaveLength(12_000);
    await storage.close();
  }, 120_000);

  it('messages: the document leaves out what the columns hold, and a row holding the whole message (as earlier versions wrote it) reads back the same', async () => {
    const database = new Database(':memory:');
    const storage = sqliteStorage({ database });
    const tidings = createTidings({ storage });
    await tidings.workflows.upsert({ name: 'Hi', triggers: [{ identifier: 'hi' }], steps: [{ template: { type: 'in_app', content: 'Hi {{ payload.n }}' } }] });
    await tidings.trigger({ name: 'hi', to: 'ada', payload: { n: 1 } });
    await tidings.runDue();
    await tidings.messages.markAs('ada', { messageId: (await tidings.messages.feed('ada')).items[0]!._id, markAs: 'read' });
    const [message] = (await tidings.messages.feed('ada')).items;
    const row = database.prepare('select * from tidings_messages').get() as { id: string; doc: string };
    const doc = JSON.parse(row.doc) as Record<string, unknown>;
    for (const member of ['_id', '_environmentId', '_subscriberId', 'transactionId', 'channel', 'read', 'seen', 'createdAt', 'archived']) expect(doc).not.toHaveProperty(member);
    expect(message).toMatchObject({ _id: row.id, read: true, seen: true, content: 'Hi 1', channel: 'in_app' });

    // Another id of the same shape: the last character changed (never to itself).
    const legacyId = `${row.id.slice(0, -1)}${row.id.endsWith('0') ? '1' : '0'}`;
    database
      .prepare("insert into tidings_messages (id, env, subscriber_internal_id, transaction_id, channel, read, seen, created_at, doc, archived, snoozed_until, tags) select ?, env, subscriber_internal_id, transaction_id, channel, read, seen, created_at, ?, archived, snoozed_until, tags from tidings_messages where id = ?")
      .run(legacyId, JSON.stringify({ ...message, _id: legacyId }), row.id);
    const feed = (await tidings.messages.feed('ada')).items;
    expect(feed.find((m) => m._id === legacyId)).toEqual({ ...message, _id: legacyId });
    await storage.close();
    database.close();
  });

  it('the claim it runs for one environment reads both classes as one range of the (env, priority, run_at, id) index: no sort, no class materialized', async () => {
    const { database, prepared, storage } = await storageRecordingStatements();
    // A claim that finds a due job (one that finds none runs no update).
    await storage.jobs.enqueue('default', [fixtures.jobRecord('default')]);
    await storage.jobs.claimDue({ env: 'default', workerId: 'w', now: new Date().toISOString(), limit: 100, leaseMs: 30_000, kinds: ['walk'] });
    const claim = prepared.find((source) => source.includes('update "tidings_jobs" set "locked_by"'));
    expect(claim).toBeDefined();
    const plan = (database.prepare(`explain query plan ${claim!}`).all(...Array.from({ length: claim!.split('?').length - 1 }, () => 'x')) as { detail: string }[]).map((p) => p.detail).join('\n');
    expect(plan).toContain('tidings_jobs_env_priority_due');
    expect(plan).not.toContain('TEMP B-TREE');
    expect(plan).not.toContain('MATERIALIZE');
    await storage.close();
    database.close();
  });

  it('a claim that finds no due job runs no update (an update opens a write transaction even when it matches nothing); one that finds some leases them', async () => {
    const { database, prepared, storage } = await storageRecordingStatements();
    const claim = () => storage.jobs.claimDue({ env: 'default', workerId: 'w', now: fixtures.T0, limit: 100, leaseMs: 30_000 });
    const updates = () => prepared.filter((source) => source.startsWith('update "tidings_jobs"'));
    expect(await claim()).toEqual([]);
    expect(updates()).toEqual([]);
    await storage.jobs.enqueue('default', [fixtures.jobRecord('default', { id: 'due' }), fixtures.jobRecord('default', { id: 'later', runAt: '2099-01-01T00:00:00.000Z' })]);
    expect((await claim()).map((job) => job.id)).toEqual(['due']);
    expect(updates()).toHaveLength(1);
    // Leased now, and the other not due: nothing is claimed and nothing changes.
    const before = database.prepare('select id, locked_by, attempts from tidings_jobs order by id').all();
    expect(await claim()).toEqual([]);
    expect(database.prepare('select id, locked_by, attempts from tidings_jobs order by id').all()).toEqual(before);
    await storage.close();
    database.close();
  });

  it('a claim for one environment reads each class\'s due jobs in order from the (env, priority, run_at, id) index, without sorting them', () => {
    const database = new Database(':memory:');
    const storage = sqliteStorage({ database });
    return storage.migrate().then(async () => {
      const plan = database
        .prepare("explain query plan select id from tidings_jobs where priority = ? and run_at <= ? and (locked_until is null or locked_until <= ?) and env = ? order by run_at, id limit 100")
        .all(1, 'z', 'z', 'default') as { detail: string }[];
      expect(plan.map((p) => p.detail).join('\n')).toContain('tidings_jobs_env_priority_due');
      expect(plan.map((p) => p.detail).join('\n')).not.toContain('TEMP B-TREE');
      await storage.close();
      database.close();
    });
  });
});
