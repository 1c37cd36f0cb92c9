import { join } from 'node:path';
import { createTidings } from '@tidings/core';
import { upsertSubscribers } from '@tidings/core/internal';
import { sqliteStorage } from '@tidings/sqlite';
import { repeat } from '../lib/stats.js';
import { freshName, tempDir } from '../lib/temp.js';
import type { BenchContext, Row } from './types.js';

/** Workload 3: one event to a topic of N subscribers on SQLite; seconds until every message is stored. */
export async function fanoutWorkload(ctx: BenchContext): Promise<Row[]> {
  const size = ctx.quick ? 5_000 : 100_000;
  const dir = tempDir('fanout');
  const storage = sqliteStorage({ filename: join(dir, `${freshName('fanout')}.db`) });
  const tidings = createTidings({ storage, batchSize: 1_000 });
  await tidings.workflows.upsert({ name: 'Fan', triggers: [{ identifier: 'fan' }], steps: [{ template: { type: 'in_app', content: 'News for {{ subscriber.firstName }}' } }] });
  const ids = Array.from({ length: size }, (_, i) => `member-${i}`);
  const now = new Date().toISOString();
  for (let i = 0; i < size; i += 5_000) {
    await storage.transaction((tx) => upsertSubscribers(tx, 'default', ids.slice(i, i + 5_000).map((subscriberId, k) => ({ _id: `i-${i + k}`, patch: { subscriberId, firstName: `M${i + k}` } })), now, 'default'));
    await tidings.topics.addSubscribers('everyone', ids.slice(i, i + 5_000));
  }
  const seconds = await repeat(ctx.quick ? 1 : 2, 0, async () => {
    const started = performance.now();
    const result = await tidings.trigger({ name: 'fan', to: { type: 'Topic', topicKey: 'everyone' } });
    await tidings.runDue();
    const elapsed = (performance.now() - started) / 1000;
    if ((await tidings.pending()).jobs.length !== 0 || !result.transactionId) throw new Error('fan-out did not finish');
    return elapsed;
  });
  await storage.close();
  ctx.log(`  topic fan-out of ${size}: ${seconds.median.toFixed(2)} s`);
  return [{ workload: `topic fan-out, ${size.toLocaleString('en')} subscribers, SQLite`, backend: 'sqlite', unit: 's until all stored', value: seconds.median, spread: seconds.spread, runs: seconds.runs, target: size === 100_000 ? '< 5 s' : '< 5 s at 100,000', met: size === 100_000 ? seconds.median < 5 : undefined }];
}
