import { buildMessage } from '../../messages/build-message.js';
import type { Integration, JobOf, Message, WalkJobData, WalkState } from '../../schemas/index.js';
import type { DeadDeviceTokens } from '../../subscribers/drop-device-tokens.js';
import { StepTimedOut } from '../runtime/step-time-limit.js';
import type { stepDeliverer } from '../delivery/deliver-step.js';
import { deadTokens as deadTokensOf } from '../delivery/delivery-effects.js';
import { digestArrival } from '../digests/digest-effects.js';
import { slotsGivenBack, throttleArrival, windowHits as windowHitsOf } from '../frequency/frequency-effects.js';
import { runCompleted } from '../webhooks/webhook-effects.js';
import { waitBegin } from '../waits/wait-effects.js';
import { cancelledRun } from '../waits/cancel-on.js';
import type { BatchData, EngineJobHandler } from './batch-data.js';
import { madeMessages, traced } from './walk-effects.js';
import type { TraceEntry } from '../../walk/trace.js';
import type { Delivery, DigestedEvent } from '../../walk/walker.js';
import { fallbackMessage } from '../../messages/fallback-message.js';
import { isExpired, withExpiry } from '../../messages/expiry.js';
import { channelGate } from '../../walk/channel-gate.js';
import { workflowRow } from '../../preferences/resolve-preferences.js';
import { UNKNOWN_OUTCOME_RETRY_MS, type StepSent } from '../delivery/deliver-step.js';
import { nextAttemptAt } from '../runtime/jobs.js';
import { messagesForWalk, walkSubject } from './walk-io.js';
import { retryScope } from './retry-run.js';
import { ALONE_RENDER_RUNS, BATCH_RENDER_MS, renderBudget } from '../../templates/render.js';
import { hopelessSteps, renderSpentAlone } from './render-memo.js';
import { capGate } from '../frequency/caps.js';
import { takeSendSlot } from '../frequency/send-rate.js';
import type { WindowHit } from '../../storage.js';
import type { HttpStepTransport } from '../../delivery/http-step-transport.js';
import { withRanStep } from '../../walk/step-results.js';
import { runHttpStep } from './http-step-run.js';
import { resultOf, waitUntil, type Effect, type HandlerContext, type JobResult, type NextStep } from '../runtime/job-result.js';

/** The walk's trace up to step `last`, with what delivery added to each step's entry. */
function notedTrace(trace: readonly TraceEntry[], notes: ReadonlyMap<number, Partial<TraceEntry>>, last: number): TraceEntry[] {
  if (notes.size === 0 && last === Number.MAX_SAFE_INTEGER) return trace as TraceEntry[];
  return trace.filter((e) => e.stepIndex <= last).map((e) => (notes.has(e.stepIndex) ? { ...e, ...notes.get(e.stepIndex) } : e));
}

/**
 * Walk job data with the walk's state when it has one (a digest's flush data keeps no state of its
 * own). The count of runs alone at a step that ran out of render time does not go on with it.
 */
const withState = (data: WalkJobData, state: WalkState | undefined): WalkJobData => {
  const { state: _previous, aloneRuns: _runs, ...rest } = data;
  return state ? { ...rest, state } : rest;
};

const skipped = (job: JobOf<'walk'>, type: TraceEntry['type'], reason: string): TraceEntry[] => [{ stepIndex: job.data.stepIndex, stepId: '', type, decision: 'skipped', reason }];

/** The events `step.events` holds after a flushed digest and its owner's walk so far, or 'gone' when it no longer exists. */
async function flushedDigest({ ctx }: HandlerContext<BatchData>, digestId: string): Promise<{ events: DigestedEvent[]; ownerState: WalkState | undefined } | 'gone'> {
  const digest = await ctx.storage.digests.get(ctx.env, digestId);
  if (!digest || digest.events.length === 0) return 'gone';
  return { events: digest.events.map((e) => ({ id: e.transactionId, time: e.at, payload: e.payload })), ownerState: digest.events[0]!.walkState };
}

/** The walk's state without the steps from `stepIndex` on: a retried step and what follows it run again. */
const stateBefore = (state: WalkState | undefined, stepIndex: number, stepId: string | undefined): WalkState | undefined =>
  state && { steps: state.steps.filter((s) => s.stepIndex < stepIndex), ...(stepId !== undefined && { next: stepId }) };

