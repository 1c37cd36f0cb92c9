import type { RecordStore } from '../../records/record-store.js';
import type { JsonObject, WalkJobData } from '../../schemas/index.js';
import type { EventMatch } from '../../schemas/wait.js';
import type { SignalEvent } from '../../waits/match-event.js';

/** Runs waiting for an event or a token: one record per wait, deleted by whatever ends it. */
export const WAITS = 'waits';
/** The app's signals, kept a while for waits that look back. */
export const SIGNALS = 'signals';
/** Tokens of `waitForToken`, kept after their wait ended (their status). */
export const TOKENS = 'wait-tokens';
/** Runs a `cancelOn` signal cancelled: their later jobs end at once. */
export const CANCELLED_RUNS = 'cancelled-runs';

/** A run waiting at a step: what ends it, and what the walk goes on with. */
export interface WaitRecord {
  readonly waitId: string;
  readonly kind: 'event' | 'token';
  /** The event's name (`kind: 'event'`). */
  readonly event?: string;
  readonly match?: EventMatch;
  readonly onTimeout: 'continue' | 'halt';
  readonly onEvent: 'continue' | 'halt';
  readonly tokenId?: string;
  readonly tokenUrl?: string;
  readonly startedAt: string;
  readonly timeoutAt: string;
  readonly transactionId: string;
  /** The subscriber's id (external). */
  readonly subscriberId: string;
  readonly workflowId: string;
  readonly stepIndex: number;
  readonly stepId: string;
  /** The trigger's payload: what `match` compares the event with. */
  readonly payload: JsonObject;
  /** The subscriber's profile (no credentials) for filters on `subscriber`. */
  readonly subscriber?: JsonObject;
  /** The walk's job data from the step after the wait (its state without the wait's result). */
  readonly next: WalkJobData;
}

/** A run, as `cancelOn` and the wait records of one run find it. */
export const runKey = (transactionId: string, subscriberId: string) => `${transactionId}\u0001${subscriberId}`;

/**
 * A wait is keyed by its run and step (the same walk stopping there again stores it once), with the
 * event's name in `i1` (token waits: none), the subscriber in `i2`, the run in `i3`, sorted by timeout.
 */
export const waitInput = (wait: WaitRecord) => ({ key: wait.waitId, i1: wait.event ?? null, i2: wait.subscriberId, i3: runKey(wait.transactionId, wait.subscriberId), sort: wait.timeoutAt, doc: wait });

/** The waits an event may end: of its name, of its subscriber when it names one. */
export async function waitsFor(records: RecordStore, env: string, event: Pick<SignalEvent, 'name' | 'subscriberId'>): Promise<WaitRecord[]> {
  const found = await records.find(env, WAITS, { i1: event.name, ...(event.subscriberId !== null && { i2: event.subscriberId }) });
  return found.map((r) => r.doc as WaitRecord);
}

/**
 * Ends the wait: deletes its record and returns it, or null when something else ended it first. Of
 * racing ends (a signal in each of two processes, a signal and the timeout) exactly one gets it: the
 * delete is the race primitive, and what it returns is decided inside the caller's transaction.
 */
export async function consumeWait(records: RecordStore, env: string, waitId: string): Promise<WaitRecord | null> {
  const [deleted] = await records.deleteWhere(env, WAITS, { key: waitId });
  return deleted ? (deleted.doc as WaitRecord) : null;
}

/** A token as the app reads it. */
export interface WaitToken {
  readonly id: string;
  readonly url: string;
  readonly status: 'waiting' | 'completed' | 'timed_out' | 'cancelled';
  readonly transactionId: string;
  readonly subscriberId: string;
  readonly workflowId: string;
  readonly stepId: string;
  readonly createdAt: string;
  readonly timeoutAt: string;
  readonly completedAt?: string;
  readonly output?: JsonObject;
  /** The wait it ends. */
  readonly waitId: string;
}

/** Tokens keyed by id, the run's trigger in `i1`, the subscriber in `i2`, sorted by when made. */
export const tokenInput = (token: WaitToken) => ({ key: token.id, i1: token.transactionId, i2: token.subscriberId, sort: token.createdAt, doc: token });

/** A signal kept for waits that look back: keyed by its id, its name in `i1`, its subscriber in `i2`, sorted by instant. */
export const signalInput = (id: string, event: SignalEvent) => ({ key: id, i1: event.name, i2: event.subscriberId, sort: event.at, doc: event });

/** The key of a wait's timeout job. */
export const waitTimeoutKey = (waitId: string) => `wait:${waitId}`;
