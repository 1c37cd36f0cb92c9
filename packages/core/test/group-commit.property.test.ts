import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { groupCommit } from '../src/engine/trigger/group-commit.js';

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
          const committer = groupCommit<{ id: number; weight: number }, string>(
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
              const answer = committer.begin().commit({ id, weight });
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

  it('calls made in one turn of the event loop share a commit; a call after it has its own', async () => {
    const seen: number[][] = [];
    const committer = groupCommit<number, number>(async (inputs) => {
      seen.push([...inputs]);
      return inputs.map((i) => i * 2);
    }, { weight: () => 1, maxWeight: 10 });
    const commit = (n: number) => committer.begin().commit(n);
    expect(await Promise.all([commit(1), commit(2)])).toEqual([2, 4]);
    expect(await commit(3)).toBe(6);
    expect(seen).toEqual([[1, 2], [3]]);
  });
});

describe('groupCommit — calls begun together', () => {
  it('a group waits for the calls begun before it formed, however long their work takes; one that gives up is not waited for', async () => {
    const seen: number[][] = [];
    const committer = groupCommit<number, number>(async (inputs) => {
      seen.push([...inputs]);
      return [...inputs];
    }, { weight: () => 1, maxWeight: 10 });
    const slow = committer.begin();
    const gone = committer.begin();
    const first = committer.begin().commit(1);
    // Several turns of the event loop pass: the group still waits for the slow call.
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(seen).toEqual([]);
    gone.abandon();
    const second = slow.commit(2);
    expect(await Promise.all([first, second])).toEqual([1, 2]);
    expect(seen).toEqual([[1, 2]]);
    // A call begun while a group commits joins the next group.
    const later = committer.begin();
    const third = committer.begin().commit(3);
    const fourth = later.commit(4);
    expect(await Promise.all([third, fourth])).toEqual([3, 4]);
    expect(seen).toEqual([[1, 2], [3, 4]]);
  });
});
