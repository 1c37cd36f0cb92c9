import type { Storage, StorageRepositories } from '../storage.js';
import { wrapRepositories } from '../wrap-repositories.js';

/**
 * Where a fault strikes. Fault points are counted from `arm()`: every port method call (inside a
 * transaction or not) and every transaction's commit is one point.
 * - `throw`: the call throws before it runs; at a commit, the transaction is rolled back and throws.
 * - `commit-then-throw`: the call runs (a commit commits) and then throws, so the caller never learns
 *   that it succeeded. Inside a transaction this throws out of it, which rolls it back.
 */
export type FaultMode = 'throw' | 'commit-then-throw';

export interface FaultPlan {
  /** The fault point (0-based, from `arm()`) that fails; later points pass. */
  readonly at: number;
  readonly mode: FaultMode;
}

/** The error an injected fault throws. */
export class InjectedFault extends Error {
  constructor(readonly point: number, readonly where: string, readonly mode: FaultMode) {
    super(`injected fault #${point} (${mode}) at ${where}`);
    this.name = 'InjectedFault';
  }
}

export interface FaultyStorage extends Storage {
  /** Starts counting fault points; with a plan, the point it names fails once. */
  arm(plan?: FaultPlan | null): void;
  /** Stops counting and injecting. */
  disarm(): void;
  /** Fault points passed since `arm()`, and what each was (`jobs.claimDue`, `commit`, …). */
  readonly points: readonly string[];
  /** The fault that fired, if any. */
  readonly fired: InjectedFault | null;
}

/**
 * Wraps a storage so that a fault strikes at a planned point: deterministic, unlike the timing of a
 * kill, so a test can try every point of an operation one by one.
 */
export function faultyStorage(storage: Storage): FaultyStorage {
  let armed = false;
  let plan: FaultPlan | null = null;
  let fired: InjectedFault | null = null;
  const points: string[] = [];

  /** Counts a point; returns the fault to raise there (before or after it runs), if it is the one. */
  function pass(where: string): InjectedFault | null {
    if (!armed) return null;
    const point = points.length;
    points.push(where);
    if (!plan || fired || plan.at !== point) return null;
    fired = new InjectedFault(point, where, plan.mode);
    return fired;
  }

  const wrap = (repositories: StorageRepositories) =>
    wrapRepositories(repositories, async (call, where) => {
      const fault = pass(where);
      if (fault?.mode === 'throw') throw fault;
      const result = await call();
      if (fault) throw fault;
      return result;
    });

  return {
    ...wrap(storage),
    capabilities: storage.capabilities,
    close: () => storage.close(),
    ...(storage.subscribeJobs && { subscribeJobs: storage.subscribeJobs.bind(storage) }),
    async transaction(fn) {
      let fault: InjectedFault | null = null;
      const result = await storage.transaction(async (tx) => {
        const value = await fn(wrap(tx));
        fault = pass('commit');
        if (fault?.mode === 'throw') throw fault;
        return value;
      });
      if (fault) throw fault;
      return result;
    },
    arm(next = null) {
      armed = true;
      plan = next;
      fired = null;
      points.length = 0;
    },
    disarm() {
      armed = false;
      plan = null;
    },
    get points() {
      return points;
    },
    get fired() {
      return fired;
    },
  };
}
