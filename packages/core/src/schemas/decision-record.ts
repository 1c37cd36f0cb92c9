import type { FilterOn, FilterOperator } from './filter.js';
import type { Step } from './step.js';

/** One part of a filter as evaluated: what `explain` shows of the condition that stopped a step. */
export interface PartTrace {
  readonly on: FilterOn;
  readonly field: string;
  readonly operator: FilterOperator;
  /** The filter's value after `{{ }}` rendering (for LIKE, with rendered data escaped unless `rawPattern`). */
  readonly expected: string;
  readonly actual: unknown;
  readonly passed: boolean;
}

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
  /** The locale the step's translations were made in, when it used any (`t`). */
  readonly locale?: string;
  /** Keys the step translated from another locale's catalog than its own (a parent or the default). */
  readonly translationFallbacks?: readonly string[];
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
  /** The workflow revision the run walked (a stored workflow's number, a code workflow's hash), when known. */
  readonly revision?: number | string;
  readonly entries: readonly TraceEntry[];
}
