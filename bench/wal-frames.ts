/**
 * The pages a bulk call writes on SQLite, counted exactly: each commit appends every page it changed
 * to the write-ahead log, so the log of a few calls, read frame by frame and matched to the tables
 * and indexes that own each page (`dbstat`), says what each B-tree costs a call. Unlike a rate, the
 * count does not drift with the machine, so two checkouts compare in one line each.
 *
 *   node --import tsx --conditions=@tidings/source bench/wal-frames.ts [--mode inline|jobs]
 *
 * The workload is the bulk workload's: calls of 100 events × 1 new inline subscriber, one in-app
 * step, `runDue()` after each call; `jobs` sets `inlineInApp: false` (a job per walk). It measures
 * the packages of the checkout it is run from (the working directory): to measure another one, run
 * this file from there (`cd <checkout> && node --import tsx --conditions=@tidings/source
 * <this checkout>/bench/wal-frames.ts`; its tsconfig maps the package names to its own sources).
 *
 * A page freed in one commit and reused by another table in a later one is counted under the table
 * that owns it at the end: with jobs, the pages of the jobs a call deletes are reused by messages, so
 * per table only the inline mode is exact; the totals are exact in both.
 */
import { readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { tempDir } from './lib/temp.js';

const { values } = parseArgs({ options: { mode: { type: 'string', default: 'inline' }, warmup: { type: 'string', default: '60' }, calls: { type: 'string', default: '5' } } });
if (values.mode !== 'inline' && values.mode !== 'jobs') throw new Error(`--mode is inline or jobs, not ${values.mode}`);
const tree = process.cwd();
const { createTidings } = (await import(pathToFileURL(join(tree, 'packages/core/src/index.ts')).href)) as typeof import('@tidings/core');
const { sqliteStorage } = (await import(pathToFileURL(join(tree, 'packages/sqlite/src/index.ts')).href)) as typeof import('@tidings/sqlite');
const Database = createRequire(join(tree, 'packages/sqlite/package.json'))('better-sqlite3') as typeof import('better-sqlite3');

const file = join(tempDir('wal-frames'), 'bench.db');
const db = new Database(file);
// A handle of the caller's own: the storage starts no checkpointer, and the log is the test's to read.
const storage = sqliteStorage({ database: db });
await storage.migrate();
const tidings = createTidings({ storage, ...(values.mode === 'jobs' && { inlineInApp: false }) });
await tidings.workflows.upsert({ name: 'Bench', triggers: [{ identifier: 'bench' }], steps: [{ template: { type: 'in_app', content: 'Hello {{ subscriber.firstName }}, {{ payload.n }}' } }] });

let n = 0;
async function call(): Promise<void> {
  const events = Array.from({ length: 100 }, () => {
    n++;
    return { name: 'bench', to: { subscriberId: `w-${n}`, firstName: `S${n}` }, payload: { n } };
  });
  await tidings.triggerBulk(events);
  while ((await tidings.runDue()) > 0);
}

// Tables of some size first (a fresh B-tree's first pages are not a call's usual cost), then an empty log.
for (let i = 0; i < Number(values.warmup); i++) await call();
db.pragma('wal_autocheckpoint = 0');
db.pragma('wal_checkpoint(TRUNCATE)');
const calls = Number(values.calls);
for (let i = 0; i < calls; i++) await call();

const log = readFileSync(`${file}-wal`);
const pageSize = log.readUInt32BE(8);
const owners = new Map((db.prepare('select name, pageno from dbstat').all() as { name: string; pageno: number }[]).map((row) => [row.pageno, row.name] as const));
const perOwner = new Map<string, number>();
let frames = 0;
let commits = 0;
// The log: a 32-byte header, then frames of a 24-byte header (page number, then the database size on a commit's last frame) and a page.
for (let at = 32; at + 24 + pageSize <= log.length; at += 24 + pageSize) {
  const owner = owners.get(log.readUInt32BE(at)) ?? 'free pages';
  perOwner.set(owner, (perOwner.get(owner) ?? 0) + 1);
  frames++;
  if (log.readUInt32BE(at + 4) !== 0) commits++;
}
await storage.close();
db.close();
rmSync(file, { force: true });

const each = (count: number) => (count / calls).toFixed(1).padStart(6);
console.log(`${tree} (${values.mode}): ${each(frames).trim()} pages written per call of 100 events × 1, in ${each(commits).trim()} commits`);
for (const [owner, count] of [...perOwner].sort((a, b) => b[1] - a[1])) console.log(`${each(count)}  ${owner}`);
