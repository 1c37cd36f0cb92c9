import { describe, expect, it } from 'vitest';
import { lanes, mapInLanes, mayClaimMore, MAX_BATCHES_IN_HAND } from '../src/engine/runtime/lanes.js';

describe('the job runner lanes', () => {
  it('batches overlap only while a full batch more fits in the lanes, and never past the most batches in hand', () => {
    expect(mayClaimMore(1, 100, 100, 200)).toBe(true);
    expect(mayClaimMore(2, 200, 100, 200)).toBe(false);
    // At or below the batch size (the old default of 16 with batches of 100), batches never overlap.
    expect(mayClaimMore(1, 100, 100, 16)).toBe(false);
    expect(mayClaimMore(1, 1, 1, 1_000)).toBe(true);
    expect(mayClaimMore(MAX_BATCHES_IN_HAND, 4, 1, 1_000)).toBe(false);
  });

  it('jobs of several batches share one count of lanes, and results keep their order', async () => {
    const shared = lanes(3);
    let running = 0;
    let most = 0;
    const work = async (n: number) => {
      running++;
      most = Math.max(most, running);
      await new Promise((resolve) => setImmediate(resolve));
      running--;
      return n * 2;
    };
    const [a, b] = await Promise.all([mapInLanes([1, 2, 3, 4], shared, work), mapInLanes([5, 6, 7], shared, work)]);
    expect(a).toEqual([2, 4, 6, 8]);
    expect(b).toEqual([10, 12, 14]);
    expect(most).toBe(3);
  });
});
