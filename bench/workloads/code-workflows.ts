import { join } from 'node:path';
import { workflow as novuWorkflow } from '@novu/framework';
import { createTidings, type CodeWorkflow } from '@tidings/core';
import { type CodeRunInput } from '@tidings/core/internal';
import { memoryStorage } from '@tidings/memory';
import { novuWorkflows, workflow } from '@tidings/framework';
import { sqliteStorage } from '@tidings/sqlite';
import { z } from 'zod';
import { engineBulk } from '../lib/engine-bulk.js';
import { repeat } from '../lib/stats.js';
import { freshName, tempDir } from '../lib/temp.js';
import type { BenchContext, Row } from './types.js';

/**
 * BENCH_WORKFLOW (one in-app step, `Hello {{ subscriber.firstName }}, {{ payload.n }}`) written as
 * code: with `@tidings/framework`'s `workflow()`, and with `@novu/framework`'s run through
 * `novuWorkflows`. Both check the payload with a zod schema, as a code workflow that reads it must.
 */
const payloadSchema = z.object({ n: z.number() });
const native = workflow('bench', async ({ step, payload, subscriber }) => {
  await step.inApp('in-app', () => ({ body: `Hello ${subscriber.firstName}, ${payload.n}` }));
}, { payloadSchema });
const [throughNovu] = novuWorkflows([
  novuWorkflow('bench', async ({ step, payload, subscriber }) => {
    await step.inApp('in-app', async () => ({ body: `Hello ${subscriber.firstName}, ${payload.n}` }));
  }, { payloadSchema }),
]);

/** CPU per step run, in µs: the workflow's function run to its one step and the step's outputs built, with no engine around it. */
async function stepCost(code: CodeWorkflow, runs: number): Promise<number> {
  await code.discover();
  const subscriber = await createTidings({ storage: memoryStorage() }).subscribers.upsert({ subscriberId: 'ada', firstName: 'Ada' });
  const input: CodeRunInput = { payload: { n: 1 }, subscriber, context: {}, environmentId: 'default', results: new Map() };
  const first = await code.runNext(input);
  if (first.kind !== 'step' || first.outputs['body'] !== 'Hello Ada, 1') throw new Error(`code workflow "${code.id}" did not reach its in-app step: ${JSON.stringify(first)}`);
  for (let i = 0; i < 200; i++) await code.runNext(input);
  const started = process.cpuUsage();
  for (let i = 0; i < runs; i++) await code.runNext(input);
  const used = process.cpuUsage(started);
  return (used.user + used.system) / runs;
}

/**
 * In-app bulk through a code workflow on SQLite, beside the same workflow stored as JSON, in one run
 * (DESIGN target for the native path: ≥ 50% of the JSON workflow's messages/s); and the CPU of one
 * step run each way.
 */
export async function codeWorkflowsWorkload(ctx: BenchContext): Promise<Row[]> {
  const dir = tempDir('code-workflows');
  const calls = ctx.quick ? 2 : 40;
  const rate = (workflows?: readonly CodeWorkflow[]) => async () => {
    const storage = sqliteStorage({ filename: join(dir, `${freshName('code')}.db`) });
    const result = await repeat(ctx.runs, 1, async (run) => {
      const { messages, seconds } = await engineBulk(storage, { calls, perEvent: 1, prefix: `c${run}`, ...(workflows && { workflows }) });
      return messages / seconds;
    });
    await storage.close();
    return result;
  };
  const json = await rate()();
  const ours = await rate([native])();
  const novu = await rate([throughNovu!])();
  const row = (label: string, backend: string, measured: typeof json, target?: boolean): Row => ({
    workload: label,
    backend,
    batch: 1,
    unit: 'messages/s',
    value: measured.median,
    spread: measured.spread,
    runs: measured.runs,
    baseline: json.median,
    ratio: measured.median / json.median,
    ...(target && { target: '≥ 50% of the JSON workflow', met: measured.median / json.median >= 0.5 }),
  });
  const rows: Row[] = [
    { ...row('bulk trigger, sqlite, the in-app workflow stored as JSON, 100 events × 1', 'sqlite (JSON workflow)', json), baseline: undefined, ratio: undefined },
    row('bulk trigger, sqlite, the same workflow in code: workflow() of @tidings/framework', 'sqlite (code, native)', ours, true),
    row('bulk trigger, sqlite, the same workflow in code: @novu/framework through novuWorkflows', 'sqlite (code, Novu)', novu),
  ];
  ctx.log(`  JSON ${Math.round(json.median)} msg/s; native code ${Math.round(ours.median)} (${Math.round((ours.median / json.median) * 100)}%); Novu's ${Math.round(novu.median)} (${Math.round((novu.median / json.median) * 100)}%)`);
  const steps = ctx.quick ? 500 : 5_000;
  const ourStep = await repeat(ctx.runs, 0, () => stepCost(native, steps));
  const novuStep = await repeat(ctx.runs, 0, () => stepCost(throughNovu!, steps));
  rows.push(
    { workload: "CPU per step run: the function run to its in-app step, workflow() of @tidings/framework", backend: 'cpu (code, native)', unit: 'µs', value: ourStep.median, spread: ourStep.spread, runs: ourStep.runs },
    { workload: "CPU per step run: the same through @novu/framework's Client (novuWorkflows)", backend: 'cpu (code, Novu)', unit: 'µs', value: novuStep.median, spread: novuStep.spread, runs: novuStep.runs, ratio: novuStep.median / ourStep.median, versus: 'the native step' },
  );
  ctx.log(`  CPU per step: native ${ourStep.median.toFixed(0)} µs, Novu's ${novuStep.median.toFixed(0)} µs`);
  return rows;
}
