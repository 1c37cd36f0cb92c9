import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { peerChart, throughputChart } from './lib/svg.js';
import { bulkWorkload } from './workloads/bulk.js';
import { bulkJobsWorkload } from './workloads/bulk-jobs.js';
import { broadcastWorkload } from './workloads/broadcast.js';
import { codeWorkflowsWorkload } from './workloads/code-workflows.js';
import { digestWorkload } from './workloads/digest.js';
import { fanoutWorkload } from './workloads/fanout.js';
import { emailLookWorkload } from './workloads/email-look.js';
import { httpWorkload } from './workloads/http.js';
import { inboxCountsWorkload } from './workloads/inbox-counts.js';
import { memoryWorkload } from './workloads/memory-growth.js';
import { peerWorkload } from './workloads/peer.js';
import { pgFanoutWorkload } from './workloads/pg-fanout.js';
import { pgProcessesWorkload } from './workloads/pg-processes.js';
import { pgScalingWorkload } from './workloads/pg-scaling.js';
import { pgSustainedWorkload } from './workloads/pg-sustained.js';
import { send600kWorkload, sendPathWorkload } from './workloads/send-path.js';
import { fairnessWorkload } from './workloads/fairness.js';
import type { BenchContext, Row } from './workloads/types.js';
import { assertBuildsCurrent, BUILT_ENVIRONMENT, PACKAGES } from './lib/packages.js';

const WORKLOADS = { peer: peerWorkload, bulk: bulkWorkload, 'bulk-jobs': bulkJobsWorkload, 'code-workflows': codeWorkflowsWorkload, fanout: fanoutWorkload, broadcast: broadcastWorkload, digest: digestWorkload, http: httpWorkload, inbox: inboxCountsWorkload, 'pg-scaling': pgScalingWorkload, 'pg-processes': pgProcessesWorkload, 'pg-sustained': pgSustainedWorkload, 'pg-fanout': pgFanoutWorkload, memory: memoryWorkload, 'email-look': emailLookWorkload, send: sendPathWorkload, 'send-600k': send600kWorkload, fairness: fairnessWorkload };

/** DESIGN §10 targets for the bulk rows (default options): ratios to the same run's raw baseline. The memory backend has none. */
function withTargets(row: Row): Row {
  if (row.unit !== 'messages/s' || row.baseline === undefined) return row;
  if (row.backend === 'sqlite') return { ...row, target: '≥ 50% of raw SQLite', met: (row.ratio ?? 0) >= 0.5 };
  if (row.backend === 'postgres') return { ...row, target: '≥ 40% of raw Postgres', met: (row.ratio ?? 0) >= 0.4 };
  return row;
}

function format(value: number, unit: string): string {
  if (unit === 'ms' || unit === 's' || unit.startsWith('s ') || unit === 'MB') return value.toFixed(2);
  return Math.round(value).toLocaleString('en');
}

/**
 * The files a run writes, by what it ran: only a full run (every workload, full size) writes
 * `latest.md`, `latest.svg` and `peer.svg`, the figures the docs cite; a `--quick` or `--only` run
 * writes under a name of its own, so it never replaces the full run's table.
 */
export function resultNames(options: { quick: boolean; only?: readonly string[] }): { table: string; chart: string; peerChart: string; json: (stamp: string) => string } {
  const parts = [...(options.quick ? ['quick'] : []), ...(options.only ? ['only', ...options.only] : [])];
  if (parts.length === 0) return { table: 'latest.md', chart: 'latest.svg', peerChart: 'peer.svg', json: (stamp) => `${stamp}.json` };
  const name = parts.join('-');
  return { table: `${name}.md`, chart: `${name}.svg`, peerChart: `${name}-peer.svg`, json: (stamp) => `${stamp}-${name}.json` };
}

export async function runBench(options: { quick: boolean; only?: string[]; log?: (line: string) => void; write?: boolean; dir?: string }) {
  const log = options.log ?? ((line: string) => console.log(line));
  assertBuildsCurrent();
  // Every process the workloads start imports what this one does.
  if (PACKAGES === 'built') Object.assign(process.env, BUILT_ENVIRONMENT);
  log(`measuring the ${PACKAGES === 'built' ? 'built packages (dist)' : 'packages\' sources (through tsx)'}`);
  const ctx: BenchContext = { quick: options.quick, runs: options.quick ? 1 : 3, pgUrl: process.env['TIDINGS_TEST_PG_URL'], log };
  const rows: Row[] = [];
  for (const [name, workload] of Object.entries(WORKLOADS)) {
    if (options.only && !options.only.includes(name)) continue;
    log(`${name}…`);
    rows.push(...(await workload(ctx)).map(withTargets));
  }
  const table = [
    '| workload | result | spread | vs baseline | target | met |',
    '|---|---|---|---|---|---|',
    ...rows.map((r) => `| ${r.workload} | ${format(r.value, r.unit)} ${r.unit} | ${r.runs > 1 ? `±${(r.spread * 50).toFixed(0)}% (${r.runs} runs)` : '1 run'} | ${r.ratio === undefined ? '' : r.versus !== undefined ? `${r.ratio.toFixed(1)}× ${r.versus}` : r.baseline !== undefined ? `${(r.ratio * 100).toFixed(0)}% of ${format(r.baseline, r.unit)}` : `${r.ratio.toFixed(2)}×`} | ${r.target ?? ''} | ${r.met === undefined ? '' : r.met ? 'yes' : 'no'} |`),
  ].join('\n');
  log(`\n${table}\n`);
  if (options.write !== false) {
    const dir = options.dir ?? fileURLToPath(new URL('./results/', import.meta.url));
    mkdirSync(dir, { recursive: true });
    const names = resultNames(options);
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    const meta = { date: new Date().toISOString(), quick: options.quick, only: options.only ?? null, packages: PACKAGES, node: process.version, cpus: (await import('node:os')).cpus().length };
    writeFileSync(join(dir, names.json(stamp)), JSON.stringify({ ...meta, rows }, null, 2));
    writeFileSync(join(dir, names.chart), throughputChart(rows));
    if (rows.some((r) => r.backend.startsWith('peer'))) writeFileSync(join(dir, names.peerChart), peerChart(rows));
    writeFileSync(join(dir, names.table), `${table}\n`);
    log(`written: ${join(dir, names.table)}`);
  }
  return rows;
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  const { values } = parseArgs({ options: { quick: { type: 'boolean', default: false }, only: { type: 'string' } } });
  await runBench({ quick: values.quick ?? false, ...(values.only && { only: values.only.split(',') }) });
  process.exit(0);
}
