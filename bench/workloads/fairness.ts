import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createTidings, type Provider, type Storage } from '@tidings/core';
import { postgresStorage } from '@tidings/postgres';
import { sqliteStorage } from '@tidings/sqlite';
import { freshName, tempDir } from '../lib/temp.js';
import { seedTopic } from './fanout.js';
import type { BenchContext, Row } from './types.js';

/** How often a transactional trigger fires while the broadcast fans out. */
const EVERY_MS = 100;

/** The p-th percentile of `values` (nearest rank). */
const percentile = (values: readonly number[], p: number) => [...values].sort((a, b) => a - b)[Math.max(0, Math.ceil((p / 100) * values.length) - 1)] ?? NaN;

interface FairnessRun {
  readonly fanSeconds: number;
  readonly delaysMs: number[];
}

/**
 * A broadcast to every member of a topic (in-app, another tenant's workflow) with the engine's own
 * loop running, and meanwhile a password-reset email of another workflow and tenant every 100 ms:
 * each one's delay from the trigger call to its provider's accept. Measured until every broadcast
 * message is stored.
 */
async function fairnessRun(storage: Storage, size: number): Promise<FairnessRun> {
  const accepted = new Map<string, number>();
  const mailer: Provider = {
    id: 'instant',
    channel: 'email',
    send: async (message) => {
      accepted.set(message.transactionId, performance.now());
      return { id: `pm-${accepted.size}` };
    },
  };
  const tidings = createTidings({ storage, providers: [mailer] });
  await tidings.workflows.upsert({ name: 'News', triggers: [{ identifier: 'news' }], steps: [{ template: { type: 'in_app', content: 'News for {{ subscriber.firstName }}' } }] });
  await tidings.workflows.upsert({ name: 'Reset', triggers: [{ identifier: 'reset' }], steps: [{ template: { type: 'email', subject: 'Reset your password', content: '<p>Your code: {{ payload.code }}</p>' } }] });
  await tidings.integrations.upsert({ name: 'Mail', identifier: 'mail', providerId: 'instant', channel: 'email', active: true, primary: true, credentials: { from: 'noreply@example.com' } });
  await seedTopic(tidings, size);
  await tidings.subscribers.upsert({ subscriberId: 'reset-user', email: 'user@example.com' });

  let stored = 0;
  let newsId = '';
  const done = new Promise<void>((resolve) =>
    tidings.events.on('message.created', ({ message }) => {
      if (message.transactionId === newsId && ++stored === size) resolve();
    }),
  );
  const fired = new Map<string, number>();
  tidings.start();
  const began = performance.now();
  newsId = (await tidings.trigger({ name: 'news', to: { type: 'Topic', topicKey: 'everyone' }, tenant: { identifier: 'acme' } })).transactionId!;
  let n = 0;
  const timer = setInterval(() => {
    const transactionId = `reset-${++n}`;
    fired.set(transactionId, performance.now());
    void tidings.trigger({ name: 'reset', to: 'reset-user', payload: { code: n }, tenant: { identifier: 'globex' }, transactionId });
  }, EVERY_MS);
  await done;
  clearInterval(timer);
  const fanSeconds = (performance.now() - began) / 1000;
  // The resets fired during the fan-out, each once its provider accepted it.
  while ([...fired.keys()].some((id) => !accepted.has(id))) await new Promise((resolve) => setTimeout(resolve, 20));
  await tidings.stop();
  return { fanSeconds, delaysMs: [...fired].map(([id, at]) => accepted.get(id)! - at) };
}

/**
 * Fairness: the p99 delay of single transactional triggers (another workflow, another tenant) fired
 * every 100 ms while a 1,000,000-member fan-out runs, until their email is accepted by the provider.
 */
export async function fairnessWorkload(ctx: BenchContext): Promise<Row[]> {
  const size = ctx.quick ? 20_000 : 1_000_000;
  const rows: Row[] = [];
  const row = (backend: string, run: FairnessRun): Row => {
    const p99 = percentile(run.delaysMs, 99);
    ctx.log(`  ${backend}: fan-out of ${size.toLocaleString('en')} in ${run.fanSeconds.toFixed(1)} s; ${run.delaysMs.length} resets, p50 ${percentile(run.delaysMs, 50).toFixed(0)} ms, p99 ${p99.toFixed(0)} ms, max ${Math.max(...run.delaysMs).toFixed(0)} ms`);
    return {
      workload: `fairness: password-reset emails (another workflow and tenant) every ${EVERY_MS} ms during a ${size.toLocaleString('en')}-member fan-out, ${backend === 'sqlite' ? 'SQLite' : 'Postgres'}, p99 from trigger to the provider's accept`,
      backend,
      unit: 'ms',
      value: p99,
      spread: 0,
      runs: 1,
      target: '< 1,000 ms',
      ...(!ctx.quick && { met: p99 < 1_000 }),
    };
  };
  const filename = join(tempDir('fairness'), `${freshName('fairness')}.db`);
  rows.push(row('sqlite', await fairnessRun(sqliteStorage({ filename }), size)));
  if (!ctx.pgUrl) {
    ctx.log('  Postgres fairness row skipped: set TIDINGS_TEST_PG_URL');
    return rows;
  }
  const schema = freshName('fair');
  const storage = postgresStorage({ connectionString: ctx.pgUrl, schema });
  try {
    rows.push(row('postgres', await fairnessRun(storage, size)));
  } finally {
    await storage.db.schema.dropSchema(schema).ifExists().cascade().execute().catch(() => undefined);
    await storage.close();
  }
  return rows;
}
