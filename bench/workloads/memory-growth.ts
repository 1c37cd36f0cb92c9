import { join } from 'node:path';
import { createTidings } from '@tidings/core';
import { sqliteStorage } from '@tidings/sqlite';
import { freshName, tempDir } from '../lib/temp.js';
import type { BenchContext, Row } from './types.js';

/** Workload 7: RSS before and after N messages on SQLite (the process must not hold what it stored). */
export async function memoryWorkload(ctx: BenchContext): Promise<Row[]> {
  const total = ctx.quick ? 20_000 : 1_000_000;
  const dir = tempDir('rss');
  const storage = sqliteStorage({ filename: join(dir, `${freshName('rss')}.db`) });
  const tidings = createTidings({ storage, batchSize: 1_000 });
  await tidings.workflows.upsert({ name: 'Rss', triggers: [{ identifier: 'rss' }], steps: [{ template: { type: 'in_app', content: 'Message {{ payload.n }}' } }] });
  await tidings.triggerBulk(Array.from({ length: 100 }, (_, i) => ({ name: 'rss', to: `warm-${i}`, payload: { n: i } })));
  await tidings.runDue();
  global.gc?.();
  const before = process.memoryUsage().rss;
  for (let n = 0; n < total; n += 1_000) {
    // 100 events × 10 subscribers = 1,000 messages per round.
    await tidings.triggerBulk(Array.from({ length: 100 }, (_, e) => ({ name: 'rss', to: Array.from({ length: 10 }, (_, k) => `s-${(n + e * 10 + k) % 50_000}`), payload: { n: n + e } })));
    await tidings.runDue();
  }
  global.gc?.();
  const grown = (process.memoryUsage().rss - before) / 1_048_576;
  await storage.close();
  ctx.log(`  RSS grew ${grown.toFixed(1)} MB over ${total} messages`);
  return [{ workload: `RSS growth over ${total.toLocaleString('en')} messages, SQLite`, backend: 'sqlite', unit: 'MB', value: grown, spread: 0, runs: 1, target: total === 1_000_000 ? '< 100 MB' : '< 100 MB at 1,000,000', met: total === 1_000_000 ? grown < 100 : undefined }];
}
