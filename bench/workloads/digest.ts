import { join } from 'node:path';
import { createTidings, manualClock } from '@tidings/core';
import { sqliteStorage } from '@tidings/sqlite';
import { freshName, tempDir } from '../lib/temp.js';
import type { BenchContext, Row } from './types.js';

/** Workload 4: N events into 1,000 digests on SQLite, then the flush. */
export async function digestWorkload(ctx: BenchContext): Promise<Row[]> {
  const events = ctx.quick ? 5_000 : 100_000;
  const digests = 1_000;
  const dir = tempDir('digest');
  const storage = sqliteStorage({ filename: join(dir, `${freshName('digest')}.db`) });
  const clock = manualClock(new Date());
  const tidings = createTidings({ storage, clock, batchSize: 1_000 });
  await tidings.workflows.upsert({
    name: 'Digest',
    triggers: [{ identifier: 'digest' }],
    steps: [{ template: { type: 'digest' }, metadata: { type: 'regular', amount: 1, unit: 'hours' } }, { template: { type: 'in_app', content: '{{ step.total_count }} updates' } }],
  });
  const joinStarted = performance.now();
  for (let i = 0; i < events; i += 100) {
    await tidings.triggerBulk(Array.from({ length: 100 }, (_, k) => ({ name: 'digest', to: `d-${(i + k) % digests}`, payload: { i: i + k } })));
    await tidings.runDue();
  }
  const joinSeconds = (performance.now() - joinStarted) / 1000;
  clock.advance(3_600_000);
  const flushStarted = performance.now();
  await tidings.runDue();
  const flushSeconds = (performance.now() - flushStarted) / 1000;
  const open = (await tidings.pending()).digests.length;
  if (open !== 0) throw new Error(`${open} digests still open after the flush`);
  await storage.close();
  ctx.log(`  digest: ${events} events joined at ${Math.round(events / joinSeconds)}/s, ${digests} digests flushed in ${flushSeconds.toFixed(2)} s`);
  return [
    { workload: `digest join, ${events.toLocaleString('en')} events into ${digests} digests, SQLite`, backend: 'sqlite', unit: 'events/s', value: events / joinSeconds, spread: 0, runs: 1 },
    { workload: `digest flush of ${digests} digests, SQLite`, backend: 'sqlite', unit: 's', value: flushSeconds, spread: 0, runs: 1 },
  ];
}
