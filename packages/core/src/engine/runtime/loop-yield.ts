/** How long a call may keep the event loop before it lets other work of the process run. */
const HOLD_MS = 20;

/**
 * Resolves on the event loop's next turn (after pending I/O and timers), not as a microtask: on a
 * synchronous driver (SQLite) a chain of storage calls never lets anything else run until it awaits
 * this.
 */
export const nextTurn = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * A pause for long loops (the walks of a trigger call or of a batch of jobs): it yields to the event
 * loop once HOLD_MS have passed since the last yield, and costs nothing before, so a call of a
 * thousand walks never keeps a health check or another request waiting for long. Other storage calls
 * still wait for the caller's transaction, as they would anyway.
 */
export function loopYielder(): () => Promise<void> {
  let since = performance.now();
  return async () => {
    if (performance.now() - since < HOLD_MS) return;
    await nextTurn();
    since = performance.now();
  };
}

/**
 * Turns for synchronous work of concurrent lanes (a batch's walks render templates without awaiting):
 * one at a time, each after a `loopYielder` pause decided once the one before has finished, so lanes
 * that all started together never render back to back without the loop turning between them.
 */
export function cpuTurns(): <T>(work: () => Promise<T>) => Promise<T> {
  const breathe = loopYielder();
  let last: Promise<unknown> = Promise.resolve();
  return (work) => {
    const mine = last.then(async () => {
      await breathe();
      return work();
    });
    last = mine.catch(() => undefined);
    return mine;
  };
}
