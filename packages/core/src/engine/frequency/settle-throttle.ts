import { throttleCounterKey, throttleReason, throttleResult, windowMs, type ThrottleRule } from '../../frequency/throttle.js';
import { takeWindowSlot } from './window-slot.js';
import type { Job, WalkJobData } from '../../schemas/index.js';
import type { StorageRepositories } from '../../storage.js';
import type { TraceEntry } from '../../walk/trace.js';
import { newJob } from '../runtime/jobs.js';

/** A walk that reached a throttle step: counted inside the batch's commit, so concurrent runs are counted exactly. */
export interface ThrottleArrival {
  readonly workflowId: string;
  readonly subscriberId: string;
  readonly transactionId: string;
  readonly stepIndex: number;
  readonly stepId: string;
  readonly rule: ThrottleRule;
  /** The walk's job data to go on with, from the step after the throttle (a code workflow's state without it). */
  readonly next: WalkJobData;
  /** This walk at this step: the same run counted again counts once. */
  readonly runId: string;
}

/**
 * Counts a run at a throttle step inside the batch's transaction: under the limit, the run is recorded
 * and the walk goes on at once (a code workflow's step returning `{ throttled: false, … }`); at it, the
 * walk ends here. Expired runs of the counter are deleted as it is used, so it never outgrows a window.
 */
export async function settleThrottle(tx: StorageRepositories, env: string, arrival: ThrottleArrival, now: Date): Promise<{ entry: TraceEntry; enqueue: Job[]; throttled: boolean; recordedUntil?: string }> {
  const { rule } = arrival;
  const key = throttleCounterKey(arrival.workflowId, arrival.stepId, arrival.subscriberId, rule);
  const { decision, recordedUntil } = await takeWindowSlot(tx, env, { key, id: arrival.runId, limit: rule.limit, lengthMs: windowMs(rule.window) }, now);
  const entry: TraceEntry = { stepIndex: arrival.stepIndex, stepId: arrival.stepId, type: 'throttle', decision: decision.allowed ? 'ran' : 'throttled', reason: throttleReason(decision, rule) };
  if (!decision.allowed) return { entry, enqueue: [], throttled: true };
  const { state } = arrival.next;
  const ran = { stepId: arrival.stepId, stepIndex: arrival.stepIndex, type: 'throttle', skipped: false, result: throttleResult(decision, rule) };
  const data: WalkJobData = { ...arrival.next, ...(state && { state: { steps: [...state.steps, ran] } }) };
  return { entry, enqueue: [newJob({ env, kind: 'walk', runAt: now.toISOString(), transactionId: arrival.transactionId, subscriberId: arrival.subscriberId, data }, now)], throttled: false, recordedUntil };
}
