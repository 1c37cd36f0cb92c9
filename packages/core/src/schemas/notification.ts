import { z } from 'zod';
import { isoInstantSchema, jsonObjectSchema, type JobPriority } from './enums.js';
import { webhookEventTypeSchema } from './webhook.js';
import { workflowRevisionRefSchema } from './workflow.js';

/** One accepted trigger: the record every job and message of that trigger points back to. */
export const notificationSchema = z.object({
  _id: z.string(),
  _environmentId: z.string(),
  _organizationId: z.string(),
  _templateId: z.string(),
  templateIdentifier: z.string(),
  transactionId: z.string(),
  payload: jsonObjectSchema,
  overrides: jsonObjectSchema,
  actorId: z.string().nullable(),
  tenantId: z.string().nullable(),
  /** Each context as the run sees it; notifications stored before contexts held data kept the id alone. */
  context: z.record(z.string(), z.union([z.string(), z.object({ id: z.string(), data: jsonObjectSchema })])),
  /**
   * The topics the trigger's `to` named, and the subscribers it also named directly: a subscriber
   * reached through these topics alone is held to their subscriptions' preferences. Absent when `to`
   * named no topic.
   */
  topics: z.object({ keys: z.array(z.string()), direct: z.array(z.string()) }).optional(),
  /** The trigger's locale, when it gave one. */
  locale: z.string().optional(),
  createdAt: isoInstantSchema,
  /** The trigger's `expiresAt`: its in-app messages are gone from then on. */
  expiresAt: isoInstantSchema.optional(),
  /** The workflow revision the trigger used: its run's later steps use it too, unless the workflow runs `latest`. */
  revision: workflowRevisionRefSchema.optional(),
  /** The W3C traceparent of the trigger's `tidings.trigger` span, when one was recorded: its jobs' spans join that trace. */
  traceparent: z.string().optional(),
});
export type Notification = z.infer<typeof notificationSchema>;

/** One step of a code workflow that already ran in a walk, and what it returned (replayed, not run again). */
export const ranStepSchema = z.object({
  stepId: z.string(),
  stepIndex: z.number().int().min(0),
  type: z.string(),
  /** `skip` left the step out. */
  skipped: z.boolean(),
  result: jsonObjectSchema,
});
export type RanStep = z.infer<typeof ranStepSchema>;

/** What a walk of a code workflow carries between its runs: the steps that already ran, in order. */
export const walkStateSchema = z.object({
  steps: z.array(ranStepSchema),
  /** The declared step the walk goes on with when it stopped: a run resumed under changed code ends when it is gone. */
  next: z.string().optional(),
});
export type WalkState = z.infer<typeof walkStateSchema>;

/** A `walk` job: walk the steps of one notification for one subscriber from `stepIndex`. */
export const walkJobDataSchema = z.object({
  notificationId: z.string(),
  /** Index of the next step to walk. */
  stepIndex: z.number().int().min(0),
  /** The closed digest this walk continues after: its events are `step.events` in templates. */
  digestId: z.string().optional(),
  /** Set when a backoff digest let this event through: the walk goes on as a digest of this event alone. */
  passedDigest: z.boolean().optional(),
  /** A code workflow's steps that already ran (absent for workflows stored as data). */
  state: walkStateSchema.optional(),
  /** The step whose own channel is done and stored: the run sends only its fallback (a retry of it). */
  fallbackStep: z.number().int().min(0).optional(),
  /**
   * A retry (`tidings.retry`) of the step at `stepIndex`, which had failed for good: its stored `error`
   * messages give way to what the run makes. `alone` when the walk had gone past that step, so the run
   * makes that step alone.
   */
  retry: z.object({ stepIndex: z.number().int().min(0), alone: z.boolean() }).optional(),
  /** The walk spent its render budget at `stepIndex` in a shared batch: it runs next in a batch of its own. */
  runAlone: z.literal(true).optional(),
  /**
   * Runs in a batch of its own that ran out of render time at `stepIndex` before rendering anything
   * (a busy machine can slow one render past its limit); the step fails only on the last of
   * `ALONE_RENDER_RUNS`.
   */
  aloneRuns: z.number().int().min(1).optional(),
});
/**
 * A `fanout` job: start the walks of a chunk of a large audience, in one commit. The chunk is either
 * its `subscriberIds`, or a page it reads itself: the members of `topicKeys` after `after` and up to
 * `until` in the storage's order, less `exclude` (the subscribers the event names directly, and its
 * actor); or, for a broadcast (`everyone`), the environment's subscribers in that range.
 */
