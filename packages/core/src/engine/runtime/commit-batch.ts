import type { Job, Message, Subscriber, WebhookDelivery, WebhookEndpoint } from '../../schemas/index.js';
import type { Digest, StorageRepositories, WindowHit } from '../../storage.js';
import { withoutDeviceTokens, type DeadDeviceTokens } from '../../subscribers/drop-device-tokens.js';
import { groupBy } from '../../util/group-by.js';
import { decisionRecord, type DecisionRecord, type TraceEntry } from '../../walk/trace.js';
import type { EngineContext } from '../context.js';
import type { JobResult, MessageUpdate } from './run-job.js';
import { nextAttemptAt } from './jobs.js';
import { linkSentMessages, type TracksStatus } from '../delivery/provider-status.js';
import { queueWebhookEvents, type WebhookEvent } from '../webhooks/webhook-outbox.js';
import { endpointAfter } from '../webhooks/webhook-handler.js';
import { settleArrival } from '../digests/settle-digest.js';
import { settleThrottle } from '../frequency/settle-throttle.js';
import { scheduleSweep } from '../retention/sweep.js';
import { storeWalkResults } from '../walk/walk-io.js';
import { clearRetriedErrors } from '../walk/retry-run.js';

/** What a committed batch did, for the events emitted after the commit. */
export interface Committed {
  readonly stored: Message[];
  readonly failures: { message: Message; error: string }[];
  readonly warnings: { message: Message; reason: string }[];
  readonly flushed: { digest: Digest; subscriberId: string }[];
  readonly gaveUp: { job: Job; error: string }[];
  readonly updated: Message[];
  /** Webhook endpoints this batch disabled. */
  readonly disabledEndpoints: WebhookEndpoint[];
}

type Settled = { kind: 'done' } | { kind: 'gave_up'; error: string } | { kind: 'later'; runAt: Date; data: Job['data']; retry: boolean; lastError: string | null };

/** A job's next step; a job that threw retries or gives up, by the one retry policy. */
function settle(ctx: EngineContext, result: JobResult, now: Date): Settled {
  const { next } = result;
  if (next.kind !== 'threw') return next;
  const runAt = nextAttemptAt(result.job.attempts, ctx.options.maxAttempts, now);
  return runAt ? { kind: 'later', runAt, data: result.job.data, retry: true, lastError: next.error } : { kind: 'gave_up', error: next.error };
}

/** Completes or reschedules each job, but only while this worker holds it; returns the ids it held. */
async function finishJobs(ctx: EngineContext, tx: StorageRepositories, workerId: string, settled: readonly { result: JobResult; settled: Settled }[]): Promise<Set<string>> {
  const held = new Set<string>();
  for (const { result, settled: s } of settled) {
    if (s.kind !== 'later') continue;
    const change = { runAt: s.runAt.toISOString(), data: s.data, lastError: s.lastError, resetAttempts: !s.retry };
    if (await tx.jobs.reschedule(ctx.env, result.job.id, workerId, change)) held.add(result.job.id);
  }
  const finished = settled.filter((s) => s.settled.kind !== 'later').map((s) => s.result.job.id);
  if (finished.length > 0) for (const id of await tx.jobs.complete(ctx.env, finished, workerId)) held.add(id);
  return held;
}

/** Applies message updates to the messages as stored now; returns the messages changed. */
async function updateMessages(ctx: EngineContext, tx: StorageRepositories, updates: readonly MessageUpdate[]): Promise<Message[]> {
  const changed: Message[] = [];
  for (const update of updates) {
    const [subscriber] = await tx.subscribers.getMany(ctx.env, [update.subscriberId]);
    const [stored] = subscriber ? await tx.messages.getMany(ctx.env, subscriber._id, [update.messageId]) : [];
    const next = stored && update.apply(stored);
    if (next) changed.push(next);
  }
  if (changed.length > 0) await tx.messages.replaceMany(ctx.env, changed);
  return changed;
}

/** Removes dead device tokens from the subscribers as stored now, so no later send tries them. */
async function dropDeadTokens(ctx: EngineContext, tx: StorageRepositories, dead: readonly { subscriberId: string; tokens: readonly DeadDeviceTokens[] }[], at: string): Promise<void> {
  if (dead.length === 0) return;
  const bySubscriber = groupBy(dead, (d) => d.subscriberId);
  const changed: Subscriber[] = [];
  for (const subscriber of await tx.subscribers.getMany(ctx.env, [...bySubscriber.keys()])) {
    const next = withoutDeviceTokens(subscriber, bySubscriber.get(subscriber.subscriberId)!.flatMap((d) => d.tokens), at);
    if (next) changed.push(next);
  }
  if (changed.length > 0) await tx.subscribers.putMany(ctx.env, changed);
}

/**
 * Commits a batch whole or not at all, and only what this worker still holds: each job's completion
 * or reschedule matches only while its lease is this worker's, and says so, so a job another worker
 * took meanwhile contributes nothing (that worker's run stores its effects). Then the held jobs'
 * results are written: messages, decision records, digest joins and closes, message updates and the
 * jobs they queue.
 */
