import { applyUnsnooze } from '../messages/transitions.js';
import type { Job, Message } from '../schemas/index.js';
import type { Digest } from '../storage.js';
import type { DecisionRecord, StorageRepositories } from '../storage.js';
import type { TraceEntry } from '../trigger/walk-steps.js';
import type { EngineContext } from './context.js';
import { deliverInline, type InlineCandidate } from './inline-delivery.js';
import { newJob, nextAttemptAt } from './jobs.js';
import { settleDigest, type DigestArrival } from './settle-digest.js';
import type { JobOutcome, NextStep } from './walk-job.js';
import { decisionRecord, readWalkSources, storeWalkResults } from './walk-records.js';

/** What a committed batch did, for the events emitted after the commit. */
export interface Committed {
  readonly stored: Message[];
  readonly failures: JobOutcome['failures'];
  readonly flushed: { digest: Digest; subscriberId: string }[];
  readonly gaveUp: { job: Job; error: string }[];
  readonly unsnoozed: Message[];
}

type Settled = { kind: 'done' } | { kind: 'gave_up'; error: string } | { kind: 'later'; runAt: Date; data: Job['data']; retry: boolean; lastError: string | null };

type SettledJob = { outcome: JobOutcome; settled: Settled; trace: TraceEntry[] };

/** A job whose walk decided its next step, or that threw (it retries or gives up, by the one policy). */
function settleWalked(ctx: EngineContext, outcome: JobOutcome, next: Exclude<NextStep, { kind: 'digest' }>, now: Date): SettledJob {
  if (next.kind !== 'threw') return { outcome, settled: next, trace: outcome.trace };
  const runAt = nextAttemptAt(outcome.job.attempts, ctx.options.maxAttempts, now);
  return { outcome, settled: runAt ? { kind: 'later', runAt, data: outcome.job.data, retry: true, lastError: next.error } : { kind: 'gave_up', error: next.error }, trace: [] };
}

/** A job that reached a digest step: it joins or opens the digest here, inside the commit. */
async function settleArrival(ctx: EngineContext, tx: StorageRepositories, outcome: JobOutcome, arrival: DigestArrival, now: Date): Promise<SettledJob> {
  const digested = await settleDigest(tx, ctx.env, arrival, now);
  const entry: TraceEntry = { stepIndex: arrival.stepIndex, stepId: arrival.step._id ?? String(arrival.stepIndex), type: 'digest', decision: digested.kind === 'through' ? 'delivered' : 'delayed', reason: digested.reason };
  const trace = [...outcome.trace, entry];
  const base = { notificationId: arrival.notification._id, stepIndex: arrival.stepIndex + 1 };
  if (digested.kind === 'opened') return { outcome, settled: { kind: 'later', runAt: digested.dueAt, data: { ...base, digestId: digested.digestId }, retry: false, lastError: null }, trace };
  if (digested.kind === 'joined') return { outcome, settled: { kind: 'done' }, trace };
  // Let through (backoff): the walk goes on at once, as a digest of this event alone.
  return { outcome, settled: { kind: 'later', runAt: now, data: { ...base, passedDigest: true }, retry: false, lastError: null }, trace };
}

/** Brings back a snoozed message when its snooze ends (unless it was moved or lifted meanwhile). */
async function unsnoozed(ctx: EngineContext, tx: StorageRepositories, job: Job, now: Date): Promise<Message | null> {
  const [subscriber] = await tx.subscribers.getMany(ctx.env, [job.subscriberId]);
  const [message] = subscriber && job.data.messageId ? await tx.messages.getMany(ctx.env, subscriber._id, [job.data.messageId]) : [];
  return message?.snoozedUntil !== undefined && message.snoozedUntil <= now.toISOString() ? applyUnsnooze(message, now.toISOString()) : null;
}

/**
 * Starts the walks of a batch's fan-out jobs, in its commit: each member's walk that only stores
 * in-app messages is stored here (unless `inlineInApp` is off); every other walk is queued as a job
 * of its own. Returns the messages stored.
 */
