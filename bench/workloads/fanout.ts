import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTidings, type WorkflowInput } from '@tidings/core';
import { upsertSubscribers } from '@tidings/core/internal';
import { sqliteStorage } from '@tidings/sqlite';
import { tsArguments } from '../lib/packages.js';
import { repeat } from '../lib/stats.js';
import { freshName, tempDir } from '../lib/temp.js';
import type { BenchContext, Row } from './types.js';

/** The fan-out workloads' workflow: one in-app step that reads the subscriber. */
export const FAN_WORKFLOW: WorkflowInput = { name: 'Fan', triggers: [{ identifier: 'fan' }], steps: [{ template: { type: 'in_app', content: 'News for {{ subscriber.firstName }}' } }] };

/** Subscribers and a topic of `size` members, written straight through the store (setup, not measured). */
export async function seedTopic(tidings: ReturnType<typeof createTidings>, size: number) {
  const ids = Array.from({ length: size }, (_, i) => `member-${i}`);
  const now = new Date().toISOString();
  for (let i = 0; i < size; i += 5_000) {
    await tidings.storage.transaction((tx) => upsertSubscribers(tx, 'default', ids.slice(i, i + 5_000).map((subscriberId, k) => ({ _id: `i-${i + k}`, patch: { subscriberId, firstName: `M${i + k}` } })), now, 'default'));
    await tidings.topics.addSubscribers('everyone', ids.slice(i, i + 5_000));
  }
}

const CHILD = fileURLToPath(new URL('./fanout-child.ts', import.meta.url));

/** One fan-out in a process of its own (see fanout-child.ts): seconds, the trigger's share, RSS growth. */
async function fanOnce(filename: string): Promise<{ seconds: number; triggerSeconds: number; growthMb: number }> {
  const child = spawn(process.execPath, ['--expose-gc', ...tsArguments(), CHILD, filename], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  const line = /RESULT (.*)/.exec(out)?.[1];
  if (code !== 0 || !line) throw new Error(`the fan-out process exited with ${code}: ${out}`);
  return JSON.parse(line);
}

/**
 * Workload 3: one event to a topic on SQLite with default options (fan-out jobs of 100 members, their
 * in-app messages stored in each job's commit); seconds until every message is stored, and for the
 * million-member topic the peak RSS growth of the process that ran it.
 */
export async function fanoutWorkload(ctx: BenchContext): Promise<Row[]> {
  const rows: Row[] = [];
  for (const size of ctx.quick ? [5_000] : [100_000, 1_000_000]) {
    const filename = join(tempDir('fanout'), `${freshName('fanout')}.db`);
    const storage = sqliteStorage({ filename });
    const tidings = createTidings({ storage });
    await tidings.workflows.upsert(FAN_WORKFLOW);
    await seedTopic(tidings, size);
    await storage.close();
    let growth = 0;
    let triggerSeconds = 0;
    const seconds = await repeat(size >= 1_000_000 || ctx.quick ? 1 : 2, 0, async () => {
      const once = await fanOnce(filename);
      growth = Math.max(growth, once.growthMb);
      triggerSeconds = once.triggerSeconds;
      return once.seconds;
    });
    ctx.log(`  topic fan-out of ${size}: ${seconds.median.toFixed(2)} s (the trigger itself ${triggerSeconds.toFixed(2)} s), peak RSS growth ${growth.toFixed(0)} MB`);
    const limit = size >= 1_000_000 ? 30 : 5;
    rows.push({ workload: `topic fan-out, ${size.toLocaleString('en')} subscribers, SQLite, default options`, backend: 'sqlite', unit: 's until all stored', value: seconds.median, spread: seconds.spread, runs: seconds.runs, target: `< ${limit} s`, met: ctx.quick ? undefined : seconds.median < limit });
    if (size >= 1_000_000) rows.push({ workload: `topic fan-out, ${size.toLocaleString('en')} subscribers, SQLite: peak RSS growth of its process`, backend: 'sqlite', unit: 'MB', value: growth, spread: 0, runs: 1, target: '< 300 MB', met: growth < 300 });
  }
  return rows;
}