/** The walk of one job: its steps from the job's, and the deliveries among them. */
async function walkJob(job: JobOf<'walk'>, context: HandlerContext<BatchData>, deliver: Deliver, httpTransport: HttpStepTransport | undefined): Promise<JobResult> {
  const { ctx, batch, now } = context;
  const notification = batch.notifications.get(job.data.notificationId);
  const subscriber = batch.subscribers.get(job.subscriberId);
  const workflow = notification && batch.workflowOf(notification);
  if (!notification || !subscriber || !workflow) {
    const missing = !notification ? 'notification' : !subscriber ? 'subscriber' : 'workflow';
    return resultOf(job, { kind: 'done' }, [traced(skipped(job, 'in_app', `the ${missing} no longer exists`))]);
  }
  // After a digest, `step.events` holds its events; an event a backoff digest let through is alone in it.
  const flushed = job.data.digestId !== undefined ? await flushedDigest(context, job.data.digestId) : undefined;
  if (flushed === 'gone') return resultOf(job, { kind: 'done' }, [traced(skipped(job, 'digest', 'the digest no longer exists'))]);
  const digestEvents = flushed?.events ?? (job.data.passedDigest ? [{ id: notification.transactionId, time: notification.createdAt, payload: notification.payload }] : undefined);
  const state = job.data.state ?? flushed?.ownerState;

  const tenant = notification.tenantId ? batch.tenants.get(notification.tenantId) ?? null : null;
  const actor = notification.actorId ? batch.subscribers.get(notification.actorId) ?? null : null;
  const subject = { workflow, notification, subscriber, actor, tenant, preferences: batch.preferences.get(subscriber.subscriberId) ?? [], reach: batch.reach(notification, subscriber) };
  const messagesRead = await messagesForWalk(ctx, subject, state);
  const walkIt = () => walkSubject(ctx, subject, job.data.stepIndex, now, { digestEvents, renderBudget: renderBudget({ alone: lastAloneRun(job, batch.jobs.length), meter: batch.renderMeter }), hopeless: hopelessSteps(ctx, notification._id, workflow.steps.length), state, messages: messagesRead, look: batch.look(notification.tenantId) });
  // A stored workflow's walk is the batch's CPU (its templates): one at a time, letting the loop turn between them.
  const walked = ctx.walker.runsUserCode(workflow) ? await walkIt() : await batch.cpuTurns(async () => (batch.renderMeter.spentMs >= BATCH_RENDER_MS ? null : walkIt()));
  // The batch spent its render time before this walk's turn: it runs in a later batch.
  if (!walked) return resultOf(job, waitUntil(job, new Date(job.runAt)));
  const walk = retryScope(job.data, walked);
  if (walk.failedOverBudget !== undefined) renderSpentAlone(ctx, notification._id, walk.failedOverBudget);
  const messages: Message[] = [];
  const failures: { message: Message; error: string }[] = [];
  const warnings: { message: Message; reason: string }[] = [];
  const notes = new Map<number, Partial<TraceEntry>>();
  const deadTokens: DeadDeviceTokens[] = [];
  const windowHits: WindowHit[] = [];
  const done = (next: NextStep, last = Number.MAX_SAFE_INTEGER, arrival: Effect | null = null): JobResult =>
    resultOf(job, next, [madeMessages(messages, failures, warnings), traced(notedTrace(walk.trace, notes, last), workflow.revision), deadTokensOf(job.subscriberId, deadTokens), windowHitsOf(windowHits), slotsGivenBack(caps.givenBack()), arrival]);
  const caps = capGate(ctx, batch.caps, workflow, subscriber.subscriberId, now, batch.slotsGivenBack);
  const rate = (integration: Integration, sendId: string) => takeSendSlot(ctx, integration, sendId, ctx.clock.now());
  const delivery = { subscriber, tenant, integrations: batch.integrations, notification, suppressed: batch.suppressed, caps, rate, ...(job.data.retry && { sendRound: job.id }) };

  /**
   * The stored message of this id when its send's outcome was unknown: this run, after the long
   * back-off, is the one that sends it again. Read only in a run after a failed one (a first run has
   * no attempt before it and no error).
   */
  async function unknownBefore(message: Message): Promise<Message | undefined> {
    if (message.channel === 'in_app' || (job.attempts <= 1 && job.lastError === null)) return undefined;
    const [stored] = await ctx.storage.messages.getMany(ctx.env, subscriber!._id, [message._id]);
    return stored?.outcome === 'unknown' ? stored : undefined;
  }
  /** The message whose outcome is unknown, kept as it is (no answer of this run is the provider's word on it). */
  const keptUnknown = (stored: Message, why: string): Extract<StepSent, { kind: 'message' }> => {
    const integration = batch.integrations.find((i) => i._id === stored._integrationId)?.identifier;
    return { kind: 'message', message: stored, note: { ...(integration && { integration }), reason: `outcome unknown: its first send was not answered in time, and ${why}; it is not sent again` } };
  };

  /**
   * Delivers; a retryable failure with attempts left ends the run here (the step runs again later, its
   * fallback only when `fallback`). A send whose outcome is unknown stores its message as such and ends
   * the run too: the step runs again once, after `UNKNOWN_OUTCOME_RETRY_MS`, and what the provider
   * answers then takes the message's place (`clearRetriedErrors`).
   */
  async function sendOrRetry(step: Delivery, message: Message, fallback: boolean): Promise<Extract<StepSent, { kind: 'message' }> | JobResult> {
    const earlier = await unknownBefore(message);
    // The fallback's first retry starts its own count of attempts: the first channel may have used them all.
    const fresh = fallback && job.data.fallbackStep !== step.stepIndex;
    const sent = await deliver(step, message, { ...delivery, finalAttempt: !fresh && job.attempts >= ctx.options.maxAttempts });
    // Only a sent message counts against the caps: one that did not go gives its place back. One whose
    // outcome is unknown may have gone: it keeps its place (its one more send counts under the same id).
    if (sent.kind !== 'unknown' && (sent.kind !== 'message' || sent.message.status !== 'sent')) caps.release(step.channel, message._id);
    deadTokens.push(...(sent.deadTokens ?? []));
    if (sent.kind === 'defer') {
      // Over a deferring cap: the step (its fallback, when that is what waits) runs again once there is room.
      notes.set(step.stepIndex, { decision: 'held', reason: sent.reason });
      const { fallbackStep: _done, ...data } = job.data;
      const next = { ...data, stepIndex: step.stepIndex, ...(fallback && { fallbackStep: step.stepIndex }) };
      // A send again after an unknown outcome keeps its error: the run that sends it must know to replace the message.
      return done({ kind: 'later', runAt: sent.until, data: withState(next, stateBefore(walk.state, step.stepIndex, step.step._id)), retry: false, lastError: earlier ? job.lastError : null }, step.stepIndex);
    }
    // Sent again after an unknown outcome: only the provider's answer replaces the message, not a reason it had nowhere to go.
    if (earlier && sent.kind === 'message' && sent.notSent !== undefined) return keptUnknown(earlier, `this time it was not sent: ${sent.notSent}`);
    if (sent.kind === 'message') return sent;
    const { fallbackStep: _done, ...data } = job.data;
    const next = withState({ ...data, stepIndex: step.stepIndex, ...(fallback && { fallbackStep: step.stepIndex }) }, stateBefore(walk.state, step.stepIndex, step.step._id));
    if (sent.kind === 'unknown') {
      // At most one send more, and not before the long back-off: a provider slow to answer has long sent it by then.
      const runAt = earlier ? null : nextAttemptAt(fresh ? 0 : job.attempts, ctx.options.maxAttempts, now, UNKNOWN_OUTCOME_RETRY_MS);
      const then = earlier ? 'its send before was not answered either; it is not sent again' : runAt ? `it is sent again at ${runAt.toISOString()}` : 'no attempt is left; it is not sent again';
      const note = { ...sent.note, reason: `${sent.note.reason}; ${then}` };
      if (!runAt) return { kind: 'message', message: sent.message, note };
      // Stored now, as sent with its outcome unknown; the step waits for its one more send.
      messages.push(sent.message);
      notes.set(step.stepIndex, { ...note, decision: 'held' });
      return done({ kind: 'later', runAt, data: next, retry: !fresh, lastError: sent.error }, step.stepIndex);
    }
    const runAt = nextAttemptAt(fresh ? 0 : job.attempts, ctx.options.maxAttempts, now, sent.retryAfterMs);
    if (!runAt) return earlier && sent.final.message.status === 'error' ? keptUnknown(earlier, `its send again failed too (${sent.error})`) : sent.final;
    notes.set(step.stepIndex, { ...sent.note, decision: 'failed' });
    return done({ kind: 'later', runAt, data: next, retry: !fresh, lastError: sent.error }, step.stepIndex);
  }
  /** Keeps a delivery's message and what it says for explain and the events. */
  const keep = (stepIndex: number, sent: Extract<StepSent, { kind: 'message' }>, note: Partial<TraceEntry>) => {
    // An in-app message over a cap is not stored: an inbox item saying nothing was sent helps nobody.
    if (sent.message.channel === 'in_app' && sent.notSent !== undefined) {
      notes.set(stepIndex, { ...note, decision: 'skipped' });
      return;
    }
    messages.push(sent.message);
    windowHits.push(...(sent.capHits ?? []));
    notes.set(stepIndex, sent.failure ? { ...note, decision: 'failed' } : note);
    if (sent.notSent !== undefined) warnings.push({ message: sent.message, reason: sent.notSent });
    if (sent.failure) failures.push({ message: sent.message, error: sent.failure });
  };

  for (const step of walk.deliveries) {
    const base = buildMessage(step, { workflow, notification, subscriber, now: now.toISOString(), status: 'sent' });
    // Reached after the trigger's expiry (a delay, a held step): nobody would ever see it.
    if (isExpired(base, base.createdAt)) {
      notes.set(step.stepIndex, { decision: 'skipped', reason: `the message would have expired at ${base.expiresAt}, before it was made` });
      continue;
    }
    const fallbackTo = step.step.fallbackTo;
    // A retry of the fallback alone: the step's own message is stored already.
    const firstDone = job.data.fallbackStep === step.stepIndex;
    let sent: Extract<StepSent, { kind: 'message' }> | null = null;
    if (!firstDone) {
      const first = await sendOrRetry(step, base, false);
      if ('job' in first) return first;
      sent = first;
      keep(step.stepIndex, first, first.note);
    }
    const fallingBack = fallbackTo !== undefined && (firstDone || sent!.failure !== undefined || sent!.notSent !== undefined);
    // The subscriber's say over the fallback channel holds as over any step's: off, or outside their hours, it is not used.
    const gate = fallingBack ? channelGate({ preferences: subject.preferences, reach: subject.reach, subscriber, now, outsideSchedule: 'skip' }, workflow, fallbackTo) : null;
    if (fallingBack && gate?.kind !== 'send') {
      const before = notes.get(step.stepIndex);
      notes.set(step.stepIndex, { ...before, reason: `${before?.reason ? `${before.reason}; ` : ''}no fallback to ${fallbackTo}: ${gate && 'reason' in gate ? gate.reason : ''}` });
    } else if (fallingBack) {
      const second = await sendOrRetry({ ...step, channel: fallbackTo }, withExpiry(fallbackMessage(base, fallbackTo), notification), true);
      if ('job' in second) return second;
      const before = notes.get(step.stepIndex)?.reason;
      keep(step.stepIndex, second, { ...second.note, reason: `${before ? `${before}; ` : ''}fell back to ${fallbackTo}: ${second.note.reason ?? (second.message.status === 'sent' ? 'sent' : '')}` });
      sent = second;
    }
    if (sent?.failure && step.step.shouldStopOnFail) return done({ kind: 'done' }, step.stepIndex);
  }
  // Out of render budget: the steps before are delivered; the rest runs again at once (in its place in
  // the queue, so before the jobs claimed after it), in a batch of its own.
  if (walk.spent) return done({ kind: 'later', runAt: new Date(job.runAt), data: spentData(job, batch.jobs.length, walk.spent.stepIndex, walk.state), retry: false, lastError: null });
  if (walk.http) {
    // The request runs here, outside any transaction; its answer goes on with the walk's state, in the job's data.
    const call = walk.http;
    const outcome = await runHttpStep(call, httpTransport, { attempts: job.attempts, maxAttempts: ctx.options.maxAttempts, now, idempotencyKey: `${notification._id}:${subscriber._id}:${call.stepIndex}` });
    walk.trace.push(outcome.entry);
    if (outcome.kind === 'end') return done({ kind: 'done' });
    if (outcome.kind === 'retry') return done({ kind: 'later', runAt: outcome.runAt, data: withState({ ...job.data, stepIndex: call.stepIndex }, walk.state), retry: true, lastError: outcome.error });
    return done({ kind: 'later', runAt: now, data: withState({ ...job.data, stepIndex: call.stepIndex + 1 }, withRanStep(walk.state, outcome.ran)), retry: false, lastError: null });
  }
  // A delay after a digest keeps the digest's events for the steps after it.
  if (walk.resume) return done(waitUntil({ ...job, data: withState({ ...job.data, stepIndex: walk.resume.stepIndex }, walk.state) }, walk.resume.runAt));
  if (walk.throttle) {
    const { stepIndex, stepId, rule } = walk.throttle;
    const next = withState({ ...job.data, stepIndex: stepIndex + 1 }, walk.state);
    const runId = `${notification._id}:${subscriber._id}:${stepIndex}`;
    return done({ kind: 'done' }, undefined, throttleArrival({ workflowId: workflow._id, subscriberId: subscriber.subscriberId, transactionId: notification.transactionId, stepIndex, stepId, rule, next, runId }));
  }
  if (walk.wait) return done({ kind: 'done' }, undefined, waitBegin(job, walk.wait, { notification, subscriber, workflow, now, next: withState({ ...job.data, stepIndex: walk.wait.stepIndex + 1 }, walk.state) }));
  if (walk.digest) return done({ kind: 'done' }, undefined, digestArrival({ workflow, notification, subscriber, stepIndex: walk.digest.stepIndex, step: walk.digest.step, ...(walk.state && { state: walk.state }), cadenceChoice: workflowRow(subject.preferences, workflow._id)?.digest }));
  return done({ kind: 'done' });
}

