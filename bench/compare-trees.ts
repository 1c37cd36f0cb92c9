/**
 * "Bulk through jobs" throughput of two checkouts in one run, as a ratio B/A.
 *
 *   node --import tsx --conditions=@tidings/source bench/compare-trees.ts <treeA> <treeB> [options]
 *
 * For each backend (sqlite, postgres) and scenario (in_app with inlineInApp: false; in_app + email
 * through an in-process provider) it runs A, B, A, B, … (`--rounds`, 3 each by default), every run a
 * fresh child process started in that tree's directory with `--conditions=@tidings/source`, so the
 * child imports that tree's @tidings packages from source. The measuring code is the same for both:
 * bench/compare-child.ts and bench/workloads/bulk-jobs.ts (with the two lib files and the types they
 * import) are copied from this checkout into `<tree>/bench/.compare-trees/` before the first run.
 * Each child runs a short warm-up, then one measured run on a fresh SQLite file / Postgres schema.
 *
 * With `--built`, each child imports that tree's built packages (each package's `dist`, what an installed
 * package runs; `pnpm build` there first) instead of its sources: tsx's transform keeps function names
 * by wrapping every function made in a call (`__name`), a cost the built packages do not have.
 *
 * Scenario `inline` is the default options' bulk trigger (walks stored in the trigger); `fanout` one
 * trigger to a topic of `--members` (100,000 by default, seeded before the clock starts).
 *
 * Options: --calls 100 (bulk calls of 100 events × 1 new subscriber per run), --rounds 3,
 *   --backends sqlite,postgres, --scenarios in_app,in_app+email, --drain per-call|end, --members 100000,
 *   --built, --pg-url (default TIDINGS_TEST_PG_URL or postgres://postgres@127.0.0.1:5432/test).
 * Writes the table to stdout and the raw figures to bench/results/compare-<date>.json.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { summarize } from './lib/stats.js';

const here = dirname(fileURLToPath(import.meta.url));
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    calls: { type: 'string', default: '100' },
    rounds: { type: 'string', default: '3' },
    backends: { type: 'string', default: 'sqlite,postgres' },
    scenarios: { type: 'string', default: 'in_app,in_app+email' },
    drain: { type: 'string', default: 'per-call' },
    'warmup-calls': { type: 'string', default: '5' },
    'pg-url': { type: 'string' },
    members: { type: 'string', default: '100000' },
    built: { type: 'boolean', default: false },
  },
});
if (positionals.length !== 2) {
  console.error('usage: compare-trees.ts <treeA> <treeB> [--calls 100] [--rounds 3] [--backends sqlite,postgres] [--scenarios in_app,in_app+email]');
  process.exit(2);
}
const trees = positionals.map((p) => realpathSync(resolve(p))) as [string, string];
const pgUrl = values['pg-url'] ?? process.env['TIDINGS_TEST_PG_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';

/** What the child needs, relative to bench/: copied so both trees run the same measuring code. */
const FILES = ['compare-child.ts', 'workloads/bulk-jobs.ts', 'workloads/fanout.ts', 'workloads/types.ts', 'lib/packages.ts', 'lib/stats.ts', 'lib/temp.ts', 'tsconfig.built.json'];
const CHILD_DIR = join('bench', '.compare-trees');

function install(tree: string): string {
  for (const need of ['node_modules', 'bench/node_modules/@tidings/core', 'packages/core/src/index.ts']) {
    if (!existsSync(join(tree, need))) throw new Error(`${tree}: missing ${need} (run pnpm install --frozen-lockfile there)`);
  }
  if (values.built && !existsSync(join(tree, 'packages/core/dist/index.js'))) throw new Error(`${tree}: not built (run pnpm build there)`);
  for (const file of FILES) {
    const target = join(tree, CHILD_DIR, file);
    mkdirSync(dirname(target), { recursive: true });
    copyFileSync(join(here, file), target);
  }
  return join(tree, CHILD_DIR, 'compare-child.ts');
}

interface ChildResult {
  rates: number[];
  core: string;
}

