import type { Channel, JsonObject, Message, Notification, PreferenceRow, StepVariant, Subscriber, Tenant, WalkState, Workflow } from '../schemas/index.js';
import type { RenderedContent } from '../templates/render-step.js';
import type { RenderBudget } from '../templates/render.js';
import type { TraceEntry } from './trace.js';
import type { ThrottleRule } from '../frequency/throttle.js';
import type { EmailLook } from '../email/email-look.js';
import type { WalkWait } from '../waits/wait-step.js';
import type { TopicReach } from '../preferences/subscription-preferences.js';
import type { HttpStepCall } from './http-request.js';
import type { PrecomputedRuns } from './code-run-memo.js';

/** A channel step that passed every check, rendered and ready to become a message. */
export interface Delivery {
  readonly stepIndex: number;
  readonly step: StepVariant;
  readonly channel: Channel;
  readonly rendered: RenderedContent;
}

/** One event of a flushed digest, as a walk sees it. */
export interface DigestedEvent {
  /** The event's transactionId. */
  readonly id: string;
  /** When it was triggered (ISO). */
  readonly time: string;
  readonly payload: Record<string, unknown>;
}

/** Everything a walk of one notification for one subscriber reads. */
export interface WalkSubject {
  readonly workflow: Workflow;
  readonly notification: Notification;
  readonly subscriber: Subscriber;
  readonly actor: Subscriber | null;
  readonly tenant: Tenant | null;
  /** The subscriber's stored preference rows (global and per workflow). */
  readonly preferences: readonly PreferenceRow[];
  /** The subscriptions the trigger reached the subscriber through, when it reached them through topics alone. */
  readonly reach?: TopicReach | undefined;
}

export interface WalkInput extends WalkSubject {
  readonly startIndex: number;
  readonly now: Date;
  /** Email, sms, chat and push steps outside the subscriber's schedule wait for it or are dropped. */
  readonly outsideSchedule: 'defer' | 'skip';
  /** The events of the digest this walk continues after (`step.events` in templates), oldest first. */
  readonly digestEvents?: readonly DigestedEvent[] | undefined;
  /** The steps of a code workflow that already ran in this walk (replayed, not run again). */
  readonly state?: WalkState | undefined;
  /** This walk's stored in-app messages by id (code workflows read their flags), when the walker asked (`readsMessages`). */
  readonly messages?: ReadonlyMap<string, Message> | undefined;
  /** This walk's render budget (RENDER_BUDGET_MS); none renders without one. */
  readonly renderBudget?: RenderBudget | undefined;
  /** The brand and layouts emails are rendered with; none: the built-in layout, no brand. */
  readonly look?: EmailLook | undefined;
  /** Steps whose templates ran out of render time alone for several recipients of this trigger: they fail without rendering. */
  readonly hopeless?: ReadonlySet<number> | undefined;
  /** A code workflow's runs made before the trigger's transaction: replayed, never run here (see `Walker.precompute`). */
  readonly precomputed?: PrecomputedRuns | undefined;
}

export interface WalkResult {
  readonly deliveries: Delivery[];
  /** Where the walk continues later (after a delay or a schedule hold), or null when it is over. */
  readonly resume: { stepIndex: number; runAt: Date } | null;
  /** The walk stopped at this digest step: the engine joins or opens the digest. */
  readonly digest?: { stepIndex: number; step: StepVariant };
  /** The walk stopped at this throttle step: the engine counts the run in its commit and goes on or ends it there. */
  readonly throttle?: { stepIndex: number; stepId: string; rule: ThrottleRule };
  /** The walk stopped at this wait step: the engine stores the wait in its commit, and resumes the run at an event, a token or the timeout. */
  readonly wait?: WalkWait;
  readonly trace: TraceEntry[];
  /**
   * The walk's render budget ran out at this step: the steps before it are in `deliveries`, and the
   * walk goes on from it later, in a batch of its own.
   */
  readonly spent?: { stepIndex: number };
  /** The step that ran out of render time alone, and failed for it. */
  readonly failedOverBudget?: number;
  /** The walk stopped at this `http` step: the walk job sends its request, outside any transaction, and goes on. */
  readonly http?: HttpStepCall;
  /** The code steps that ran, to carry to the walk's next run (resume or digest); absent for data workflows. */
  readonly state?: WalkState;
}

/** A payload checked against the workflow's schema, defaults applied, or the issues that refuse it. */
export type PreparedPayload = { readonly ok: true; readonly payload: JsonObject } | { readonly ok: false; readonly errors: readonly string[] };

/**
 * How a workflow's steps are walked for one subscriber: which steps run, with what content, and where
 * the walk stops to wait. It reads no storage and no clock: the same input gives the same walk. Async
 * because a walker may run the user's code.
 */
/** How runs are made before the trigger's transaction (`Walker.precompute`). */
export interface PrecomputeOptions {
  /** The locale the walk will give the runs (`runLocale`): a replay in another finds no run. */
  readonly locale: string;
  /** Asked before each run: true once the caller no longer waits for them (its budget is spent). */
  abandoned(): boolean;
}

export interface Walker {
  /**
   * Whether every walk of the workflow, whatever its subscriber and payload, ends at once with in-app
   * messages only (no provider step, delay or digest), so it can be stored inside the trigger's own
   * transaction. Decided from the workflow alone, before any walk.
   */
  walksInline(workflow: Workflow): boolean;
  /**
   * Whether a walk of the workflow runs the user's code (a code workflow's resolvers). Such a walk
   * never runs inside a storage transaction: at trigger time it replays runs made before the
   * transaction (`precompute`), or goes to a job.
   */
  runsUserCode(workflow: Workflow): boolean;
  walk(input: WalkInput): Promise<WalkResult>;
  /** Checks an event's payload at trigger time against the workflow's own schema (code workflows), defaults applied. */
  preparePayload?(workflow: Workflow, payload: JsonObject): Promise<PreparedPayload>;
  /**
   * Runs the user's code a walk from the first step would run, before the trigger's transaction, for
   * a workflow that walks inline: the transaction's walk replays them (`WalkInput.precomputed`), and
   * goes to a job when it asks for a run not made here. Null when the workflow's walks cannot be made
   * beforehand, or the caller gave up on them (`abandoned`) before they were all made.
   */
  precompute?(workflow: Workflow, subject: Pick<WalkSubject, 'notification' | 'subscriber'>, run: PrecomputeOptions): Promise<PrecomputedRuns | null>;
  /** The ids of the stored messages a walk of this state reads (`WalkInput.messages`). */
  messagesToRead?(workflow: Workflow, state: WalkState | undefined, notificationId: string, subscriberInternalId: string): string[];
}
