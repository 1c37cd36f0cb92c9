import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { windowDecision } from '../src/frequency/sliding-window.js';
import { testEngine } from './helpers.js';

const MINUTE = 60_000;

/** The reference: runs at `at`, in order, pass while fewer than `limit` passed within the window before them. */
function referencePasses(arrivals: readonly { at: number; count: number }[], limit: number, windowMs: number): number[] {
  const passed: number[] = [];
  for (const { at, count } of arrivals) {
    for (let i = 0; i < count; i++) if (passed.filter((t) => t > at - windowMs && t <= at).length < limit) passed.push(at);
  }
  return passed;
}

/** At most `limit` of `instants` in any window of `windowMs` ending at one of them. */
function maxInAnyWindow(instants: readonly number[], windowMs: number): number {
  return Math.max(0, ...instants.map((end) => instants.filter((t) => t > end - windowMs && t <= end).length));
}

// Gaps between trigger times (minutes) and how many events each time brings.
const arrivalsArb = fc.array(fc.record({ gap: fc.integer({ min: 0, max: 90 }), count: fc.integer({ min: 0, max: 4 }), workflow: fc.constantFrom('a', 'b') }), { minLength: 1, maxLength: 12 });

describe('frequency — properties with the manual clock', () => {
  it('windowDecision: allowed exactly when fewer than limit hits are in (now - length, now]; freesAt is the first instant one more fits', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 100 }), { maxLength: 12 }), fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 60 }), (offsets, limit, length) => {
        const now = 100;
        const hits = offsets.map((o) => new Date(o).toISOString());
        const decision = windowDecision(hits, limit, new Date(now), length);
        const inWindow = offsets.filter((o) => o > now - length && o <= now).length;
        expect(decision.allowed).toBe(inWindow < limit);
        if (decision.freesAt) {
          const at = decision.freesAt.getTime();
          const countAt = (t: number) => offsets.filter((o) => o > t - length && o <= now).length;
          expect(countAt(at)).toBeLessThan(limit);
          expect(countAt(at - 1)).toBeGreaterThanOrEqual(limit);
        }
      }),
    );
  });

  /**
   * Plays the arrivals on the manual clock (each name a workflow, ids 't' or the arrival's own), then
   * checks Ada's messages: never more than `limit` in any window, and exactly what the reference passes.
   */
  async function checkAgainstReference(engine: ReturnType<typeof testEngine>, arrivals: readonly { gap: number; count: number; workflow: 'a' | 'b' }[], name: (workflow: 'a' | 'b') => string, limit: number, windowMs: number) {
    const { tidings, clock } = engine;
    const start = clock.now().getTime();
    const timed: { at: number; count: number }[] = [];
    for (const { gap, count, workflow } of arrivals) {
      clock.advance(gap * MINUTE);
      if (count > 0) await tidings.triggerBulk(Array.from({ length: count }, () => ({ name: name(workflow), to: 'ada' })));
      await tidings.runDue();
      timed.push({ at: clock.now().getTime() - start, count });
    }
    const delivered = (await tidings.messages.feed('ada', { limit: 100 })).items.map((m) => Date.parse(m.createdAt) - start);
    expect(maxInAnyWindow(delivered, windowMs)).toBeLessThanOrEqual(limit);
    expect([...delivered].sort((x, y) => x - y)).toEqual(referencePasses(timed, limit, windowMs));
  }

  it('a throttle step never lets more than `limit` runs through in any window, and lets through exactly what the reference does', async () => {
    await fc.assert(
      fc.asyncProperty(arrivalsArb, fc.integer({ min: 1, max: 3 }), fc.integer({ min: 10, max: 120 }), async (arrivals, limit, windowMinutes) => {
        const engine = testEngine();
        await engine.tidings.workflows.upsert({ name: 't', triggers: [{ identifier: 't' }], steps: [{ template: { type: 'throttle' }, metadata: { amount: windowMinutes, unit: 'minutes', limit } }, { template: { type: 'in_app', content: 'x' } }] });
        await checkAgainstReference(engine, arrivals, () => 't', limit, windowMinutes * MINUTE);
      }),
      { numRuns: 40 },
    );
  });

  it('a cap over two workflows never lets more than `limit` messages of either through in any window, and sends exactly what the reference does', async () => {
    await fc.assert(
      fc.asyncProperty(arrivalsArb, fc.integer({ min: 1, max: 3 }), fc.integer({ min: 10, max: 120 }), async (arrivals, limit, windowMinutes) => {
        const engine = testEngine({ caps: [{ tags: ['marketing'], limit, per: { amount: windowMinutes, unit: 'minutes' } }] });
        for (const id of ['a', 'b']) await engine.tidings.workflows.upsert({ name: id, triggers: [{ identifier: id }], tags: ['marketing'], steps: [{ template: { type: 'in_app', content: id } }] });
        await checkAgainstReference(engine, arrivals, (workflow) => workflow, limit, windowMinutes * MINUTE);
      }),
      { numRuns: 40 },
    );
  });
});