export async function commitBatch(ctx: EngineContext, workerId: string, now: Date, results: readonly JobResult[], tracksStatus: TracksStatus): Promise<Committed> {
  const { env } = ctx;
  const at = now.toISOString();
  return ctx.storage.transaction(async (tx) => {
    const settled = results.map((result) => ({ result, settled: settle(ctx, result, now) }));
    const held = await finishJobs(ctx, tx, workerId, settled);

    const messages: Message[] = [];
    const records: DecisionRecord[] = [];
    const failures: Committed['failures'] = [];
    const warnings: Committed['warnings'] = [];
    const flushed: Committed['flushed'] = [];
    const gaveUp: Committed['gaveUp'] = [];
    const enqueue: Job[] = [];
    const updates: MessageUpdate[] = [];
    const dead: { subscriberId: string; tokens: readonly DeadDeviceTokens[] }[] = [];
    const disabledEndpoints: WebhookEndpoint[] = [];
    const events: WebhookEvent[] = [];
    const hits: WindowHit[] = [];
    const newDeliveries: WebhookDelivery[] = [];
    const throttleExpiries: string[] = [];
    for (const { result, settled: s } of settled) {
      const { job } = result;
      if (!held.has(job.id)) continue;
      let trace: TraceEntry[] | null = result.trace;
      if (result.digestArrival) {
        const arrival = await settleArrival(tx, env, result.digestArrival, now);
        trace = [...(trace ?? []), arrival.entry];
        enqueue.push(...arrival.enqueue);
      }
      let goesOn = result.digestArrival !== undefined;
      if (result.throttleArrival) {
        const settledThrottle = await settleThrottle(tx, env, result.throttleArrival, now);
        trace = [...(trace ?? []), settledThrottle.entry];
        enqueue.push(...settledThrottle.enqueue);
        goesOn = !settledThrottle.throttled;
        if (settledThrottle.recordedUntil) throttleExpiries.push(settledThrottle.recordedUntil);
      }
      if (result.closeDigest !== undefined) {
        const closed = await tx.digests.close(env, result.closeDigest);
        if (closed) {
          flushed.push({ digest: closed, subscriberId: closed.subscriberId });
          events.push({ type: 'digest.flushed', data: { subscriberId: closed.subscriberId, transactionIds: closed.events.map((e) => e.transactionId), count: closed.events.length } });
        }
      }
      messages.push(...result.messages);
      failures.push(...result.failures);
      warnings.push(...result.warnings);
      records.push(...result.records);
      if (trace) records.push(decisionRecord(env, job, at, trace));
      enqueue.push(...result.enqueue);
      updates.push(...result.messageUpdates);
      if (result.windowHits) hits.push(...result.windowHits);
      if (result.newDeliveries) for (const delivery of result.newDeliveries) newDeliveries.push(delivery);
      if (result.deadTokens && job.subscriberId) dead.push({ subscriberId: job.subscriberId, tokens: result.deadTokens });
      if (result.webhook) {
        const { delivery, endpointOutcome } = result.webhook;
        await tx.webhooks.putDelivery(env, delivery);
        // Applied to the endpoint as stored now: the batch may hold several of its deliveries.
        const stored = endpointOutcome && (await tx.webhooks.getEndpoint(env, delivery.endpointId));
        const next = stored ? endpointAfter(stored, endpointOutcome, at, delivery.lastError) : null;
        if (next) await tx.webhooks.putEndpoint(env, next);
        if (stored && next && stored.active && !next.active) {
          disabledEndpoints.push(next);
          const { secret: _secret, ...endpoint } = next;
          events.push({ type: 'webhook.endpoint.disabled', data: { endpoint } });
        }
      }
      // The walk of this subscriber is over: nothing waits, nothing joined a digest.
      if (job.kind === 'walk' && s.kind === 'done' && !goesOn) events.push({ type: 'workflow.run.completed', data: { transactionId: job.transactionId, subscriberId: job.subscriberId } });
      if (s.kind === 'gave_up') gaveUp.push({ job, error: s.error });
    }
    const updated = await updateMessages(ctx, tx, updates);
    await dropDeadTokens(ctx, tx, dead, ctx.now());
    await clearRetriedErrors(tx, env, settled.flatMap(({ result }) => (held.has(result.job.id) ? [result] : [])));
    const stored = await storeWalkResults(ctx, tx, await linkSentMessages(tx, env, messages, tracksStatus), records);
    if (newDeliveries.length > 0) await tx.webhooks.insertDeliveries(env, newDeliveries);
    if (enqueue.length > 0) await tx.jobs.enqueue(env, enqueue);
    if (hits.length > 0) {
      await tx.frequency.prune(env, hits.map((h) => h.key), at);
      await tx.frequency.record(env, hits);
    }
    // Counted keys that are never counted again are pruned by the sweep.
    const counted = [...hits.map((h) => h.expiresAt), ...throttleExpiries].sort()[0];
    if (counted !== undefined) await scheduleSweep(ctx, tx, counted);
    await queueWebhookEvents(ctx, tx, events);
    return { stored, failures, warnings, flushed, gaveUp, updated, disabledEndpoints };
  });
}