async function startFanouts(ctx: EngineContext, tx: StorageRepositories, fanouts: readonly Job[], now: Date): Promise<Message[]> {
  if (fanouts.length === 0) return [];
  const { env } = ctx;
  const { notifications, workflows, tenants } = await readWalkSources(tx, env, fanouts.map((j) => j.data.notificationId));
  const candidates: InlineCandidate[] = [];
  for (const fanout of fanouts) {
    const notification = notifications.get(fanout.data.notificationId);
    const workflow = notification && workflows.get(notification._templateId);
    if (!notification || !workflow) continue;
    const tenant = notification.tenantId ? tenants.get(notification.tenantId) ?? null : null;
    for (const subscriberId of fanout.data.subscriberIds ?? []) {
      const job = newJob({ env, runAt: now.toISOString(), transactionId: fanout.transactionId, subscriberId, data: { notificationId: notification._id, stepIndex: 0 } }, now);
      candidates.push({ job, workflow, notification, tenant });
    }
  }
  const started = ctx.options.inlineInApp ? await deliverInline(ctx, tx, candidates, new Map()) : { jobs: candidates.map((c) => c.job), messages: [] };
  if (started.jobs.length > 0) await tx.jobs.enqueue(started.jobs);
  return started.messages;
}

/**
 * Commits a batch whole or not at all, and only what this worker still holds: each job's completion
 * or reschedule matches only while its lease is this worker's, and says so, so a job another worker
 * took meanwhile contributes nothing (that worker's run stores its effects). Jobs whose next step is
 * decided here (digest arrivals, unsnoozes) renew their lease first, which also locks them. Then the
 * held jobs' messages and decision records are stored.
 */
export async function commitBatch(ctx: EngineContext, workerId: string, now: Date, outcomes: readonly JobOutcome[], unsnoozes: readonly Job[], fanouts: readonly Job[]): Promise<Committed> {
  const { env } = ctx;
  const leaseEnd = new Date(now.getTime() + ctx.options.leaseMs).toISOString();
  const settledHere = [...outcomes.filter((o) => o.next.kind === 'digest').map((o) => o.job.id), ...unsnoozes.map((j) => j.id), ...fanouts.map((j) => j.id)];
  return ctx.storage.transaction(async (tx) => {
    const locked = new Set(settledHere.length > 0 ? await tx.jobs.renew(settledHere, workerId, leaseEnd) : []);
    const settledJobs: SettledJob[] = [];
    for (const outcome of outcomes) {
      const { next } = outcome;
      if (next.kind !== 'digest') settledJobs.push(settleWalked(ctx, outcome, next, now));
      else if (locked.has(outcome.job.id)) settledJobs.push(await settleArrival(ctx, tx, outcome, next.arrival, now));
    }
    const held = new Set<string>();
    for (const { outcome, settled } of settledJobs) {
      if (settled.kind !== 'later') continue;
      const change = { runAt: settled.runAt.toISOString(), data: settled.data, lastError: settled.lastError, resetAttempts: !settled.retry };
      if (await tx.jobs.reschedule(outcome.job.id, workerId, change)) held.add(outcome.job.id);
    }
    const finished = [...settledJobs.filter((j) => j.settled.kind !== 'later').map((j) => j.outcome.job.id), ...[...unsnoozes, ...fanouts].filter((j) => locked.has(j.id)).map((j) => j.id)];
    if (finished.length > 0) for (const id of await tx.jobs.complete(finished, workerId)) held.add(id);

    const messages: Message[] = [];
    const records: DecisionRecord[] = [];
    const failures: JobOutcome['failures'] = [];
    const flushed: Committed['flushed'] = [];
    const gaveUp: Committed['gaveUp'] = [];
    for (const { outcome, settled, trace } of settledJobs) {
      const { job } = outcome;
      if (!held.has(job.id)) continue;
      messages.push(...outcome.messages);
      failures.push(...outcome.failures);
      if (outcome.next.kind !== 'threw') records.push(decisionRecord(env, job, now.toISOString(), trace));
      if (outcome.flushed) flushed.push({ digest: outcome.flushed, subscriberId: job.subscriberId });
      if (settled.kind === 'gave_up') gaveUp.push({ job, error: settled.error });
    }
    const back: Message[] = [];
    for (const job of unsnoozes) {
      if (!held.has(job.id)) continue;
      const message = await unsnoozed(ctx, tx, job, now);
      if (message) back.push(message);
    }
    if (back.length > 0) await tx.messages.replaceMany(back);
    const stored = await storeWalkResults(tx, messages, records);
    stored.push(...(await startFanouts(ctx, tx, fanouts.filter((j) => held.has(j.id)), now)));
    return { stored, failures, flushed, gaveUp, unsnoozed: back };
  });
}
