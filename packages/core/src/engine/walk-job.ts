import { buildMessage } from '../messages/build-message.js';
import type { Integration, Job, JobData, Message, Notification, PreferenceRow, Subscriber, Tenant, Workflow } from '../schemas/index.js';
import type { Digest } from '../storage.js';
import type { RenderBudget } from '../templates/render.js';
import type { TraceEntry } from '../trigger/walk-steps.js';
import type { EngineContext } from './context.js';
import type { stepDeliverer } from './deliver-step.js';
import { nextAttemptAt } from './jobs.js';
import type { DigestArrival } from './settle-digest.js';
import { walkSubject } from './walk-records.js';

/** What a batch's jobs read, loaded once for the whole batch. */
export interface BatchData {
  readonly notifications: ReadonlyMap<string, Notification>;
  readonly subscribers: ReadonlyMap<string, Subscriber>;
  readonly workflows: ReadonlyMap<string, Workflow>;
  readonly tenants: ReadonlyMap<string, Tenant | null>;
  readonly integrations: readonly Integration[];
  readonly preferences: ReadonlyMap<string, PreferenceRow[]>;
  /** The batch is one call: its walks share one render budget. */
  readonly renderBudget: RenderBudget;
}

/** Where a job goes after its run; decided by the walk, except digests, settled in the commit. */
export type NextStep =
  | { readonly kind: 'done' }
  | { readonly kind: 'later'; readonly runAt: Date; readonly data: JobData; readonly retry: boolean; readonly lastError: string | null }
  | { readonly kind: 'digest'; readonly arrival: DigestArrival }
  | { readonly kind: 'threw'; readonly error: string };

/** What one job run produced. Nothing of it is stored until the batch commits. */
export interface JobOutcome {
  readonly job: Job;
  readonly messages: Message[];
  readonly failures: { message: Message; error: string }[];
  readonly trace: TraceEntry[];
  readonly next: NextStep;
  /** The digest this job flushes, for the `digest.flushed` event once committed. */
  readonly flushed?: Digest;
}

/** The walk's trace up to step `last`, with what delivery added to each step's entry. */
function notedTrace(trace: readonly TraceEntry[], notes: ReadonlyMap<number, Partial<TraceEntry>>, last: number): TraceEntry[] {
  if (notes.size === 0 && last === Number.MAX_SAFE_INTEGER) return trace as TraceEntry[];
  return trace.filter((e) => e.stepIndex <= last).map((e) => (notes.has(e.stepIndex) ? { ...e, ...notes.get(e.stepIndex) } : e));
}

/** How long a due flush waits for events of its window still on their way before it looks again. */
const FLUSH_RECHECK_MS = 250;

const skipped = (job: Job, type: TraceEntry['type'], reason: string): TraceEntry => ({ stepIndex: job.data.stepIndex, stepId: '', type, decision: 'skipped', reason });

/**
 * Runs one walk job: reads a digest it flushes (closing it, which is idempotent), walks the steps,
 * and delivers channel steps (provider calls happen here, outside any transaction). Stops where the
 * walk must wait (delay, schedule hold, provider retry) or reaches a digest.
 */