export const fanoutJobDataSchema = z.union([
  z.object({ notificationId: z.string(), subscriberIds: z.array(z.string()) }),
  z.object({ notificationId: z.string(), topicKeys: z.array(z.string()), after: z.string().nullable(), until: z.string(), exclude: z.array(z.string()) }),
  z.object({ notificationId: z.string(), everyone: z.literal(true), after: z.string().nullable(), until: z.string() }),
]);
/** An `unsnooze` job: bring a snoozed message back when its snooze ends. */
export const unsnoozeJobDataSchema = z.object({ messageId: z.string() });
/** A `digest` job: close the digest when it is due and walk on with its events. Keyed by the digest. */
export const digestJobDataSchema = z.object({ digestId: z.string() });

/** A `webhook` job: send one webhook delivery to its endpoint. */
export const webhookJobDataSchema = z.object({ deliveryId: z.string() });

/**
 * An `outbox` job: a page of one change's webhook events, written in that change's transaction. Run
 * outside it, it makes their deliveries for the endpoints subscribed then, a bounded number per
 * commit; `endpointAfter` is where a page too large for one commit goes on (endpoints in id order).
 */
export const outboxJobDataSchema = z.object({
  events: z.array(z.object({ type: webhookEventTypeSchema, data: jsonObjectSchema })),
  endpointAfter: z.string().optional(),
});

/** The `sweep` job: deletes expired messages and what the retention policy says is too old. Keyed, one per environment. */
export const sweepJobDataSchema = z.object({});

/** A `debounce` job: run the last event of a burst once it went quiet. Keyed by its burst. */
export const debounceJobDataSchema = z.object({ group: z.string() });
/** A `wait` job: the timeout of a waiting run (keyed by its wait); a wait already ended makes it a no-op. */
export const waitJobDataSchema = z.object({ waitId: z.string() });

/** What a job does: its kind and that kind's data. */
export const jobPayloadSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('walk'), data: walkJobDataSchema }),
  z.object({ kind: z.literal('fanout'), data: fanoutJobDataSchema }),
  z.object({ kind: z.literal('unsnooze'), data: unsnoozeJobDataSchema }),
  z.object({ kind: z.literal('digest'), data: digestJobDataSchema }),
  z.object({ kind: z.literal('webhook'), data: webhookJobDataSchema }),
  z.object({ kind: z.literal('outbox'), data: outboxJobDataSchema }),
  z.object({ kind: z.literal('sweep'), data: sweepJobDataSchema }),
  z.object({ kind: z.literal('debounce'), data: debounceJobDataSchema }),
  z.object({ kind: z.literal('wait'), data: waitJobDataSchema }),
]);
export type JobPayload = z.infer<typeof jobPayloadSchema>;
export type JobKind = JobPayload['kind'];
export type WalkJobData = z.infer<typeof walkJobDataSchema>;
export type JobData = JobPayload['data'];

/** A stored job's bookkeeping: when it runs, who holds it, how often it ran. */
export interface JobHead {
  id: string;
  environmentId: string;
  runAt: string;
  attempts: number;
  lockedBy: string | null;
  lockedUntil: string | null;
  transactionId: string;
  subscriberId: string;
  lastError: string | null;
  /**
   * Unique among the environment's jobs when set: enqueuing a job with the key of a stored one moves
   * that job's `runAt` instead of adding one (a digest's flush job is keyed by its digest).
   */
  key?: string | null;
  /**
   * The job's class: a claim takes `transactional` jobs (the default) before `bulk` ones (a large
   * audience's fan-out and its walks, digest flushes, the sweep), so a broadcast never holds up a
   * password reset triggered after it.
   */
  priority?: JobPriority;
}

/** A durable unit of work: a walk, a fan-out, an unsnooze or a digest flush (see `JobPayload`). */
export type Job = JobHead & JobPayload;
/** A job of one kind. */
export type JobOf<K extends JobKind> = Job & { kind: K };