type Deliver = ReturnType<typeof stepDeliverer>;

/** The walk runs in a batch of its own for the last time it may at this step: a step spending its budget alone then fails. */
const lastAloneRun = (job: JobOf<'walk'>, batchSize: number) => batchSize === 1 && (job.data.aloneRuns ?? 0) + 1 >= ALONE_RENDER_RUNS;

/**
 * A walk that ran out of render time goes on from `stepIndex` in a batch of its own; its runs alone
 * at that step are counted (a walk that got further starts the count again).
 */
function spentData(job: JobOf<'walk'>, batchSize: number, stepIndex: number, state: WalkState | undefined): WalkJobData {
  const sameStep = stepIndex === job.data.stepIndex;
  const aloneRuns = sameStep ? (job.data.aloneRuns ?? 0) + (batchSize === 1 ? 1 : 0) : 0;
  return { ...withState({ ...job.data, stepIndex }, state), runAlone: true, ...(aloneRuns > 0 && { aloneRuns }) };
}

/** What `explain` says of a walk whose user code ran out of time: the job is retried, or given up after its last attempt. */
function timedOut(job: JobOf<'walk'>, error: StepTimedOut, maxAttempts: number): JobResult {
  const then = job.attempts >= maxAttempts ? 'the job gives up' : `the job runs again later (attempt ${job.attempts} of ${maxAttempts})`;
  return resultOf(job, { kind: 'threw', error: error.message }, [traced([{ stepIndex: job.data.stepIndex, stepId: '', type: 'custom', decision: 'failed', reason: `${error.message}; ${then}` }])]);
}

/**
 * Walks the steps of one notification for one subscriber from the job's step, and delivers its
 * channel steps (provider calls happen here, outside any transaction). Stops where the walk must
 * wait (delay, schedule hold, provider retry) or reaches a digest or a throttle, which the commit
 * settles; a walk that ends here completes the subscriber's run.
 */
export const walkHandler =
  (deliver: Deliver, httpTransport?: HttpStepTransport): EngineJobHandler<'walk'> =>
  async (job, context) => {
    let result: JobResult;
    try {
      result = (await cancelledRun(job, context)) ?? (await walkJob(job, context, deliver, httpTransport));
    } catch (error) {
      if (error instanceof StepTimedOut) return timedOut(job, error, context.ctx.options.maxAttempts);
      throw error;
    }
    const goesOn = result.effects.some((e) => e.kind === 'digest.arrival' || e.kind === 'throttle.arrival' || e.kind === 'wait.begin');
    return result.next.kind === 'done' && !goesOn ? { ...result, effects: [...result.effects, runCompleted(job)] } : result;
  };
