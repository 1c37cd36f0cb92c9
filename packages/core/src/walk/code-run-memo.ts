import type { JsonObject, Notification, Subscriber } from '../schemas/index.js';
import type { CodeStepRun } from './code-workflow.js';

/**
 * The runs of a code workflow's function for one walk, made before the trigger's write transaction
 * for this notification, this subscriber (as the transaction was to leave it) and locale, by the
 * results each run was given: the transaction's walk replays them instead of running user code.
 */
export interface PrecomputedRuns {
  readonly notification: Notification;
  readonly subscriber: Subscriber;
  readonly locale: string;
  readonly runs: ReadonlyMap<string, CodeStepRun>;
}

/** A run the walk asked for was not made beforehand (it sees other data): the walk goes to a job. */
export class NotPrecomputed extends Error {
  constructor() {
    super('this run of the workflow was not made before the transaction');
    this.name = 'NotPrecomputed';
  }
}

/** The results a run is given, as text: the key of a precomputed run. */
export const resultsKey = (results: ReadonlyMap<string, JsonObject>): string => (results.size === 0 ? '' : JSON.stringify([...results]));

/** Members the write that stores a subscriber makes: a run made beforehand may have seen others. */
const MADE_BY_WRITE: ReadonlySet<string> = new Set(['_id', 'createdAt', 'updatedAt']);

/** Whether two subscriber documents hold the same data, but for what their writes made. */
function sameSubscriber(a: Subscriber, b: Subscriber): boolean {
  const x = a as unknown as Record<string, unknown>;
  const y = b as unknown as Record<string, unknown>;
  let members = 0;
  for (const key in x) {
    if (MADE_BY_WRITE.has(key)) continue;
    members++;
    const u = x[key];
    const v = y[key];
    if (u !== v && !(typeof u === 'object' && u !== null && typeof v === 'object' && v !== null && JSON.stringify(u) === JSON.stringify(v))) return false;
  }
  for (const key in y) if (!MADE_BY_WRITE.has(key)) members--;
  return members === 0;
}

/** The subscriber each walk's runs were found made for: its later runs compare nothing again. */
const matched = new WeakMap<PrecomputedRuns, Subscriber>();

const madeFor = (made: PrecomputedRuns, seen: RunSeen): boolean => {
  if (made.notification !== seen.notification || made.locale !== seen.locale) return false;
  if (matched.get(made) === seen.subscriber) return true;
  if (!sameSubscriber(made.subscriber, seen.subscriber)) return false;
  matched.set(made, seen.subscriber);
  return true;
};

/** What a walk's replay compares with what its runs were made for. */
export interface RunSeen {
  readonly notification: Notification;
  readonly subscriber: Subscriber;
  readonly locale: string;
  readonly results: ReadonlyMap<string, JsonObject>;
}

/** The run made beforehand for what this run sees; throws NotPrecomputed when there is none. */
export function replayRun(made: PrecomputedRuns, seen: RunSeen): CodeStepRun {
  const run = madeFor(made, seen) ? made.runs.get(resultsKey(seen.results)) : undefined;
  if (!run) throw new NotPrecomputed();
  return run;
}
