/**
 * One "bulk through jobs" measurement in this process, against the @tidings packages of the checkout
 * this file sits in (bench/compare-trees.ts copies it, with the workload, into each tree's
 * bench/.compare-trees/ and runs it there with `--conditions=@tidings/source`, so the packages are
 * imported from that tree's sources). Prints one line: `BULK_JOBS_RESULT {json}`.
 *
 * Scenario `fanout`: one trigger to a topic of `--members` subscribers (seeded first, not measured),
 * one in-app step, default options; the rate is messages stored per second until no job is left.
 *
 *   node --import tsx --conditions=@tidings/source bench/compare-child.ts --backend sqlite --scenario in_app --calls 20
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createTidings } from '@tidings/core';
import { postgresStorage } from '@tidings/postgres';
import { sqliteStorage } from '@tidings/sqlite';
import { bulkJobsRates, DEFAULT_PG_URL, openBenchStorage, type BulkJobsBackend, type BulkJobsScenario } from './workloads/bulk-jobs.js';
import { FAN_WORKFLOW, seedTopic } from './workloads/fanout.js';

const { values } = parseArgs({
  options: {
    backend: { type: 'string', default: 'sqlite' },
    scenario: { type: 'string', default: 'in_app' },
    calls: { type: 'string', default: '20' },
    'per-event': { type: 'string', default: '1' },
    runs: { type: 'string', default: '1' },
    warmup: { type: 'string', default: '1' },
    'warmup-calls': { type: 'string', default: '5' },
    drain: { type: 'string', default: 'per-call' },
    'pg-url': { type: 'string' },
    members: { type: 'string', default: '100000' },
  },
});

const backend = values.backend as BulkJobsBackend;
const scenario = values.scenario as BulkJobsScenario | 'fanout';
if (!['sqlite', 'postgres'].includes(backend)) throw new Error(`unknown backend ${backend}`);
if (!['in_app', 'in_app+email', 'inline', 'fanout'].includes(scenario)) throw new Error(`unknown scenario ${scenario}`);
const pgUrl = values['pg-url'] ?? process.env['TIDINGS_TEST_PG_URL'] ?? DEFAULT_PG_URL;

/** One topic fan-out on a fresh storage: messages stored per second, from the trigger until no job is left. */
async function fanoutRate(members: number): Promise<number> {
  const bench = openBenchStorage(backend, { sqlite: sqliteStorage, postgres: postgresStorage }, { pgUrl });
  try {
    const tidings = createTidings({ storage: bench.storage });
    await tidings.workflows.upsert(FAN_WORKFLOW);
    await seedTopic(tidings, members);
    const started = performance.now();
    await tidings.trigger({ name: 'fan', to: { type: 'Topic', topicKey: 'everyone' } });
    while ((await tidings.runDue()) > 0);
    const seconds = (performance.now() - started) / 1000;
    const stored = await bench.countMessages();
    if (stored !== members) throw new Error(`fan-out ${backend}: ${stored} messages stored, expected ${members}`);
    return members / seconds;
  } finally {
    await bench.dispose();
  }
}

const rates = scenario === 'fanout' ? [await fanoutRate(Number(values.members))] : await bulkJobsRates(
  createTidings,
  { sqlite: sqliteStorage, postgres: postgresStorage },
  {
    backend,
    scenario,
    calls: Number(values.calls),
    perEvent: Number(values['per-event']),
    runs: Number(values.runs),
    warmup: Number(values.warmup),
    warmupCalls: Number(values['warmup-calls']),
    drain: values.drain as 'per-call' | 'end',
    pgUrl,
  },
);

// Which sources were measured: the resolved @tidings/core entry (a tree's packages/core/src/index.ts).
const core = realpathSync(fileURLToPath(import.meta.resolve('@tidings/core')));
console.log(`BULK_JOBS_RESULT ${JSON.stringify({ backend, scenario, rates, core, pid: process.pid })}`);
process.exit(0);