function runChild(tree: string, entry: string, backend: string, scenario: string): Promise<ChildResult> {
  const source = values.built ? [] : ['--conditions=@tidings/source'];
  const args = ['--import', 'tsx', ...source, entry, '--backend', backend, '--scenario', scenario, '--calls', values.calls!, '--warmup-calls', values['warmup-calls']!, '--drain', values.drain!, '--members', values.members!, '--pg-url', pgUrl];
  return new Promise((done, fail) => {
    // The tree's own tsconfig maps @tidings/* to the sources; the bench's built one maps nothing, so imports follow the packages' exports.
    const env = values.built ? { ...process.env, TSX_TSCONFIG_PATH: join(tree, CHILD_DIR, 'tsconfig.built.json') } : process.env;
    const child = spawn(process.execPath, args, { cwd: tree, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk));
    child.on('error', fail);
    child.on('close', (code) => {
      const line = out.split('\n').find((l) => l.startsWith('BULK_JOBS_RESULT '));
      if (code !== 0 || !line) return fail(new Error(`child in ${tree} (${backend}, ${scenario}) exited ${code}:\n${(err || out).trim().split('\n').slice(0, 25).join('\n')}`));
      done(JSON.parse(line.slice('BULK_JOBS_RESULT '.length)) as ChildResult);
    });
  });
}

const entries = trees.map(install) as [string, string];
const rounds = Number(values.rounds);
const backends = values.backends!.split(',');
const scenarios = values.scenarios!.split(',');
const labels = ['A', 'B'] as const;
console.log(`A = ${trees[0]}\nB = ${trees[1]}\n${values.calls} calls × 100 events × 1 new subscriber per run, ${rounds} runs each (A,B alternating), drain ${values.drain}; one child process per run\n`);

interface Line {
  scenario: string;
  backend: string;
  a: number[];
  b: number[];
  failures: string[];
}
const lines: Line[] = [];
const started = performance.now();
for (const backend of backends) {
  for (const scenario of scenarios) {
    const line: Line = { scenario, backend, a: [], b: [], failures: [] };
    for (let round = 0; round < rounds; round++) {
      for (const side of [0, 1] as const) {
        // A failed child (e.g. a tree being edited while it loads) is tried once more and reported.
        for (let attempt = 1; ; attempt++) {
          try {
            const result = await runChild(trees[side], entries[side], backend, scenario);
            if (!result.core.startsWith(trees[side]) || result.core.includes('/dist/') !== values.built) throw new Error(`child of ${trees[side]} measured ${result.core}`);
            (side === 0 ? line.a : line.b).push(result.rates[0]!);
            console.log(`  ${scenario.padEnd(12)} ${backend.padEnd(8)} ${labels[side]} run ${round + 1}: ${Math.round(result.rates[0]!)} msg/s`);
            break;
          } catch (error) {
            line.failures.push(`${labels[side]} run ${round + 1}: ${(error as Error).message}`);
            console.log(`  ${scenario} ${backend} ${labels[side]} run ${round + 1} FAILED (attempt ${attempt}):\n${(error as Error).message}`);
            if (attempt >= 2) throw error;
          }
        }
      }
    }
    lines.push(line);
  }
}

const fmt = (n: number) => Math.round(n).toLocaleString('en');
const table = [
  '| scenario | backend | A median msg/s | B median msg/s | B/A | A runs | B runs |',
  '|---|---|---|---|---|---|---|',
  ...lines.map((l) => {
    const a = summarize(l.a);
    const b = summarize(l.b);
    return `| ${l.scenario} | ${l.backend} | ${fmt(a.median)} | ${fmt(b.median)} | ${(b.median / a.median).toFixed(2)} | ${l.a.map(fmt).join(', ')} | ${l.b.map(fmt).join(', ')} |`;
  }),
].join('\n');
console.log(`\n${table}\n\n(${((performance.now() - started) / 1000).toFixed(0)} s; ${lines.reduce((n, l) => n + l.failures.length, 0)} failed child runs retried)`);

const dir = join(here, 'results');
mkdirSync(dir, { recursive: true });
const stamp = new Date().toISOString().replace(/[:.]/g, '-');
writeFileSync(join(dir, `compare-${stamp}.json`), JSON.stringify({ date: new Date().toISOString(), node: process.version, trees: { A: trees[0], B: trees[1] }, options: values, lines }, null, 2));
process.exit(0);
