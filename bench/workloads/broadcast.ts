import { join } from 'node:path';
import { sqliteStorage } from '@tidings/sqlite';
import { broadcastAtScale } from '../../test-support/broadcast-scale.js';
import { freshName, tempDir } from '../lib/temp.js';
import type { BenchContext, Row } from './types.js';

/**
 * A broadcast (`tidings.broadcast`) to every subscriber of a SQLite environment with default options:
 * seconds until every message is stored, and the most the live heap grew by at any transaction (after
 * a full GC there). The 100,000-subscriber run is also a test (packages/sqlite/test/broadcast-scale.test.ts);
 * this one goes to a million.
 */
export async function broadcastWorkload(ctx: BenchContext): Promise<Row[]> {
  const rows: Row[] = [];
  for (const size of ctx.quick ? [5_000] : [1_000_000]) {
    const storage = sqliteStorage({ filename: join(tempDir('broadcast'), `${freshName('broadcast')}.db`) });
    const run = await broadcastAtScale(storage, size);
    await storage.close();
    if (run.messages !== size || run.reached !== size || run.notifications !== 1) throw new Error(`the broadcast stored ${run.messages} messages for ${run.reached} of ${size} subscribers`);
    ctx.log(`  broadcast to ${size}: ${run.seconds.toFixed(2)} s (the call ${run.triggerSeconds.toFixed(2)} s), live heap +${run.peakHeapGrowthMb.toFixed(1)} MB at most, largest storage call ${run.largestCall}`);
    const full = size >= 1_000_000;
    const label = `broadcast, ${size.toLocaleString('en')} subscribers, SQLite, default options`;
    rows.push({ workload: label, backend: 'sqlite', unit: 's until all stored', value: run.seconds, spread: 0, runs: 1 });
    rows.push({ workload: `${label}: peak live heap growth`, backend: 'sqlite', unit: 'MB', value: run.peakHeapGrowthMb, spread: 0, runs: 1, target: '< 40 MB', ...(full && { met: run.peakHeapGrowthMb < 40 }) });
  }
  return rows;
}
