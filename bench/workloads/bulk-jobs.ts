import { join } from 'node:path';
import pg from 'pg';
import Database from 'better-sqlite3';
import { createTidings, type Provider, type Storage, type TidingsOptions, type WorkflowInput } from '@tidings/core';
import { postgresStorage } from '@tidings/postgres';
import { sqliteStorage } from '@tidings/sqlite';
import { summarize } from '../lib/stats.js';
import { freshName, tempDir } from '../lib/temp.js';
import type { BenchContext, Row } from './types.js';

/**
 * "Bulk through jobs": bulk triggers whose every walk goes through a job, on SQLite and Postgres.
 *
 * - `in_app`: one in-app step, engine option `inlineInApp: false` (a walk job per subscriber).
 * - `in_app+email`: an in-app step then an email step, delivered by an in-process provider that
 *   accepts every message (no network); the email step makes the walk go through a job anyway.
 * - `inline`: one in-app step with the engine's defaults (walks stored inside the trigger), for the
 *   trigger path itself.
 *
 * The measuring function takes the engine factory as an argument, so a driver can hand it the
 * `createTidings` of whichever checkout it imported (see bench/compare-trees.ts). It uses only the
 * engine's public API (workflows/integrations upsert, triggerBulk, runDue) and counts the stored
 * messages with plain SQL afterwards, so it runs unchanged against a tree whose storage port differs.
 */
export type BulkJobsScenario = 'in_app' | 'in_app+email' | 'inline';
export type BulkJobsBackend = 'sqlite' | 'postgres';
export const BULK_JOBS_SCENARIOS: readonly BulkJobsScenario[] = ['in_app', 'in_app+email'];
export const BULK_JOBS_BACKENDS: readonly BulkJobsBackend[] = ['sqlite', 'postgres'];
export const DEFAULT_PG_URL = 'postgres://postgres@127.0.0.1:5432/test';

const MAIL_PROVIDER_ID = 'bench-mail';

export const bulkJobsWorkflow = (scenario: BulkJobsScenario): WorkflowInput => ({
  name: `Bench jobs ${scenario}`,
  triggers: [{ identifier: 'bench-jobs' }],
  steps: [
    { template: { type: 'in_app', content: 'Hello {{ subscriber.firstName }}, {{ payload.n }}' } },
    ...(scenario === 'in_app+email' ? [{ template: { type: 'email' as const, subject: 'Hi {{ subscriber.firstName }}', content: 'Mail {{ payload.n }}' } }] : []),
  ],
});

/** An email provider that accepts every message in-process and counts them. */
function acceptingMailProvider(counter: { sent: number }): Provider {
  return {
    id: MAIL_PROVIDER_ID,
    channel: 'email',
    async send(message) {
      counter.sent++;
      return { id: `bench-${message.messageId}` };
    },
  };
}

export interface BulkJobsOptions {
  scenario: BulkJobsScenario;
  /** Bulk calls of 100 events each. */
  calls: number;
  /** New inline subscribers per event. @default 1 */
  perEvent?: number;
  /** Subscriber id prefix, unique per run on one storage. */
  prefix: string;
  /** 'per-call': `runDue()` after every bulk call (as bench/lib/engine-bulk.ts); 'end': all calls, then drain. @default 'per-call' */
  drain?: 'per-call' | 'end';
  /** Engine options besides storage and providers. */
  engine?: Partial<TidingsOptions>;
}

export interface BulkJobsResult {
  /** Messages the run should have stored (in-app plus email). */
  messages: number;
  /** Emails the in-process provider accepted during the run. */
  sent: number;
  seconds: number;
  rate: number;
}

/**
 * One measured run: an engine over `storage` (made with `factory`), the workflow (and for
 * `in_app+email` an active primary email integration of the in-process provider), then `calls` bulk
 * triggers of 100 events × `perEvent` new subscribers, running due jobs until none is left. Times from
 * the first call until every job has run (every message stored; emails handed to the provider).
 */
export async function measureBulkJobs(factory: typeof createTidings, storage: Storage, options: BulkJobsOptions): Promise<BulkJobsResult> {
  const perEvent = options.perEvent ?? 1;
  const counter = { sent: 0 };
  const withEmail = options.scenario === 'in_app+email';
  const tidings = factory({ storage, inlineInApp: options.scenario === 'inline', onError: (error) => console.error('[bench]', error), ...options.engine, ...(withEmail && { providers: [acceptingMailProvider(counter)] }) });
  await tidings.workflows.upsert(bulkJobsWorkflow(options.scenario));
  if (withEmail) await tidings.integrations.upsert({ name: 'Bench mail', identifier: 'bench-mail', providerId: MAIL_PROVIDER_ID, channel: 'email', primary: true, active: true });
  const drainAll = async () => {
    while ((await tidings.runDue()) > 0);
  };
  let n = 0;
  const started = performance.now();
  for (let call = 0; call < options.calls; call++) {
    const events = Array.from({ length: 100 }, () => {
      n++;
      return {
        name: 'bench-jobs',
        to: Array.from({ length: perEvent }, (_, k) => ({ subscriberId: `${options.prefix}-${n}-${k}`, firstName: `S${n}`, ...(withEmail && { email: `s${n}-${k}@example.com` }) })),
        payload: { n },
      };
    });
    await tidings.triggerBulk(events);
    if ((options.drain ?? 'per-call') === 'per-call') await tidings.runDue();
  }
  await drainAll();
  const seconds = (performance.now() - started) / 1000;
  const walks = options.calls * 100 * perEvent;
  const messages = walks * (withEmail ? 2 : 1);
  if (withEmail && counter.sent !== walks) throw new Error(`bulk-jobs ${options.scenario}: the provider accepted ${counter.sent} emails, expected ${walks}`);
  return { messages, sent: counter.sent, seconds, rate: messages / seconds };
}

