import type { PartTrace } from '../filters/evaluate.js';
import type { Step } from '../schemas/index.js';

/** What happened at one step of a walk, and why: "why did / didn't this subscriber get this message". */
export interface TraceEntry {
  readonly stepIndex: number;
  readonly stepId: string;
  /** The step's type; a code workflow adds `custom` steps. */
  readonly type: Step['template']['type'] | 'custom';
  /**
   * `not_sent`: a channel step that passed every check but had nowhere to go (no integration, no
   * address). `ran`: a code workflow's custom step ran and its result was kept, or a throttle step let
   * the run through. `throttled`: a throttle step's window was full, and the walk ended there.
   * `expired`: the step's message expired (or outlived the retention policy) and was deleted.
   */
  readonly decision: 'delivered' | 'not_sent' | 'skipped' | 'delayed' | 'held' | 'failed' | 'ran' | 'throttled' | 'expired';
  readonly reason: string;
  readonly variantIndex?: number;
  /** The filter condition that stopped the step, as evaluated. */
  readonly failedFilter?: PartTrace;
  /** The integration that delivered (or would have delivered) a channel step. */
  readonly integration?: string;
  /** When more than one integration was tried for a channel step: each, in order, and how it went. */
  readonly attempts?: readonly { readonly integration: string; readonly outcome: 'sent' | 'failed' | 'passed_over'; readonly reason: string }[];
}

/** Why one run of a walk did what it did, step by step: what `explain` answers with. */
export interface DecisionRecord {
  readonly environmentId: string;
  readonly transactionId: string;
  readonly subscriberId: string;
  readonly jobId: string;
  readonly at: string;
  readonly entries: readonly TraceEntry[];
}

export function decisionRecord(env: string, job: { id: string; transactionId: string; subscriberId: string }, at: string, entries: readonly TraceEntry[]): DecisionRecord {
  return { environmentId: env, transactionId: job.transactionId, subscriberId: job.subscriberId, jobId: job.id, at, entries };
}