export async function walkJob(ctx: EngineContext, deliver: ReturnType<typeof stepDeliverer>, job: Job, data: BatchData, now: Date): Promise<JobOutcome> {
  const { storage, env } = ctx;
  const notification = data.notifications.get(job.data.notificationId);
  const subscriber = data.subscribers.get(job.subscriberId);
  const workflow = notification && data.workflows.get(notification._templateId);
  const outcome = (next: NextStep, extra: Partial<JobOutcome> = {}): JobOutcome => ({ job, messages: [], failures: [], trace: [], next, ...extra });
  if (!notification || !subscriber || !workflow) {
    const missing = !notification ? 'notification' : !subscriber ? 'subscriber' : 'workflow';
    return outcome({ kind: 'done' }, { trace: [skipped(job, 'in_app', `the ${missing} no longer exists`)] });
  }

  let digestEvents: Record<string, unknown>[] | undefined;
  let flushed: Digest | undefined;
  if (job.data.digestId) {
    const digest = await storage.digests.get(env, job.data.digestId);
    if (digest && digest.status === 'open') {
      // A debounced join moved the digest: wait for its new due time.
      if (Date.parse(digest.dueAt) > now.getTime()) return outcome({ kind: 'later', runAt: new Date(digest.dueAt), data: job.data, retry: false, lastError: null });
      // Events triggered inside the window whose jobs have not reached the digest yet (a backlog,
      // another worker's batch) belong to it: wait for them instead of splitting the window.
      if (await storage.jobs.hasEarlier(env, job.subscriberId, digest.dueAt, job.id)) {
        return outcome({ kind: 'later', runAt: new Date(now.getTime() + FLUSH_RECHECK_MS), data: job.data, retry: false, lastError: null });
      }
    }
    // Closed before the walk, so no event joins after its message is rendered; a re-run closes again
    // and gets the same events.
    const closed = digest && (await storage.digests.close(env, digest.id));
    if (!closed || closed.events.length === 0) return outcome({ kind: 'done' }, { trace: [skipped(job, 'digest', 'the digest no longer exists')] });
    digestEvents = closed.events.map((e) => e.payload);
    flushed = closed;
  } else if (job.data.passedDigest) digestEvents = [notification.payload];

  const tenant = notification.tenantId ? data.tenants.get(notification.tenantId) ?? null : null;
  const subject = {
    workflow,
    notification,
    subscriber,
    actor: notification.actorId ? data.subscribers.get(notification.actorId) ?? null : null,
    tenant,
    preferences: data.preferences.get(subscriber.subscriberId) ?? [],
  };
  const walk = walkSubject(ctx, subject, job.data.stepIndex, now, { digestEvents, renderBudget: data.renderBudget });
  const messages: Message[] = [];
  const failures: JobOutcome['failures'] = [];
  const notes = new Map<number, Partial<TraceEntry>>();
  const done = (next: NextStep, last = Number.MAX_SAFE_INTEGER): JobOutcome => ({ job, messages, failures, trace: notedTrace(walk.trace, notes, last), next, ...(flushed && { flushed }) });
  const context = { subscriber, tenant, integrations: data.integrations, notification };

  for (const delivery of walk.deliveries) {
    const base = buildMessage(delivery, { workflow, notification, subscriber, now: now.toISOString(), status: 'sent' });
    let sent = await deliver(delivery, base, context);
    if (sent.kind === 'retry') {
      const runAt = nextAttemptAt(job.attempts, ctx.options.maxAttempts, now);
      if (runAt) {
        notes.set(delivery.stepIndex, { ...sent.note, decision: 'failed' });
        return done({ kind: 'later', runAt, data: { ...job.data, stepIndex: delivery.stepIndex }, retry: true, lastError: sent.error }, delivery.stepIndex);
      }
      sent = sent.final;
    }
    messages.push(sent.message);
    notes.set(delivery.stepIndex, sent.failure ? { ...sent.note, decision: 'failed' } : sent.note);
    if (sent.failure) {
      failures.push({ message: sent.message, error: sent.failure });
      if (delivery.step.shouldStopOnFail) return done({ kind: 'done' }, delivery.stepIndex);
    }
  }
  // A delay after a digest keeps the digest's events for the steps after it.
  if (walk.resume) return done({ kind: 'later', runAt: walk.resume.runAt, data: { ...job.data, stepIndex: walk.resume.stepIndex }, retry: false, lastError: null });
  if (walk.digest) return done({ kind: 'digest', arrival: { workflow, notification, subscriber, stepIndex: walk.digest.stepIndex, step: walk.digest.step } });
  return done({ kind: 'done' });
}
