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
  /** The subscriber document a replay found the same as `subscriber`: later replays of the walk compare nothing again. */
  matched?: Subscriber;
}

/** A run the walk asked for was not made beforehand (it sees other data): the walk goes to a job. */
export class NotPrecomputed extends Error {
  constructor() {
    super('this run of the workflow was not made before the transaction');
    this.name = 'NotPrecomputed';
  }
}

/** An in-app step's result when its message was made in this very walk, or skipped: unread. */
const isUnread = (result: JsonObject): boolean => result['seen'] === false && result['read'] === false && result['lastSeenDate'] === null && result['lastReadDate'] === null && Object.keys(result).length === 4;

/**
 * The key of a precomputed run: the steps whose results it is given, when each is an unread in-app
 * message's (the only results runs are made beforehand with); null for any other results.
 */
export function resultsKey(results: ReadonlyMap<string, JsonObject>): string | null {
  let key = '';
  for (const [stepId, result] of results) {
    if (!isUnread(result)) return null;
    key += `${stepId}\u0001`;
  }
  return key;
}

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

const madeFor = (made: PrecomputedRuns, seen: RunSeen): boolean => {
  if (made.notification !== seen.notification || made.locale !== seen.locale) return false;
  if (made.matched === seen.subscriber) return true;
  if (!sameSubscriber(made.subscriber, seen.subscriber)) return false;
  made.matched = seen.subscriber;
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
  const key = resultsKey(seen.results);
  const run = key !== null && madeFor(made, seen) ? made.runs.get(key) : undefined;
  if (!run) throw new NotPrecomputed();
  return run;
}
