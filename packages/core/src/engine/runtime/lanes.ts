/**
 * How many jobs of one runner run at once, across the batches it has in hand (`deliveryConcurrency`),
 * and when it may claim another batch while some are running.
 */

/** The most batches a runner keeps in hand at once: enough that one batch's provider waits overlap the next one's work. */
export const MAX_BATCHES_IN_HAND = 4;

/**
 * A count of lanes shared by a runner's batches: `take` waits for a free one, `give` frees it (first
 * come, first served). A free lane is taken at once, with nothing to wait for (`take` returns
 * undefined): a batch of a hundred jobs then makes no promise for lanes it never waited for.
 */
export function lanes(limit: number) {
  let free = limit;
  const waiting: (() => void)[] = [];
  return {
    take(): Promise<void> | undefined {
      if (free > 0) {
        free--;
        return undefined;
      }
      return new Promise<void>((resolve) => waiting.push(resolve));
    },
    give(): void {
      const next = waiting.shift();
      if (next) next();
      else free++;
    },
  };
}

export type Lanes = ReturnType<typeof lanes>;

/** Runs `fn` over `items`, each holding one of `shared` while it runs, keeping results in order. */
export function mapInLanes<T, R>(items: readonly T[], shared: Lanes, fn: (item: T) => Promise<R>): Promise<R[]> {
  return Promise.all(
    items.map(async (item) => {
      const wait = shared.take();
      if (wait) await wait;
      try {
        return await fn(item);
      } finally {
        shared.give();
      }
    }),
  );
}

/**
 * Whether a runner with `batches` in hand (`jobs` jobs between them) claims another batch of up to
 * `batchSize` now: only while a full one more still fits in its lanes, and never past
 * MAX_BATCHES_IN_HAND. With `deliveryConcurrency` at most `batchSize`, batches never overlap.
 */
export function mayClaimMore(batches: number, jobs: number, batchSize: number, concurrency: number): boolean {
  return batches < MAX_BATCHES_IN_HAND && jobs + batchSize <= concurrency;
}
