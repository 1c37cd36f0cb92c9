import { createTidings } from '@tidings/core';
import { postgresStorage } from '@tidings/postgres';
import { rowCount, startLoopWorkers } from '../lib/pg-workers.js';
import { freshName } from '../lib/temp.js';
import type { BenchContext, Row } from './types.js';

const WORKERS = 2;

/**
 * Sustained load on Postgres: one producer triggers bulk calls of 100 events nonstop for 60 s, every
 * walk through a job (`inlineInApp: false`), while two worker processes run their job loops. Reports
 * what was acknowledged and made during the load, the backlog left when it stops, and how long the
 * workers take to clear it: the backlog in seconds of work.
 */
export async function pgSustainedWorkload(ctx: BenchContext): Promise<Row[]> {
  if (!ctx.pgUrl) return [];
  const pgUrl = ctx.pgUrl;
  const schema = freshName('sustained');
  const storage = postgresStorage({ connectionString: pgUrl, schema });
  const producer = createTidings({ storage, inlineInApp: false });
  await producer.workflows.upsert({ name: 'Load', triggers: [{ identifier: 'load' }], steps: [{ template: { type: 'in_app', content: 'Hello {{ payload.n }}' } }] });
  const count = (table: 'tidings_jobs' | 'tidings_messages') => rowCount(storage, table);
  const workers = await startLoopWorkers(pgUrl, schema, WORKERS);
  try {
    const seconds = ctx.quick ? 1 : 60;
    let acknowledged = 0;
    let n = 0;
    const started = performance.now();
    while (performance.now() - started < seconds * 1000) {
      const results = await producer.triggerBulk(Array.from({ length: 100 }, () => ({ name: 'load', to: `l-${n}`, payload: { n: n++ } })));
      acknowledged += results.filter((r) => r.status === 'processed').length;
    }
    const loadSeconds = (performance.now() - started) / 1000;
    const made = await count('tidings_messages');
    const backlog = await count('tidings_jobs');
    const stopped = performance.now();
    while ((await count('tidings_jobs')) > 0) {
      if (performance.now() - stopped > 600_000) throw new Error('the workers did not clear the backlog within 10 minutes');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const drainSeconds = (performance.now() - stopped) / 1000;
    ctx.log(`  sustained ${loadSeconds.toFixed(0)} s: ${acknowledged} events acknowledged (${Math.round(acknowledged / loadSeconds)}/s), ${made} messages made meanwhile (${Math.round(made / loadSeconds)}/s), backlog ${backlog} jobs cleared in ${drainSeconds.toFixed(1)} s`);
    return [
      { workload: `sustained load on Postgres, ${Math.round(loadSeconds)} s: events acknowledged (one producer, every walk through a job)`, backend: 'postgres', unit: 'events/s', value: acknowledged / loadSeconds, spread: 0, runs: 1 },
      { workload: `sustained load: messages made meanwhile by ${WORKERS} worker processes`, backend: 'postgres', unit: 'messages/s', value: made / loadSeconds, spread: 0, runs: 1 },
      { workload: `sustained load: the backlog left when triggers stop (${backlog.toLocaleString('en')} jobs), in seconds of work`, backend: 'postgres', unit: 's', value: drainSeconds, spread: 0, runs: 1, target: '< 10 s with 2 worker processes', met: ctx.quick ? undefined : drainSeconds < 10 },
    ];
  } finally {
    await workers.stop();
    await storage.db.schema.dropSchema(schema).ifExists().cascade().execute().catch(() => undefined);
    await storage.close();
  }
}
