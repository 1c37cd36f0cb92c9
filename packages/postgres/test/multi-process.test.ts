import { createTidings } from '@tidings/core';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { seedTwoStep, waitForMessages } from '../../../test-support/two-step-drain.js';
import { killSpawned, spawnTs, waitForOutput } from '../../../test-support/spawn-ts.js';
import { channelsOf, postgresDialectOn } from '../src/postgres-dialect.js';
import { postgresStorage } from '../src/index.js';
import { freshSchemas } from './schemas.js';

// A failing test must not leave its child processes running.
afterEach(killSpawned);

const url = process.env['TIDINGS_TEST_PG_URL'];
const WORKER = 'packages/postgres/test/fixtures/worker.ts';

describe.skipIf(!url)('postgres — many processes on one database', () => {
  const freshSchema = freshSchemas(url, 'tidings_mp');

  const seed = (schema: string, subscribers: number) => seedTwoStep(postgresStorage({ connectionString: url!, schema }), subscribers);

  it('two worker processes drain the same jobs (delays and digests included): every message exactly once, no job lost', async () => {
    const schema = freshSchema();
    const { storage } = await seed(schema, 300);
    const workers = [spawnTs(WORKER, ['work', url!, schema]), spawnTs(WORKER, ['work', url!, schema])];
    await Promise.all(workers.map((w) => waitForOutput(w, 'READY')));
    expect(await waitForMessages(storage, 900, 40_000)).toBe(900);
    for (const w of workers) w.kill('SIGTERM');
    await Promise.all(workers.map((w) => w.exited));
    const perWorker = workers.map((w) => Number(/DONE (\d+)/.exec(w.output())?.[1] ?? NaN));
    expect(perWorker.reduce((a, b) => a + b, 0)).toBe(900);
    expect(perWorker.every((n) => n > 0)).toBe(true);
    const messages = await storage.db.selectFrom('tidings_messages').select(['subscriber_internal_id', 'doc']).execute();
    const contents = new Set(messages.map((m) => `${m.subscriber_internal_id}:${(m.doc as { content: string }).content.split(' ')[0]}`));
    expect(contents.size).toBe(900);
    expect(messages.filter((m) => (m.doc as { content: string }).content === 'digest 1')).toHaveLength(300);
    expect(await storage.digests.listOpen('default')).toEqual([]);
    expect(await storage.jobs.list('default')).toEqual([]);
    await storage.close();
  }, 90_000);

  it('throttle across two worker processes: 200 runs racing against a limit of 5 let exactly 5 through', async () => {
    const schema = freshSchema();
    const storage = postgresStorage({ connectionString: url!, schema });
    const tidings = createTidings({ storage, inlineInApp: false });
    await tidings.workflows.upsert({
      name: 'throttled',
      triggers: [{ identifier: 'throttled' }],
      steps: [{ template: { type: 'throttle' }, metadata: { amount: 1, unit: 'hours', limit: 5 } }, { template: { type: 'in_app', content: 'through {{ payload.i }}' } }],
    });
    for (let i = 0; i < 200; i += 100) await tidings.triggerBulk(Array.from({ length: 100 }, (_, k) => ({ name: 'throttled', to: 'ada', payload: { i: i + k } })));
    const workers = [spawnTs(WORKER, ['work', url!, schema]), spawnTs(WORKER, ['work', url!, schema])];
    await Promise.all(workers.map((w) => waitForOutput(w, 'READY')));
    const started = Date.now();
    const walks = async () => (await tidings.pending({ subscriberId: 'ada' })).jobs;
    while ((await walks()).length > 0 && Date.now() - started < 40_000) await new Promise((resolve) => setTimeout(resolve, 100));
    for (const w of workers) w.kill('SIGTERM');
    await Promise.all(workers.map((w) => w.exited));
    expect(await walks()).toEqual([]);
    expect((await tidings.messages.counts('ada')).total).toBe(5);
    await storage.close();
  });

  it('a worker killed with SIGKILL holding leased jobs: another finishes them after the lease', async () => {
    const schema = freshSchema();
    const { storage } = await seed(schema, 40);
    const expected = 120;
    const doomed = spawnTs(WORKER, ['claim-and-die', url!, schema, '25']);
    await doomed.exited;
    expect(doomed.output()).toContain('CLAIMED 25');
    const leased = (await storage.jobs.list('default')).filter((j) => j.lockedBy === 'doomed');
    expect(leased).toHaveLength(25);
    const survivor = spawnTs(WORKER, ['work', url!, schema]);
    await waitForOutput(survivor, 'READY');
    expect(await waitForMessages(storage, expected, 30_000)).toBe(expected);
    survivor.kill('SIGTERM');
    await survivor.exited;
    expect(await storage.jobs.list('default')).toEqual([]);
    await storage.close();
  }, 60_000);

  it('LISTEN/NOTIFY: an idle job loop in one engine wakes when another engine on another pool enqueues', async () => {
    const schema = freshSchema();
    const a = postgresStorage({ connectionString: url!, schema });
    const b = postgresStorage({ connectionString: url!, schema });
    const producer = createTidings({ storage: a, inlineInApp: false });
    // An idle loop sleeps an hour: the message arrives within the test's time only if it was woken.
    const consumer = createTidings({ storage: b, maxIdleMs: 3_600_000 });
    await producer.workflows.upsert({ name: 'n', triggers: [{ identifier: 'n' }], steps: [{ template: { type: 'in_app', content: 'hi' } }] });
    await b.migrate();
    consumer.start();
    const delivered = new Promise<string>((resolve) => consumer.events.on('message.created', ({ message }) => resolve(message.subscriberId)));
    await producer.trigger({ name: 'n', to: 'ada' });
    expect(await delivered).toBe('ada');
    await consumer.stop();
    await a.close();
    await b.close();
  }, 30_000);

  it('live relay: listening() waits for the LISTEN connection (the pool was busy), and a notice published after it is heard', async () => {
    const schema = freshSchema();
    const a = postgresStorage({ connectionString: url!, schema, max: 1 });
    const b = postgresStorage({ connectionString: url!, schema });
    await a.migrate();
    // Hold a's only connection: its LISTEN cannot start until the hold ends.
    let endHold!: () => void;
    const held = new Promise<void>((resolve) => (endHold = resolve));
    let holding!: () => void;
    const holds = new Promise<void>((resolve) => (holding = resolve));
    const hold = a.db.connection().execute(async () => {
      holding();
      await held;
    });
    await holds;
    const heard: string[] = [];
    const unsubscribe = a.live!.subscribe((notice) => heard.push(notice.messageId));
    let listening = false;
    const ready = a.live!.listening().then(() => (listening = true));
    expect(listening).toBe(false);
    endHold();
    await hold;
    await ready;
    await b.live!.publish({ env: 'default', subscriberId: 'ada', messageId: 'm1', kind: 'created' });
    await expect.poll(() => heard).toEqual(['m1']);
    unsubscribe();
    await a.close();
    await b.close();
  }, 30_000);

  it('apps on one database in different schemas neither wake nor flood each other: each schema has its own channels', async () => {
    const [mine, theirs] = [freshSchema(), freshSchema()];
    const a = postgresStorage({ connectionString: url!, schema: mine });
    const b = postgresStorage({ connectionString: url!, schema: theirs });
    const sameSchema = postgresStorage({ connectionString: url!, schema: mine });
    await Promise.all([a.migrate(), b.migrate()]);
    const heard: string[] = [];
    const woken: string[] = [];
    const stopJobs = a.subscribeJobs!((env) => woken.push(env));
    const stopLive = a.live!.subscribe((notice) => heard.push(notice.messageId));
    await a.live!.listening();
    await expect.poll(() => woken).toEqual(['*']); // the wake-up every new listener gets once
    await b.live!.publish({ env: 'default', subscriberId: 'ada', messageId: 'theirs', kind: 'created' });
    await postgresDialectOn(channelsOf(theirs)).notifyJobs!(b.db, 'their-env');
    // Notices reach a listener in commit order: once ours are heard, theirs would have been.
    await sameSchema.live!.publish({ env: 'default', subscriberId: 'ada', messageId: 'ours', kind: 'created' });
    await postgresDialectOn(channelsOf(mine)).notifyJobs!(sameSchema.db, 'our-env');
    await expect.poll(() => [heard, woken]).toEqual([['ours'], ['*', 'our-env']]);
    stopLive();
    stopJobs();
    await Promise.all([a.close(), b.close(), sameSchema.close()]);
  }, 30_000);

  it('migrations are safe when several storages start at once (advisory lock)', async () => {
    const schema = freshSchema();
    const storages = Array.from({ length: 4 }, () => postgresStorage({ connectionString: url!, schema, migrate: false }));
    const applied = await Promise.all(storages.map((s) => s.migrate()));
    expect(applied.flat()).toEqual(['0001_initial', '0002_digests', '0003_idempotency', '0004_inbox', '0005_jobs_env_due', '0006_digest_events', '0007_idempotency_since', '0008_inbox_filters', '0009_job_keys', '0010_delivery_status', '0011_frequency', '0012_message_expiry', '0013_window_hits_expiry', '0014_inbox_index_expiry', '0015_held_status_integration', '0016_records', '0017_digests_records', '0018_delivery_status_records', '0019_topics_records', '0020_people_and_triggers_records']);
    await Promise.all(storages.map((s) => s.close()));
  });

  it('{ pool }: uses the app’s pool and leaves it open on close', async () => {
    const schema = freshSchema();
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    const storage = postgresStorage({ pool, schema });
    await createTidings({ storage }).subscribers.upsert({ subscriberId: 'ada' });
    await storage.close();
    const { rows } = await pool.query(`select count(*)::int as n from "${schema}".tidings_subscribers`);
    expect(rows[0].n).toBe(1);
    await pool.end();
  });

  it('{ pool, schema }: names the schema in every statement and leaves the pool’s search path alone', async () => {
    const [first, second] = [freshSchema(), freshSchema()];
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    const before = (await pool.query('show search_path')).rows[0].search_path;
    // Two storages on one pool, each in its own schema: the statements each compiles once must not
    // cross over, and the jobs each claims are its own.
    const [a, b] = [postgresStorage({ pool, schema: first }), postgresStorage({ pool, schema: second })];
    const [ta, tb] = [createTidings({ storage: a }), createTidings({ storage: b })];
    for (const [tidings, who] of [[ta, ['ada', 'grace']], [tb, ['linus']]] as const) {
      await tidings.workflows.upsert({ name: 'hello', triggers: [{ identifier: 'hello' }], steps: [{ template: { type: 'in_app', content: 'hi {{subscriber.subscriberId}}' } }] });
      for (const subscriberId of who) await tidings.trigger({ name: 'hello', to: subscriberId, payload: {} });
      await tidings.runDue();
    }
    const count = async (schema: string, table: string) => (await pool.query(`select count(*)::int as n from "${schema}".${table}`)).rows[0].n;
    expect([await count(first, 'tidings_messages'), await count(second, 'tidings_messages')]).toEqual([2, 1]);
    expect([await count(first, 'tidings_jobs'), await count(second, 'tidings_jobs')]).toEqual([0, 0]);
    // Every connection the storages used, asked again: none had its search path changed.
    const clients = await Promise.all([pool.connect(), pool.connect()]);
    for (const client of clients) expect((await client.query('show search_path')).rows[0].search_path).toBe(before);
    for (const client of clients) client.release();
    await Promise.all([a.close(), b.close()]);
    await pool.end();
  });
});
