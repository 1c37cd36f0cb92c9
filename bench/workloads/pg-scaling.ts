import { spawn } from 'node:child_process';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { createTidings } from '@tidings/core';
import { postgresStorage } from '@tidings/postgres';
import pg from 'pg';
import { tsArguments } from '../lib/packages.js';
import { freshName } from '../lib/temp.js';
import type { BenchContext, Row } from './types.js';

const WORKER = fileURLToPath(new URL('./pg-worker.ts', import.meta.url));

function worker(url: string, schema: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...tsArguments(), WORKER, url, schema], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code) => (code === 0 ? resolve(Number(/RAN (\d+)/.exec(out)?.[1] ?? 0)) : reject(new Error(`worker exited ${code}`))));
  });
}

/** CPU time of the whole machine so far (every core): busy and in all, in ms. */
function machineCpu(): { busy: number; all: number } {
  let busy = 0;
  let all = 0;
  for (const { times } of cpus()) {
    const used = times.user + times.nice + times.sys + times.irq;
    busy += used;
    all += used + times.idle;
  }
  return { busy, all };
}

/**
 * Workload 6: one vs two worker processes draining the same jobs on one Postgres database, with how
 * busy the machine's cores were meanwhile (workers, Postgres and this process together): where one
 * worker already keeps them busy, a second has little left to use.
 */
export async function pgScalingWorkload(ctx: BenchContext): Promise<Row[]> {
  if (!ctx.pgUrl) return [];
  const jobs = ctx.quick ? 2_000 : 100_000;
  const results: Record<number, number> = {};
  const busy: Record<number, number> = {};
  for (const workers of [1, 2]) {
    const schema = freshName('scale');
    const storage = postgresStorage({ connectionString: ctx.pgUrl, schema });
    // A job per walk (no inline delivery, no fan-out jobs): this workload measures the job loops.
    const tidings = createTidings({ storage, inlineInApp: false, fanoutChunk: 1_000 });
    await tidings.workflows.upsert({ name: 'Scale', triggers: [{ identifier: 'scale' }], steps: [{ template: { type: 'in_app', content: 'n {{ payload.n }}' } }] });
    for (let i = 0; i < jobs; i += 1_000) {
      await tidings.trigger({ name: 'scale', to: Array.from({ length: 1_000 }, (_, k) => `p-${i + k}`), payload: { n: i } });
    }
    const started = performance.now();
    const cpuBefore = machineCpu();
    const ran = await Promise.all(Array.from({ length: workers }, () => worker(ctx.pgUrl!, schema)));
    const seconds = (performance.now() - started) / 1000;
    const cpuAfter = machineCpu();
    busy[workers] = (100 * (cpuAfter.busy - cpuBefore.busy)) / Math.max(1, cpuAfter.all - cpuBefore.all);
    if (ran.reduce((a, b) => a + b, 0) !== jobs) throw new Error(`expected ${jobs} jobs, workers ran ${ran.join('+')}`);
    results[workers] = jobs / seconds;
    await storage.close();
    const admin = new pg.Client({ connectionString: ctx.pgUrl });
    await admin.connect();
    await admin.query(`drop schema "${schema}" cascade`);
    await admin.end();
    ctx.log(`  postgres, ${workers} worker process${workers > 1 ? 'es' : ''}: ${Math.round(results[workers]!)} jobs/s, the machine's ${cpus().length} cores ${busy[workers]!.toFixed(0)}% busy`);
  }
  const ratio = results[2]! / results[1]!;
  return [
    { workload: `Postgres, 1 worker process draining ${jobs.toLocaleString('en')} jobs`, backend: 'postgres', unit: 'jobs/s', value: results[1]!, spread: 0, runs: 1 },
    { workload: `Postgres, 2 worker processes draining ${jobs.toLocaleString('en')} jobs`, backend: 'postgres', unit: 'jobs/s', value: results[2]!, spread: 0, runs: 1, ratio, target: '≥ 1.5× one process', met: ratio >= 1.5 },
    ...[1, 2].map((workers) => ({ workload: `Postgres, ${workers} worker process${workers > 1 ? 'es' : ''} draining: the machine's cores busy meanwhile (${cpus().length} cores, Postgres and the workers together)`, backend: 'postgres', unit: '%', value: busy[workers]!, spread: 0, runs: 1 })),
  ];
}
