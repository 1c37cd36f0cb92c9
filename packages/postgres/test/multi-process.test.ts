import { createTidings } from '@tidings/core';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { sigkillTakeover, throttleAcrossWorkers, twoWorkersDrain, type MultiProcessBackend } from '../../../test-support/multi-process-scenarios.js';
import { killSpawned } from '../../../test-support/spawn-ts.js';
import { channelsOf, postgresDialectOn } from '../src/postgres-dialect.js';
import { postgresStorage } from '../src/index.js';
import { freshSchemas } from './schemas.js';

// A failing test must not leave its child processes running.
afterEach(killSpawned);

const url = process.env['TIDINGS_TEST_PG_URL'];
const WORKER = 'packages/postgres/test/fixtures/worker.ts';

describe.skipIf(!url)('postgres — many processes on one database', () => {
  const freshSchema = freshSchemas(url, 'tidings_mp');

  const backend: MultiProcessBackend = {
    worker: WORKER,
    waitMs: 40_000,
    async fresh() {
      const schema = freshSchema();
      return { args: [url!, schema], open: () => postgresStorage({ connectionString: url!, schema }) };
    },
  };

  it('two worker processes drain the same jobs (delays and digests included): every message exactly once, no job lost', () => twoWorkersDrain(backend), 90_000);

  it('throttle across two worker processes: 200 runs racing against a limit of 5 let exactly 5 through', () => throttleAcrossWorkers(backend));

  it('a worker killed with SIGKILL holding leased jobs: another finishes them after the lease', () => sigkillTakeover(backend), 60_000);

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
    expect(applied.flat()).toEqual(['0001_initial', '0002_digests', '0003_idempotency', '0004_inbox', '0005_jobs_env_due', '0006_digest_events', '0007_idempotency_since', '0008_inbox_filters', '0009_job_keys', '0010_delivery_status', '0011_frequency', '0012_message_expiry', '0013_window_hits_expiry', '0014_inbox_index_expiry', '0015_held_status_integration', '0016_records', '0017_digests_records', '0018_delivery_status_records', '0019_topics_records', '0020_people_and_triggers_records', '0021_message_context', '0022_job_priority']);
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
