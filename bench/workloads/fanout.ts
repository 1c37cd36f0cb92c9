import { join } from 'node:path';
import { createTidings } from '@tidings/core';
import { upsertSubscribers } from '@tidings/core/internal';
import { sqliteStorage } from '@tidings/sqlite';
import { repeat } from '../lib/stats.js';
import { freshName, tempDir } from '../lib/temp.js';
import type { BenchContext, Row } from './types.js';

/** Subscribers and a topic of `size` members, written straight through the store (setup, not measured). */
export async function seedTopic(tidings: ReturnType<typeof createTidings>, size: number) {
  const ids = Array.from({ length: size }, (_, i) => `member-${i}`);
  const now = new Date().toISOString();
  for (let i = 0; i < size; i += 5_000) {
    await tidings.storage.transaction((tx) => upsertSubscribers(tx, 'default', ids.slice(i, i + 5_000).map((subscriberId, k) => ({ _id: `i-${i + k}`, patch: { subscriberId, firstName: `M${i + k}` } })), now, 'default'));
    await tidings.topics.addSubscribers('everyone', ids.slice(i, i + 5_000));
  }
}

/**
 * One trigger to the whole topic, timed until every message is stored. RSS is sampled as messages are
 * made (the engine's events fire inside the job loop, which a synchronous driver keeps from yielding
 * to timers) and once the trigger returns; growth is the highest sample less the RSS just before.
 */
async function fanOnce(tidings: ReturnType<typeof createTidings>) {
  global.gc?.();
  const before = process.memoryUsage().rss;
  let peak = before;
  let made = 0;
  const sample = () => {
    if (++made % 1_000 === 0) peak = Math.max(peak, process.memoryUsage().rss);
  };
  tidings.events.on('message.created', sample);
  const started = performance.now();
  const result = await tidings.trigger({ name: 'fan', to: { type: 'Topic', topicKey: 'everyone' } });
  const triggered = performance.now();
  peak = Math.max(peak, process.memoryUsage().rss);
  await tidings.runDue();
  const done = performance.now();
  tidings.events.off('message.created', sample);
  peak = Math.max(peak, process.memoryUsage().rss);
  if ((await tidings.pending()).jobs.length !== 0 || !result.transactionId) throw new Error('fan-out did not finish');
  return { seconds: (done - started) / 1000, triggerSeconds: (triggered - started) / 1000, growthMb: (peak - before) / 1_048_576 };
}

/**
 * Workload 3: one event to a topic on SQLite with default options (fan-out jobs of 100 members, their
 * in-app messages stored in each job's commit); seconds until every message is stored, and for the
 * million-member topic the peak RSS growth while it runs.
 */
export async function fanoutWorkload(ctx: BenchContext): Promise<Row[]> {
  const rows: Row[] = [];
  for (const size of ctx.quick ? [5_000] : [100_000, 1_000_000]) {
    const dir = tempDir('fanout');
    const storage = sqliteStorage({ filename: join(dir, `${freshName('fanout')}.db`) });
    const tidings = createTidings({ storage });
    await tidings.workflows.upsert({ name: 'Fan', triggers: [{ identifier: 'fan' }], steps: [{ template: { type: 'in_app', content: 'News for {{ subscriber.firstName }}' } }] });
    await seedTopic(tidings, size);
    let growth = 0;
    let triggerSeconds = 0;
    const seconds = await repeat(size >= 1_000_000 || ctx.quick ? 1 : 2, 0, async () => {
      const once = await fanOnce(tidings);
      growth = Math.max(growth, once.growthMb);
      triggerSeconds = once.triggerSeconds;
      return once.seconds;
    });
    await storage.close();
    ctx.log(`  topic fan-out of ${size}: ${seconds.median.toFixed(2)} s (the trigger itself ${triggerSeconds.toFixed(2)} s), peak RSS growth ${growth.toFixed(0)} MB`);
    const limit = size >= 1_000_000 ? 30 : 5;
    rows.push({ workload: `topic fan-out, ${size.toLocaleString('en')} subscribers, SQLite, default options`, backend: 'sqlite', unit: 's until all stored', value: seconds.median, spread: seconds.spread, runs: seconds.runs, target: `< ${limit} s`, met: ctx.quick ? undefined : seconds.median < limit });
    if (size >= 1_000_000) rows.push({ workload: `topic fan-out, ${size.toLocaleString('en')} subscribers, SQLite: peak RSS growth`, backend: 'sqlite', unit: 'MB', value: growth, spread: 0, runs: 1, target: '< 300 MB', met: growth < 300 });
  }
  return rows;
}
