import { createTidings } from '@tidings/core';
import { fixtures } from '@tidings/core/testing';
import { MIGRATIONS } from '@tidings/sql';
import mysql from 'mysql2';
import { afterEach, describe, expect, it } from 'vitest';
import { sigkillTakeover, throttleAcrossWorkers, twoWorkersDrain, type MultiProcessBackend } from '../../../test-support/multi-process-scenarios.js';
import { killSpawned } from '../../../test-support/spawn-ts.js';
import { createMysqlStorage } from '../src/index.js';
import { freshDatabases, withAdmin } from './databases.js';

// A failing test must not leave its child processes running.
afterEach(killSpawned);

const url = process.env['TIDINGS_TEST_MYSQL_URL'];
const WORKER = 'packages/mysql/test/fixtures/worker.ts';

describe.skipIf(!url)('mysql — many processes on one database', () => {
  const freshDatabase = freshDatabases(url, 'tidings_mp');

  const backend: MultiProcessBackend = {
    worker: WORKER,
    waitMs: 60_000,
    async fresh() {
      const at = await freshDatabase();
      return { args: [at], open: () => createMysqlStorage({ url: at }) };
    },
  };

  it('two worker processes drain the same jobs (delays and digests included): every message exactly once, no job lost', () => twoWorkersDrain(backend), 120_000);

  it('throttle across two worker processes: 200 runs racing against a limit of 5 let exactly 5 through', () => throttleAcrossWorkers(backend), 120_000);

  it('a worker killed with SIGKILL holding leased jobs: another finishes them after the lease', () => sigkillTakeover(backend), 60_000);

  it('no LISTEN/NOTIFY: an idle job loop finds jobs another engine enqueued when it next looks (maxIdleMs)', async () => {
    const at = await freshDatabase();
    const [a, b] = [createMysqlStorage({ url: at }), createMysqlStorage({ url: at })];
    expect(a.subscribeJobs).toBeUndefined();
    expect(a.capabilities.multiProcess).toBe(true);
    const producer = createTidings({ storage: a, inlineInApp: false });
    const consumer = createTidings({ storage: b, maxIdleMs: 300 });
    await producer.workflows.upsert({ name: 'n', triggers: [{ identifier: 'n' }], steps: [{ template: { type: 'in_app', content: 'hi' } }] });
    await b.migrate();
    consumer.start();
    const delivered = new Promise<string>((resolve) => consumer.events.on('message.created', ({ message }) => resolve(message.subscriberId)));
    await producer.trigger({ name: 'n', to: 'ada' });
    expect(await delivered).toBe('ada');
    await consumer.stop();
    await Promise.all([a.close(), b.close()]);
  }, 30_000);

  it('migrations are safe when several storages start at once (GET_LOCK): one baseline, recorded as every migration', async () => {
    const at = await freshDatabase();
    const storages = Array.from({ length: 4 }, () => createMysqlStorage({ url: at, migrate: false }));
    const applied = await Promise.all(storages.map((s) => s.migrate()));
    expect(applied.flat()).toEqual(MIGRATIONS.map((m) => m.name));
    const later = createMysqlStorage({ url: at, migrate: false });
    expect(await later.migrate()).toEqual([]);
    await Promise.all([...storages, later].map((s) => s.close()));
  });

  it('{ pool }: uses the app’s pool and leaves it open on close', async () => {
    const at = await freshDatabase();
    const pool = mysql.createPool({ uri: at, connectionLimit: 2 });
    const storage = createMysqlStorage({ pool });
    await createTidings({ storage }).subscribers.upsert({ subscriberId: 'ada' });
    await storage.close();
    const [rows] = await pool.promise().query('select count(*) as n from tidings_subscribers');
    expect(Number((rows as { n: number }[])[0]!.n)).toBe(1);
    await new Promise<void>((resolve, reject) => pool.end((error) => (error ? reject(error) : resolve())));
  });

  it('keys compare in byte order, trailing spaces and case included (binary strings, not a collation)', async () => {
    const at = await freshDatabase();
    const storage = createMysqlStorage({ url: at });
    const ids = ['b', 'B', 'a ', 'a', 'é', 'z'];
    await storage.jobs.enqueue('default', ids.map((id) => fixtures.jobRecord('default', { id, runAt: fixtures.T0 })));
    const listed = (await storage.jobs.list('default')).map((job) => job.id);
    expect(listed).toEqual([...ids].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y))));
    expect(await withAdmin(at, async (admin) => (await admin.query('select count(*) as n from tidings_jobs'))[0])).toEqual([{ n: 6 }]);
    await storage.close();
  });
});
