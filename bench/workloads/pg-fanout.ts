import { createTidings } from '@tidings/core';
import { postgresStorage } from '@tidings/postgres';
import { rowCount, startLoopWorkers } from '../lib/pg-workers.js';
import { freshName } from '../lib/temp.js';
import { FAN_WORKFLOW, seedTopic } from './fanout.js';
import type { BenchContext, Row } from './types.js';

const WORKERS = 2;

/**
 * Topic fan-out on Postgres with two worker processes: one trigger to a topic of 1,000,000 members
 * (default options: fan-out jobs of 100 members), timed until every message is stored.
 */
export async function pgFanoutWorkload(ctx: BenchContext): Promise<Row[]> {
  if (!ctx.pgUrl) return [];
  const pgUrl = ctx.pgUrl;
  const size = ctx.quick ? 5_000 : 1_000_000;
  const schema = freshName('pgfan');
  const storage = postgresStorage({ connectionString: pgUrl, schema });
  const tidings = createTidings({ storage });
  await tidings.workflows.upsert(FAN_WORKFLOW);
  await seedTopic(tidings, size);
  const count = (table: 'tidings_jobs' | 'tidings_messages') => rowCount(storage, table);
  const workers = await startLoopWorkers(pgUrl, schema, WORKERS);
  try {
    const started = performance.now();
    await tidings.trigger({ name: 'fan', to: { type: 'Topic', topicKey: 'everyone' } });
    const triggered = (performance.now() - started) / 1000;
    while ((await count('tidings_jobs')) > 0) {
      if (performance.now() - started > 900_000) throw new Error('the fan-out did not finish within 15 minutes');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const seconds = (performance.now() - started) / 1000;
    const stored = await count('tidings_messages');
    if (stored !== size) throw new Error(`fan-out stored ${stored} messages for ${size} members`);
    ctx.log(`  postgres fan-out of ${size} with ${WORKERS} workers: ${seconds.toFixed(1)} s (the trigger itself ${triggered.toFixed(1)} s)`);
    return [{ workload: `topic fan-out, ${size.toLocaleString('en')} subscribers, Postgres, ${WORKERS} worker processes`, backend: 'postgres', unit: 's until all stored', value: seconds, spread: 0, runs: 1, target: '< 60 s at 1,000,000', met: ctx.quick ? undefined : seconds < 60 }];
  } finally {
    await workers.stop();
    await storage.db.schema.dropSchema(schema).ifExists().cascade().execute().catch(() => undefined);
    await storage.close();
  }
}
