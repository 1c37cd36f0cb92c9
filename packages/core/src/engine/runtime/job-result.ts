import type { WebhookTransport } from '../../delivery/webhook-transport.js';
import type { Suppression } from '../../schemas/suppression.js';
import type { WebhookDelivery } from '../../schemas/webhook.js';
import type { Integration, Job, JobData, JobKind, JobOf, Message, Notification, PreferenceRow, Subscriber, Tenant, Workflow } from '../../schemas/index.js';
import type { DeadDeviceTokens } from '../../subscribers/drop-device-tokens.js';
import type { RenderMeter } from '../../templates/render.js';
import type { DecisionRecord, TraceEntry } from '../../walk/trace.js';
import type { EngineContext } from '../context.js';
import type { stepDeliverer } from '../delivery/deliver-step.js';
import type { DigestArrival } from '../digests/settle-digest.js';
import type { ThrottleArrival } from '../frequency/settle-throttle.js';
import type { Cap } from '../../schemas/index.js';
import type { WindowHit } from '../../storage.js';

/** What a batch's jobs read, loaded once for the whole batch. */
export interface BatchData {
  /** Every job of the batch. */
  readonly jobs: readonly Job[];
  readonly notifications: ReadonlyMap<string, Notification>;
  readonly subscribers: ReadonlyMap<string, Subscriber>;
  readonly workflows: ReadonlyMap<string, Workflow>;
  readonly tenants: ReadonlyMap<string, Tenant | null>;
  readonly integrations: readonly Integration[];
  readonly preferences: ReadonlyMap<string, PreferenceRow[]>;
  /** The batch's subscribers' addresses on the suppression list, by `channel\u0000address`. */
  readonly suppressed: ReadonlyMap<string, Suppression>;
  /** The caps in force (each send takes its slots in the storage). */
  readonly caps: readonly Cap[];
  /** Liquid time the batch's walks spent so far (each walk has a budget of its own); past BATCH_RENDER_MS the jobs not started yet wait for a later batch. */
  readonly renderMeter: RenderMeter;
  /** Runs the batch's walks of stored workflows one at a time, the loop turning between them (`cpuTurns`). */
  readonly cpuTurns: <T>(work: () => Promise<T>) => Promise<T>;
}

/** Where a job goes after its run. */
export type NextStep =
  | { readonly kind: 'done' }
  | { readonly kind: 'later'; readonly runAt: Date; readonly data: JobData; readonly retry: boolean; readonly lastError: string | null }
  | { readonly kind: 'threw'; readonly error: string };

/** A change to a stored message, decided by a pure transition of what is stored when it commits. */
export interface MessageUpdate {
  readonly subscriberId: string;
  readonly messageId: string;
  /** The message as it should be, or null to leave it as it is. */
  readonly apply: (stored: Message) => Message | null;
}

/**
 * What one job run produced: what to store, and nothing stored yet. The batch's commit writes the
 * results of the jobs it still holds, and only those.
 */
export interface JobResult {
  readonly job: Job;
  readonly next: NextStep;
  /** This run's decisions, recorded for `explain`; null when the run decided nothing to explain. */
  readonly trace: TraceEntry[] | null;
  readonly messages: readonly Message[];
  /** Delivery failures among `messages`, for `message.failed`. */
  readonly failures: readonly { message: Message; error: string }[];
  /** Messages among `messages` that were not sent (nowhere to go), for `message.warning`. */
  readonly warnings: readonly { message: Message; reason: string }[];
  /** Decision records of other walks this run made (a fan-out's inline walks). */
  readonly records: readonly DecisionRecord[];
  readonly enqueue: readonly Job[];
  readonly messageUpdates: readonly MessageUpdate[];
  /** The walk reached a digest step: the commit joins or opens the digest (or lets the event through). */
  readonly digestArrival?: DigestArrival;
  /** The walk reached a throttle step: the commit counts the run, and the walk goes on or ends there. */
  readonly throttleArrival?: ThrottleArrival;
  /** The flush closes this digest; the walk job in `enqueue` goes on with its events. */
  readonly closeDigest?: string;
  /**
   * A webhook delivery attempt: the delivery as it stands after it, and how it went for its endpoint
   * (`delivered`, or `failed` for good), which the commit applies to the endpoint as stored then.
   */
  readonly webhook?: { readonly delivery: WebhookDelivery; readonly endpointOutcome?: 'delivered' | 'failed' };
  /** Webhook deliveries an outbox page made: the commit stores them (their jobs are in `enqueue`). */
  readonly newDeliveries?: readonly WebhookDelivery[];
  /** Sends the caps count: the commit records them. */
  readonly windowHits?: readonly WindowHit[];
  /** Device tokens of the job's subscriber that push services called gone: the commit removes them. */
  readonly deadTokens?: readonly DeadDeviceTokens[];
}

/** What every handler gets besides its job. */
export interface HandlerContext {
  readonly ctx: EngineContext;
  readonly deliver: ReturnType<typeof stepDeliverer>;
  /** Sends webhook deliveries; undefined when the engine was made without one. */
  readonly webhookTransport?: WebhookTransport;
  readonly batch: BatchData;
  readonly now: Date;
}

/** Runs one job of kind `K`: reads what it needs, calls providers, and says what to store. */
export type JobHandler<K extends JobKind> = (job: JobOf<K>, context: HandlerContext) => Promise<JobResult>;

/** A result that stores nothing but the job's next step (and its trace, when given). */
export function resultOf(job: Job, next: NextStep, extra: Partial<Omit<JobResult, 'job' | 'next'>> = {}): JobResult {
  return { job, next, trace: null, messages: [], failures: [], warnings: [], records: [], enqueue: [], messageUpdates: [], ...extra };
}

/** The job runs again at `runAt` with its data unchanged, its attempts reset (a wait, not a retry). */
export const waitUntil = (job: Job, runAt: Date): NextStep => ({ kind: 'later', runAt, data: job.data, retry: false, lastError: null });
