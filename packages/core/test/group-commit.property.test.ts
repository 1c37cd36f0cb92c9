import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { groupCommit } from '../src/engine/group-commit.js';

/**
 * The model: calls arrive in waves (each wave while the previous commit is in flight); every call is
 * answered exactly once, with its own output, by the commit of the group it joined; a group is the
 * longest run of waiting calls, in arrival order, that fits the weight limit (at least one call); a
 * failed commit fails every call of its group and no other.
 */
describe('groupCommit', () => {
  it('answers every call once with its own result, groups in arrival order within the weight limit, fails only the group whose commit failed', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 1, max: 8 }),
        fc.func(fc.boolean()),
        async (waves, maxWeight, fails) => {
          const groups: number[][] = [];
          let next = 0;
          const arrivals: Promise<void>[] = [];
          const released: (() => void)[] = [];
          const commit = groupCommit<{ id: number; weight: number }, string>(
            async (inputs) => {
              groups.push(inputs.map((i) => i.id));
              // Hold the commit until the test lets it go, so the next wave arrives while it is in flight.
              await new Promise<void>((resolve) => released.push(resolve));
              if (fails(groups.length)) throw new Error(`group ${groups.length} failed`);
              return inputs.map((i) => `done ${i.id}`);
            },
            { weight: (i) => i.weight, maxWeight },
          );
          const outcomes = new Map<number, Promise<string>>();
          const weights = new Map<number, number>();
          for (const wave of waves) {
            for (const weight of wave) {
              const id = next++;
              weights.set(id, weight);
              const answer = commit({ id, weight });
              answer.catch(() => undefined);
              outcomes.set(id, answer);
            }
            await Promise.resolve();
            released.shift()?.();
            arrivals.push(new Promise((resolve) => setImmediate(resolve)));
            await arrivals.at(-1);
          }
          while (released.length > 0 || groups.flat().length < next) {
            released.shift()?.();
            await new Promise((resolve) => setImmediate(resolve));
          }
          // Arrival order, each call in exactly one group.
          expect(groups.flat()).toEqual([...Array(next).keys()]);
          for (const group of groups) {
            const weight = group.reduce((sum, id) => sum + weights.get(id)!, 0);
            if (group.length > 1) expect(weight).toBeLessThanOrEqual(maxWeight);
          }
          for (const [g, group] of groups.entries()) {
            for (const id of group) {
              const settled = await outcomes.get(id)!.then((value) => ({ value }), (error: Error) => ({ error: error.message }));
              expect(settled).toEqual(fails(g + 1) ? { error: `group ${g + 1} failed` } : { value: `done ${id}` });
            }
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('a call that finds no commit in flight starts one at once, alone', async () => {
    const seen: number[][] = [];
    const commit = groupCommit<number, number>(async (inputs) => {
      seen.push([...inputs]);
      return inputs.map((i) => i * 2);
    }, { weight: () => 1, maxWeight: 10 });
    expect(await commit(1)).toBe(2);
    expect(await commit(2)).toBe(4);
    expect(seen).toEqual([[1], [2]]);
  });
});
