/** Where the engine reads time. Pure modules never read it: they take instants as arguments. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export interface ManualClock extends Clock {
  set(instant: Date | string): void;
  advance(ms: number): Date;
}

/** A clock that moves only when told to: for tests and replays. */
export function manualClock(start: Date | string = '2026-01-01T00:00:00.000Z'): ManualClock {
  let current = new Date(start);
  return {
    now: () => new Date(current.getTime()),
    set(instant) {
      current = new Date(instant);
    },
    advance(ms) {
      current = new Date(current.getTime() + ms);
      return new Date(current.getTime());
    },
  };
}
