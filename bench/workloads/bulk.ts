import { join } from 'node:path';
import { createTidings, type Storage } from '@tidings/core';
import { memoryStorage } from '@tidings/memory';
import { postgresStorage } from '@tidings/postgres';
import { sqliteStorage } from '@tidings/sqlite';
import { mapBaseline, postgresBaseline, sqliteBaseline, type Baseline } from '../lib/baselines.js';
import { BENCH_WORKFLOW, engineBulk } from '../lib/engine-bulk.js';
import { memoryFloor, sqliteFloor } from '../lib/floors.js';
import { pureWorkRate } from '../lib/pure-work.js';
import { repeat } from '../lib/stats.js';
import { freshName, tempDir } from '../lib/temp.js';
import type { BenchContext, Row } from './types.js';

interface Backend {
  name: string;
  storage: () => Storage;
  baseline: () => Promise<Baseline> | Baseline;
  /** The engine's own rows written with no engine code (see lib/floors.ts), with and without jobs. */
  floor?: (mode: 'jobs' | 'inline') => Promise<Baseline>;
}

type Measured = Awaited<ReturnType<typeof repeat>>;

/** One messages/s row beside the same run's raw baseline. */
const rateRow = (workload: string, backend: string, batch: number, measured: Measured, raw: Measured): Row => ({
  workload,
  backend,
  batch,
  unit: 'messages/s',
  value: measured.median,
  spread: measured.spread,
  runs: measured.runs,
  baseline: raw.median,
  ratio: measured.median / raw.median,
});

/** The engine end to end on a fresh storage, over `ctx.runs` runs after a warm-up. */
async function engineRate(ctx: BenchContext, backend: Backend, calls: number, perEvent: number, inlineInApp: boolean) {
  const storage = backend.storage();
  const result = await repeat(ctx.runs, 1, async (run) => {
    const { messages, seconds } = await engineBulk(storage, { calls, perEvent, prefix: `${inlineInApp ? 'i' : 'r'}${run}`, engine: inlineInApp ? {} : { inlineInApp: false } });
    return messages / seconds;
  });
  await storage.close();
  return result;
}

async function throughput(ctx: BenchContext, make: () => Promise<Baseline> | Baseline, calls: number, perEvent: number) {
  const baseline = await make();
  let callIndex = 0;
  const result = await repeat(ctx.runs, 1, async () => {
    const started = performance.now();
    for (let c = 0; c < calls; c++) await baseline.call(callIndex++, perEvent);
    return (calls * 100 * perEvent) / ((performance.now() - started) / 1000);
  });
  await baseline.close();
  return result;
}

/** Workloads 1 and 2: bulk trigger end to end on each backend, with its raw baseline in the same run. */
export async function bulkWorkload(ctx: BenchContext): Promise<Row[]> {
  const dir = tempDir('bulk');
  const backends: Backend[] = [
    { name: 'memory', storage: () => memoryStorage(), baseline: () => mapBaseline(), floor: async (mode) => memoryFloor(mode) },
    {
      name: 'memory (shared records)',
      storage: () => memoryStorage({ copyRecords: false }),
      baseline: () => mapBaseline(),
      floor: async (mode) => memoryFloor(mode, { copyRecords: false }),
    },
    {
      name: 'sqlite',
      storage: () => sqliteStorage({ filename: join(dir, `${freshName('engine')}.db`) }),
      baseline: () => sqliteBaseline(join(dir, `${freshName('raw')}.db`)),
      floor: (mode) => sqliteFloor(join(dir, `${freshName(`floor-${mode}`)}.db`), mode),
    },
  ];
  if (ctx.pgUrl) {
    const url = ctx.pgUrl;
    backends.push({ name: 'postgres', storage: () => postgresStorage({ connectionString: url, schema: freshName('bench') }), baseline: () => postgresBaseline(url, freshName('raw')) });
  }
  const rows: Row[] = [];
  const workflow = await createTidings({ storage: memoryStorage() }).workflows.upsert(BENCH_WORKFLOW);
  const pure = await repeat(ctx.runs, 1, async () => pureWorkRate(workflow, ctx.quick ? 20_000 : 200_000));
  const map = await throughput(ctx, () => mapBaseline(), ctx.quick ? 4 : 40, 1);
  rows.push(rateRow("ceiling: the engine's pure work per message, no storage (validate, subscriber, walk and render, build)", 'memory (pure work)', 1, pure, map));
  ctx.log(`  pure work per message: ${Math.round(pure.median)} msg/s (plain Map ${Math.round(map.median)})`);
  for (const backend of backends) {
    for (const perEvent of [1, 10]) {
      const calls = Math.max(2, Math.round((ctx.quick ? 4 : 40) / perEvent));
      // Default options store these in-app-only walks inline; `inlineInApp: false` sends each through a job.
      const inline = await engineRate(ctx, backend, calls, perEvent, true);
      const engine = await engineRate(ctx, backend, calls, perEvent, false);
      const raw = await throughput(ctx, backend.baseline, calls, perEvent);
      rows.push(rateRow(`bulk trigger, ${backend.name}, default options, 100 events × ${perEvent} subscriber${perEvent > 1 ? 's' : ''}`, backend.name, perEvent, inline, raw));
      rows.push(rateRow(`bulk trigger, ${backend.name}, 100 events × ${perEvent}, inlineInApp: false (a job per walk)`, `${backend.name} (jobs)`, perEvent, engine, raw));
      ctx.log(`  ${rows.at(-2)!.workload}: ${Math.round(inline.median)} msg/s, through jobs ${Math.round(engine.median)} (baseline ${Math.round(raw.median)})`);
      if (backend.floor) {
        const floor = backend.floor;
        for (const mode of ['jobs', 'inline'] as const) {
          const measured = await throughput(ctx, () => floor(mode), calls, perEvent);
          const share = `${Math.round(((mode === 'jobs' ? engine : inline).median / measured.median) * 100)}%`;
          const writer = backend.name.startsWith('memory') ? "the store's own calls" : 'raw SQL';
          const label = `floor: ${writer} writing the engine's rows, ${backend.name}, 100 events × ${perEvent}, ${mode === 'jobs' ? 'a job per walk' : 'inline (default)'} (engine at ${share} of it)`;
          rows.push(rateRow(label, `${backend.name} (floor ${mode})`, perEvent, measured, raw));
          ctx.log(`  floor (${mode}): ${Math.round(measured.median)} msg/s; engine at ${share} of it`);
        }
      }
    }
  }
  return rows;
}
