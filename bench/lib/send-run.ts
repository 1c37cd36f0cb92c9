import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTidings } from '@tidings/core';
import { postgresStorage } from '@tidings/postgres';
import { sqliteStorage } from '@tidings/sqlite';
import { spawnTs, waitForOutput } from '../../test-support/spawn-ts.js';
import type { SendWorkerArgs } from '../workloads/send-worker.js';
import { fakeSendgrid, type FakeProviderStats } from './fake-sendgrid.js';
import { rowCount } from './pg-workers.js';
import { seedRecipients, setUpSending, triggerSend } from './send-setup.js';
import type { SendTiming } from './send-timing.js';
import { freshName, tempDir } from './temp.js';

const WORKER = fileURLToPath(new URL('../workloads/send-worker.ts', import.meta.url));
const epoch = () => performance.timeOrigin + performance.now();
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One send-path run: how many emails, how long from the trigger to the last one the provider accepted, and where each process's time went. */
export interface SendRun {
  readonly emails: number;
  readonly seconds: number;
  readonly perSecond: number;
  readonly provider: FakeProviderStats | null;
  readonly timings: readonly SendTiming[];
}

export interface SendRunOptions {
  readonly backend: 'sqlite' | 'postgres';
  readonly size: number;
  /** Worker processes (Postgres); SQLite always runs one. */
  readonly workers: number;
  /** The fake provider's answer time; null sends through an in-process provider that accepts at once. */
  readonly latencyMs: number | null;
  readonly options?: SendWorkerArgs['options'];
  readonly pgUrl?: string;
  /** Longest a run may take before it counts as failed. */
  readonly timeoutMs?: number;
}

const line = (out: string, tag: string) => {
  const found = new RegExp(`${tag} (.*)`).exec(out)?.[1];
  if (found === undefined) throw new Error(`the send worker printed no ${tag}:\n${out}`);
  return found;
};

/** Waits until the fake provider accepted `size` emails. */
async function acceptedAll(stats: () => FakeProviderStats, size: number, timeoutMs: number, workers: readonly ReturnType<typeof spawnTs>[]) {
  const started = Date.now();
  while (stats().accepted < size) {
    if (Date.now() - started > timeoutMs) throw new Error(`the provider accepted ${stats().accepted} of ${size} emails in ${timeoutMs / 1000} s`);
    const dead = workers.find((w) => w.exitCode !== null);
    if (dead) throw new Error(`a send worker exited:\n${dead.output()}`);
    await pause(20);
  }
}

async function stopAll(workers: readonly ReturnType<typeof spawnTs>[]): Promise<SendTiming[]> {
  for (const w of workers) w.kill('SIGTERM');
  await Promise.all(workers.map((w) => w.exited));
  return workers.map((w) => JSON.parse(line(w.output(), 'TIMING')) as SendTiming);
}

/** The send path on SQLite: the bench seeds the file; one engine process triggers and sends. */
async function onSqlite(o: SendRunOptions): Promise<SendRun> {
  const filename = join(tempDir('send'), `${freshName('send')}.db`);
  const seed = sqliteStorage({ filename });
  await seedRecipients(createTidings({ storage: seed }), o.size);
  await seed.close();
  const fake = o.latencyMs === null ? null : await fakeSendgrid({ latencyMs: o.latencyMs });
  const args: SendWorkerArgs = { backend: 'sqlite', filename, providerUrl: fake?.url ?? null, options: o.options ?? {}, trigger: true };
  const worker = spawnTs(WORKER, [JSON.stringify(args)]);
  try {
    if (!fake) {
      await waitForOutput(worker, 'RESULT', o.timeoutMs ?? 600_000);
      const result = JSON.parse(line(worker.output(), 'RESULT')) as { triggeredAt: number; doneAt: number; sent: number; timing: SendTiming };
      if (result.sent !== o.size) throw new Error(`the in-process provider got ${result.sent} of ${o.size} emails`);
      const seconds = (result.doneAt - result.triggeredAt) / 1000;
      return { emails: o.size, seconds, perSecond: o.size / seconds, provider: null, timings: [result.timing] };
    }
    await waitForOutput(worker, 'TRIGGERED', 120_000);
    const triggeredAt = Number(line(worker.output(), 'TRIGGERED'));
    await acceptedAll(fake.stats, o.size, o.timeoutMs ?? 600_000, [worker]);
    const timings = await stopAll([worker]);
    const stats = fake.stats();
    const seconds = (stats.lastAcceptedAt! - triggeredAt) / 1000;
    const check = sqliteStorage({ filename });
    const stored = Number((await check.db.selectFrom('tidings_messages').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    await check.close();
    if (stats.duplicates > 0 || stored !== o.size) throw new Error(`send path on SQLite: ${stats.duplicates} emails sent twice, ${stored} messages stored for ${o.size}`);
    return { emails: o.size, seconds, perSecond: o.size / seconds, provider: stats, timings };
  } finally {
    if (worker.exitCode === null) worker.kill('SIGKILL');
    await fake?.close();
  }
}

/** The send path on Postgres: the bench seeds the schema and triggers; `workers` processes send. */
async function onPostgres(o: SendRunOptions): Promise<SendRun> {
  const schema = freshName('send');
  const storage = postgresStorage({ connectionString: o.pgUrl!, schema });
  const tidings = createTidings({ storage });
  const fake = await fakeSendgrid({ latencyMs: o.latencyMs ?? 0 });
  const workers: ReturnType<typeof spawnTs>[] = [];
  try {
    await seedRecipients(tidings, o.size);
    await setUpSending(tidings, fake.url);
    const args: SendWorkerArgs = { backend: 'postgres', pgUrl: o.pgUrl!, schema, providerUrl: fake.url, options: o.options ?? {}, trigger: false };
    for (let i = 0; i < o.workers; i++) workers.push(spawnTs(WORKER, [JSON.stringify(args)]));
    await Promise.all(workers.map((w) => waitForOutput(w, 'READY', 120_000)));
    for (const w of workers) w.kill('SIGUSR2');
    await pause(50);
    const triggeredAt = epoch();
    await triggerSend(tidings);
    await acceptedAll(fake.stats, o.size, o.timeoutMs ?? 900_000, workers);
    const timings = await stopAll(workers);
    const stats = fake.stats();
    const seconds = (stats.lastAcceptedAt! - triggeredAt) / 1000;
    const stored = await rowCount(storage, 'tidings_messages');
    if (stats.duplicates > 0 || stored !== o.size) throw new Error(`send path on Postgres: ${stats.duplicates} emails sent twice, ${stored} messages stored for ${o.size}`);
    return { emails: o.size, seconds, perSecond: o.size / seconds, provider: stats, timings };
  } finally {
    for (const w of workers) if (w.exitCode === null) w.kill('SIGKILL');
    await fake.close();
    await storage.db.schema.dropSchema(schema).ifExists().cascade().execute().catch(() => undefined);
    await storage.close();
  }
}

/** One send-path run on either backend. */
export const sendRun = (options: SendRunOptions): Promise<SendRun> => (options.backend === 'sqlite' ? onSqlite(options) : onPostgres(options));
