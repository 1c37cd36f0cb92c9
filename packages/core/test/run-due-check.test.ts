import { memoryStorage } from '@tidings/memory';
import { describe, expect, it } from 'vitest';
import { createTidings } from '../src/index.js';
import type { ClaimOptions } from '../src/storage.js';
import { manualClock } from '../src/testing/index.js';
import { storageWith } from '../src/testing/storage-with.js';

/** A shared memory storage whose claims are counted, and two engines over it (as two processes would be). */
function counted() {
  const memory = memoryStorage();
  const claims: string[] = [];
  const storage = storageWith(memory, {
    jobs: {
      ...memory.jobs,
      claimDue: (options: ClaimOptions) => {
        claims.push((options.kinds ?? ['walk lane']).join(','));
        return memory.jobs.claimDue(options);
      },
    },
  });
  const clock = manualClock('2026-06-01T12:00:00.000Z');
  return { storage, claims, clock, engine: () => createTidings({ storage, clock }) };
}

const DELAYED = { name: 'Later', triggers: [{ identifier: 'later' }], steps: [{ template: { type: 'delay' as const }, metadata: { type: 'regular' as const, amount: 5, unit: 'minutes' as const } }, { template: { type: 'in_app' as const, content: 'later' } }] };

describe('runDue when no job is due', () => {
  it('claims nothing after a trigger whose walks were all stored inline, and still runs what comes due by the clock or from another engine', async () => {
    const { claims, clock, engine } = counted();
    const a = engine();
    await a.workflows.upsert({ name: 'Now', triggers: [{ identifier: 'now' }], steps: [{ template: { type: 'in_app', content: 'hi' } }] });
    await a.workflows.upsert(DELAYED);
    expect(await a.runDue()).toBe(0);

    // Stored inline: no job was enqueued, so one read finds nothing due and no lane claims.
    claims.length = 0;
    await a.triggerBulk([{ name: 'now', to: 'ada' }, { name: 'now', to: 'bob' }]);
    expect(await a.runDue()).toBe(0);
    expect(claims).toEqual([]);

    // Enqueued by this engine: its lanes claim at once; the walk runs to its delay.
    const { transactionId } = await a.trigger({ name: 'later', to: 'ada' });
    expect(await a.runDue()).toBe(1);
    expect(claims.length).toBeGreaterThan(0);

    // Due by the clock alone (nothing enqueued since): the read finds it and it runs.
    claims.length = 0;
    expect(await a.runDue()).toBe(0);
    expect(claims).toEqual([]);
    clock.advance(5 * 60_000);
    expect(await a.runDue()).toBe(1);
    expect((await a.messages.byTransaction(transactionId!)).map((m) => m.content)).toEqual(['later']);

    // Enqueued by another engine over the same storage, which this one never heard of: found and run.
    const b = engine();
    const other = await b.trigger({ name: 'later', to: 'bob' });
    expect(await a.runDue()).toBe(1);
    clock.advance(5 * 60_000);
    expect(await a.runDue()).toBe(1);
    expect((await a.messages.byTransaction(other.transactionId!)).map((m) => m.subscriberId)).toEqual(['bob']);
  });
});
