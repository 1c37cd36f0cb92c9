import { createTidings } from '@tidings/core';
import { fixtures } from '@tidings/core/testing';
import { MIGRATIONS } from '@tidings/sql';
import mysql from 'mysql2';
import { afterEach, describe, expect, it } from 'vitest';
import { seedTwoStep, waitForMessages } from '../../../test-support/two-step-drain.js';
import { killSpawned, spawnTs, waitForOutput } from '../../../test-support/spawn-ts.js';
import { createMysqlStorage } from '../src/index.js';
import { freshDatabases, withAdmin } from './databases.js';

// A failing test must not leave its child processes running.
afterEach(killSpawned);

const url = process.env['TIDINGS_TEST_MYSQL_URL'];
const WORKER = 'packages/mysql/test/fixtures/worker.ts';

describe.skipIf(!url)('mysql — many processes on one database', () => {
  const freshDatabase = freshDatabases(url, 'tidings_mp');

  const seed = (at: string, subscribers: number) => seedTwoStep(createMysqlStorage({ url: at }), subscribers);

  it('two worker processes drain the same jobs (delays and digests included): every message exactly once, no job lost', async () => {
    const at = await freshDatabase();
    const { storage } = await seed(at, 300);
    const workers = [spawnTs(WORKER, ['work', at]), spawnTs(WORKER, ['work', at])];
    await Promise.all(workers.map((w) => waitForOutput(w, 'READY')));
    expect(await waitForMessages(storage, 900, 60_000)).toBe(900);
    for (const w of workers) w.kill('SIGTERM');
    await Promise.all(workers.map((w) => w.exited));
    const perWorker = workers.map((w) => Number(/DONE (\d+)/.exec(w.output())?.[1] ?? NaN));
    expect(perWorker.reduce((a, b) => a + b, 0)).toBe(900);
    expect(perWorker.every((n) => n > 0)).toBe(true);
    const messages = await storage.db.selectFrom('tidings_messages').select(['subscriber_internal_id', 'doc']).execute();
    const content = (doc: unknown) => (JSON.parse(doc as string) as { content: string }).content;
    expect(new Set(messages.map((m) => `${m.subscriber_internal_id}:${content(m.doc).split(' ')[0]}`)).size).toBe(900);
    expect(messages.filter((m) => content(m.doc) === 'digest 1')).toHaveLength(300);
    expect(await storage.digests.listOpen('default')).toEqual([]);
    expect(await storage.jobs.list('default')).toEqual([]);
    await storage.close();
  }, 120_000);

  it('throttle across two worker processes: 200 runs racing against a limit of 5 let exactly 5 through', async () => {
    const at = await freshDatabase();
    const storage = createMysqlStorage({ url: at });
    const tidings = createTidings({ storage, inlineInApp: false });
    await tidings.workflows.upsert({
      name: 'throttled',
      triggers: [{ identifier: 'throttled' }],
      steps: [{ template: { type: 'throttle' }, metadata: { amount: 1, unit: 'hours', limit: 5 } }, { template: { type: 'in_app', content: 'through {{ payload.i }}' } }],
    });
    for (let i = 0; i < 200; i += 100) await tidings.triggerBulk(Array.from({ length: 100 }, (_, k) => ({ name: 'throttled', to: 'ada', payload: { i: i + k } })));
    const workers = [spawnTs(WORKER, ['work', at]), spawnTs(WORKER, ['work', at])];
    await Promise.all(workers.map((w) => waitForOutput(w, 'READY')));
    const started = Date.now();
    const walks = async () => (await tidings.pending({ subscriberId: 'ada' })).jobs;
    while ((await walks()).length > 0 && Date.now() - started < 60_000) await new Promise((resolve) => setTimeout(resolve, 100));
    for (const w of workers) w.kill('SIGTERM');
    await Promise.all(workers.map((w) => w.exited));
    expect(await walks()).toEqual([]);
    expect((await tidings.messages.counts('ada')).total).toBe(5);
    await storage.close();
  }, 120_000);

  it('a worker killed with SIGKILL holding leased jobs: another finishes them after the lease', async () => {
    const at = await freshDatabase();
    const { storage } = await seed(at, 40);
    const doomed = spawnTs(WORKER, ['claim-and-die', at, '25']);
    await doomed.exited;
    expect(doomed.output()).toContain('CLAIMED 25');
    expect((await storage.jobs.list('default')).filter((j) => j.lockedBy === 'doomed')).toHaveLength(25);
    const survivor = spawnTs(WORKER, ['work', at]);
    await waitForOutput(survivor, 'READY');
    expect(await waitForMessages(storage, 120, 30_000)).toBe(120);
    survivor.kill('SIGTERM');
    await survivor.exited;
    expect(await storage.jobs.list('default')).toEqual([]);
    await storage.close();
  }, 60_000);

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