/** A fresh storage of a backend with a way to count its stored messages and to remove it. */
export interface BenchStorage {
  storage: Storage;
  countMessages(): Promise<number>;
  /** Closes the storage and removes its data (the Postgres schema; the SQLite file goes with its temp dir at exit). */
  dispose(): Promise<void>;
}

export function openBenchStorage(
  backend: BulkJobsBackend,
  make: { sqlite: typeof sqliteStorage; postgres: typeof postgresStorage },
  options: { dir?: string; pgUrl?: string } = {},
): BenchStorage {
  if (backend === 'sqlite') {
    const filename = join(options.dir ?? tempDir('bulk-jobs'), `${freshName('jobs')}.db`);
    const storage = make.sqlite({ filename });
    return {
      storage,
      async countMessages() {
        const db = new Database(filename, { readonly: true });
        try {
          return (db.prepare('select count(*) as n from tidings_messages').get() as { n: number }).n;
        } finally {
          db.close();
        }
      },
      async dispose() {
        await storage.close();
      },
    };
  }
  const url = options.pgUrl ?? DEFAULT_PG_URL;
  const schema = freshName('bench_jobs');
  const storage = make.postgres({ connectionString: url, schema });
  return {
    storage,
    async countMessages() {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        return Number((await client.query(`select count(*)::int as n from "${schema}".tidings_messages`)).rows[0].n);
      } finally {
        await client.end();
      }
    },
    async dispose() {
      await storage.close();
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`drop schema if exists "${schema}" cascade`);
      } finally {
        await client.end();
      }
    },
  };
}

/**
 * One backend × scenario on a fresh storage: `warmup` unmeasured runs of `warmupCalls`, then `runs`
 * measured runs; checks the stored message count at the end. Returns the measured rates (messages/s).
 */
export async function bulkJobsRates(
  factory: typeof createTidings,
  make: { sqlite: typeof sqliteStorage; postgres: typeof postgresStorage },
  options: { backend: BulkJobsBackend; scenario: BulkJobsScenario; calls: number; perEvent?: number; runs: number; warmup: number; warmupCalls?: number; drain?: 'per-call' | 'end'; pgUrl?: string; dir?: string },
): Promise<number[]> {
  const bench = openBenchStorage(options.backend, make, options);
  try {
    let expected = 0;
    const rates: number[] = [];
    const once = async (prefix: string, calls: number) => {
      const result = await measureBulkJobs(factory, bench.storage, { scenario: options.scenario, calls, prefix, ...(options.perEvent !== undefined && { perEvent: options.perEvent }), ...(options.drain && { drain: options.drain }) });
      expected += result.messages;
      return result.rate;
    };
    for (let w = 0; w < options.warmup; w++) await once(`w${w}`, options.warmupCalls ?? Math.max(1, Math.round(options.calls / 4)));
    for (let r = 0; r < options.runs; r++) rates.push(await once(`r${r}`, options.calls));
    const stored = await bench.countMessages();
    if (stored !== expected) throw new Error(`bulk-jobs ${options.backend} ${options.scenario}: ${stored} messages stored, expected ${expected}`);
    return rates;
  } finally {
    await bench.dispose();
  }
}

/** The workload as bench/run.ts runs it (`pnpm bench --only bulk-jobs`): this tree's engine, SQLite, and Postgres when TIDINGS_TEST_PG_URL is set. */
export async function bulkJobsWorkload(ctx: BenchContext): Promise<Row[]> {
  const dir = tempDir('bulk-jobs');
  const calls = ctx.quick ? 4 : 20;
  const backends = BULK_JOBS_BACKENDS.filter((b) => b !== 'postgres' || ctx.pgUrl);
  const rows: Row[] = [];
  for (const backend of backends) {
    for (const scenario of BULK_JOBS_SCENARIOS) {
      const rates = await bulkJobsRates(createTidings, { sqlite: sqliteStorage, postgres: postgresStorage }, { backend, scenario, calls, runs: ctx.runs, warmup: 1, dir, ...(ctx.pgUrl && { pgUrl: ctx.pgUrl }) });
      const measured = summarize(rates);
      rows.push({
        workload: `bulk through jobs, ${backend}, ${scenario === 'in_app' ? 'in_app step (inlineInApp: false)' : 'in_app + email step (in-process provider)'}, ${calls} calls of 100 events × 1`,
        backend: `${backend} (jobs${scenario === 'in_app' ? '' : ', email'})`,
        batch: 1,
        unit: 'messages/s',
        value: measured.median,
        spread: measured.spread,
        runs: measured.runs,
      });
      ctx.log(`  ${rows.at(-1)!.workload}: ${Math.round(measured.median)} msg/s`);
    }
  }
  return rows;
}
