import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { broadcastAtScale } from '../../../test-support/broadcast-scale.js';
import { sqliteStorage } from '../src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'tidings-broadcast-scale-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Live heap a broadcast may grow by, whatever the audience: one job batch's commit (100 fan-out jobs of
 * 100 subscribers: 10,000 messages, about 13 MB measured) with room to spare. Holding every message of
 * 100,000 subscribers would take about ten times that; speed does not enter (the heap is sampled after
 * a full GC at the end of each transaction, not on a timer).
 */
const HEAP_BOUND_MB = 40;
/** The most ids or records one storage call may carry: a page of 10,000 ids, or one batch's messages. */
const CALL_BOUND = 10_000;

it('a broadcast to 100,000 subscribers on SQLite stores each message once, as one trigger, with flat memory (paged fan-out)', async () => {
  const storage = sqliteStorage({ filename: join(dir, 'broadcast.db') });
  try {
    const run = await broadcastAtScale(storage, 100_000);
    console.log(`broadcast to ${run.subscribers}: ${run.seconds.toFixed(1)} s (the call ${run.triggerSeconds.toFixed(2)} s), largest call ${run.largestCall}, live heap +${run.peakHeapGrowthMb.toFixed(1)} MB at most over ${run.transactions} transactions, +${run.retainedHeapGrowthMb.toFixed(1)} MB after`);
    expect(run).toMatchObject({ messages: 100_000, reached: 100_000, notifications: 1 });
    expect(run.largestCall).toBeLessThanOrEqual(CALL_BOUND);
    expect(run.peakHeapGrowthMb).toBeLessThan(HEAP_BOUND_MB);
    expect(run.retainedHeapGrowthMb).toBeLessThan(HEAP_BOUND_MB / 4);
    // One trigger in explain: the last subscriber's walk is recorded under the broadcast's transactionId.
    const [record] = await storage.traces.list('default', run.transactionId, 'member-99999');
    expect(record).toMatchObject({ transactionId: run.transactionId, entries: [{ type: 'in_app', decision: 'delivered' }] });
  } finally {
    await storage.close();
  }
});
