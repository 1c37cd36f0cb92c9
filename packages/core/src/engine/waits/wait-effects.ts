import type { Job, JobOf, JsonObject, Notification, Subscriber, WalkJobData, Workflow } from '../../schemas/index.js';
import { decisionRecord } from '../../walk/trace.js';
import { eventMatches, type SignalEvent } from '../../waits/match-event.js';
import { tokenIdOf, tokenUrl } from '../../waits/token-url.js';
import type { WalkWait } from '../../waits/wait-step.js';
import type { EngineContext } from '../context.js';
import { linkSecrets } from '../links/link-secrets.js';
import { newJob } from '../runtime/jobs.js';
import { effectApplier, type EffectApplier } from '../runtime/job-result.js';
import { endWait } from './end-wait.js';
import { consumeWait, SIGNALS, TOKENS, tokenInput, WAITS, waitInput, waitTimeoutKey, type WaitRecord } from './wait-records.js';

/** A walk stopped at a wait step: the commit stores the wait and its timeout job. */
export interface WaitBeginEffect {
  readonly kind: 'wait.begin';
  readonly wait: WaitRecord;
  /** Signals this long before the wait began count too. */
  readonly lookBackMs?: number;
}

/** A wait's timeout came: the commit ends the wait, unless something ended it first. */
export interface WaitTimeoutEffect {
  readonly kind: 'wait.timeout';
  readonly waitId: string;
}


/** What filters on `subscriber` may read of the subscriber: the profile, not its channel credentials. */
const profileOf = (s: Subscriber): JsonObject =>
  JSON.parse(JSON.stringify({ firstName: s.firstName, lastName: s.lastName, email: s.email, phone: s.phone, locale: s.locale, timezone: s.timezone, data: s.data ?? {} })) as JsonObject;

/** The effect of a walk that stopped at a wait step. */
export function waitBegin(job: JobOf<'walk'>, wait: WalkWait, run: { notification: Notification; subscriber: Subscriber; workflow: Workflow; next: WalkJobData; now: Date }): WaitBeginEffect {
  const { spec } = wait;
  const isEvent = 'event' in spec;
  const record: WaitRecord = {
    waitId: `${run.notification._id}:${run.subscriber._id}:${wait.stepIndex}`,
    kind: isEvent ? 'event' : 'token',
    ...(isEvent && { event: spec.event }),
    ...(isEvent && spec.match !== undefined && { match: spec.match }),
    onTimeout: spec.onTimeout,
    onEvent: isEvent ? spec.onEvent : 'continue',
    startedAt: run.now.toISOString(),
    timeoutAt: new Date(run.now.getTime() + spec.timeout).toISOString(),
    transactionId: job.transactionId,
    subscriberId: job.subscriberId,
    workflowId: run.workflow._id,
    stepIndex: wait.stepIndex,
    stepId: wait.stepId,
    payload: run.notification.payload,
    subscriber: profileOf(run.subscriber),
    next: run.next,
  };
  return { kind: 'wait.begin', wait: record, ...(isEvent && spec.lookBack !== undefined && { lookBackMs: spec.lookBack }) };
}

/** A signal kept for waits that look back, sent since `since`, that the wait takes; the first one. */
async function lookedBack(ctx: EngineContext, tx: Parameters<EffectApplier['apply']>[1]['tx'], wait: WaitRecord, since: string): Promise<SignalEvent | null> {
  const kept = await tx.records.find(ctx.env, SIGNALS, { i1: wait.event!, sort: { gte: since } });
  for (const record of kept) {
    const event = record.doc as SignalEvent;
    if (eventMatches({ event: wait.event!, match: wait.match }, wait, event)) return event;
  }
  return null;
}

/**
 * Stores each wait with its timeout job (keyed by the wait) and, for a token, the token; a wait
 * already stored (the same walk counted again) stores nothing. A wait that looks back and finds a
 * matching signal ends at once.
 */
export function waitBeginApplier(ctx: EngineContext): EffectApplier {
  return effectApplier<WaitBeginEffect>(['wait.begin'], async (effects, { tx, now }) => {
    for (const { job, effect } of effects) {
      let wait = effect.wait;
      if (effect.lookBackMs !== undefined) {
        const event = await lookedBack(ctx, tx, wait, new Date(Date.parse(wait.startedAt) - effect.lookBackMs).toISOString());
        if (event) {
          await endWait(ctx, tx, wait, { kind: 'event', event }, now, job.id, false);
          continue;
        }
      }
      if (wait.kind === 'token') {
        const tokenId = tokenIdOf(ctx.env, wait.waitId);
        const secrets = await linkSecrets(tx.records, ctx.env, now.toISOString());
        wait = { ...wait, tokenId, tokenUrl: tokenUrl(ctx.options.links?.baseUrl, secrets.current, tokenId) };
      }
      if ((await tx.records.insertNew(ctx.env, WAITS, [waitInput(wait)])).length === 0) continue;
      if (wait.tokenId !== undefined) {
        const token = { id: wait.tokenId, url: wait.tokenUrl!, status: 'waiting' as const, transactionId: wait.transactionId, subscriberId: wait.subscriberId, workflowId: wait.workflowId, stepId: wait.stepId, createdAt: wait.startedAt, timeoutAt: wait.timeoutAt, waitId: wait.waitId };
        await tx.records.put(ctx.env, TOKENS, [tokenInput(token)]);
      }
      const timeout: Job = newJob({ env: ctx.env, kind: 'wait', runAt: wait.timeoutAt, transactionId: wait.transactionId, subscriberId: wait.subscriberId, key: waitTimeoutKey(wait.waitId), data: { waitId: wait.waitId } }, now);
      await tx.jobs.enqueue(ctx.env, [timeout]);
      const what = wait.kind === 'token' ? `token ${wait.tokenId}` : `event "${wait.event}"`;
      const entry = { stepIndex: wait.stepIndex, stepId: wait.stepId, type: 'wait' as const, decision: 'held' as const, reason: `waiting for ${what} until ${wait.timeoutAt}` };
      await tx.traces.append([decisionRecord(ctx.env, job, now.toISOString(), [entry])]);
    }
  });
}

/** Ends each timed-out wait that nothing ended first: the walk goes on with `{ matched: false }`, or ends (`onTimeout: halt`). */
export function waitTimeoutApplier(ctx: EngineContext): EffectApplier {
  return effectApplier<WaitTimeoutEffect>(['wait.timeout'], async (effects, { tx, now }) => {
    for (const { job, effect } of effects) {
      const wait = await consumeWait(tx.records, ctx.env, effect.waitId);
      if (wait) await endWait(ctx, tx, wait, { kind: 'timeout' }, now, job.id);
    }
  });
}
