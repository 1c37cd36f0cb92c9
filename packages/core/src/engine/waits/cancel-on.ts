import type { Job, JobOf, Workflow } from '../../schemas/index.js';
import type { StorageRepositories } from '../../storage.js';
import { decisionRecord, type TraceEntry } from '../../walk/trace.js';
import { eventMatches, type SignalEvent } from '../../waits/match-event.js';
import type { EngineContext } from '../context.js';
import { resultOf, type HandlerContext, type JobResult } from '../runtime/job-result.js';
import type { BatchData } from '../walk/batch-data.js';
import { traced } from '../walk/walk-effects.js';
import { digestFlushKey } from '../runtime/jobs.js';
import { CANCELLED_RUNS, runKey } from './wait-records.js';
import { deleteWaits } from './cancel-waits.js';
import { bringTimeoutsForward } from './end-wait.js';

/** How long a process trusts the workflows with `cancelOn` it read (as the webhook endpoints). */
const WORKFLOWS_TTL_MS = 1_000;
const cache = new WeakMap<EngineContext, { at: number; workflows: Workflow[] }>();

/** Forgets the workflows with `cancelOn` this engine read, after it changed one (another process's change is seen within a second). */
export const forgetCancellingWorkflows = (ctx: EngineContext) => cache.delete(ctx);

async function cancellingWorkflows(ctx: EngineContext, tx: StorageRepositories): Promise<Workflow[]> {
  const kept = cache.get(ctx);
  if (kept && Date.now() - kept.at < WORKFLOWS_TTL_MS) return kept.workflows;
  const workflows = (await tx.workflows.list(ctx.env)).filter((w) => (w.cancelOn?.length ?? 0) > 0);
  cache.set(ctx, { at: Date.now(), workflows });
  return workflows;
}

/**
 * The pending jobs read for the events of one call, by subscriber ('' for all): a bulk "mark all read"
 * reads them once. A run cancelled since is found again and skipped (its record is already there).
 */
export type PendingJobs = Map<string, Promise<Job[]>>;

/** A cancelled run is told apart from its neighbours of the same trigger by this record. */
const cancelEntry = (event: SignalEvent): TraceEntry => ({ stepIndex: 0, stepId: 'cancelOn', type: 'custom', decision: 'skipped', reason: `cancelled by the event "${event.name}" at ${event.at} (cancelOn): its pending steps do not run` });

/**
 * Cancels each pending run (a job of its walk, wait or digest) of a workflow whose `cancelOn` the
 * event matches, inside the signal's transaction: the run is recorded as cancelled (its later jobs
 * end at once, `cancelledRun`), its waits are deleted, and a trigger whose only pending run it was
 * loses its jobs and its events in open digests. Returns how many runs it cancelled.
 */
export async function cancelRuns(ctx: EngineContext, tx: StorageRepositories, event: SignalEvent, by: string, pending: PendingJobs = new Map()): Promise<number> {
  const workflows = (await cancellingWorkflows(ctx, tx)).filter((w) => w.cancelOn!.some((c) => c.event === event.name));
  if (workflows.length === 0) return 0;
  const { env } = ctx;
  const who = event.subscriberId ?? '';
  let listed = pending.get(who);
  if (!listed) pending.set(who, (listed = tx.jobs.list(env, event.subscriberId !== null ? { subscriberId: event.subscriberId } : undefined)));
  const jobs = (await listed).filter((j) => j.kind === 'walk' || j.kind === 'wait' || j.kind === 'digest');
  const runs = new Map<string, Job>();
  for (const job of jobs) runs.set(runKey(job.transactionId, job.subscriberId), job);
  if (runs.size === 0) return 0;
  const notifications = new Map((await tx.notifications.getByTransactionIds(env, [...new Set(jobs.map((j) => j.transactionId))])).map((n) => [n.transactionId, n]));
  const byId = new Map(workflows.map((w) => [w._id, w]));
  let cancelled = 0;
  for (const [key, job] of runs) {
    const notification = notifications.get(job.transactionId);
    const workflow = notification && byId.get(notification._templateId);
    if (!notification || !workflow) continue;
    const run = { subscriberId: job.subscriberId, transactionId: job.transactionId, payload: notification.payload };
    if (!workflow.cancelOn!.some((c) => eventMatches(c, run, event))) continue;
    if ((await tx.records.insertNew(env, CANCELLED_RUNS, [{ key, i1: job.transactionId, sort: event.at, doc: { event: event.name, at: event.at } }])).length === 0) continue;
    cancelled++;
    const waits = await deleteWaits(tx, env, key);
    // The trigger's only pending run: its jobs and digest events go now, as `tidings.cancel` does.
    if ((await tx.jobs.list(env, { transactionId: job.transactionId })).every((j) => j.subscriberId === job.subscriberId)) {
      await tx.jobs.cancelByTransaction(env, job.transactionId);
      const { deleted } = await tx.digests.removeTransaction(env, job.transactionId);
      for (const digestId of deleted) await tx.jobs.cancelByTransaction(env, digestFlushKey(digestId));
    } else {
      // Its other jobs end when they come (`cancelledRun`); its waits' timeouts come now.
      await bringTimeoutsForward(tx, env, waits, new Date(event.at));
    }
    await tx.traces.append([decisionRecord(env, { id: by, transactionId: job.transactionId, subscriberId: job.subscriberId }, event.at, [cancelEntry(event)])]);
  }
  return cancelled;
}

/**
 * A walk of a run `cancelOn` cancelled ends at once, saying so; null for a run that goes on. Only a
 * workflow with `cancelOn` has a run to read (without one, the answer is null at once, with no read).
 */
export function cancelledRun(job: Job, { ctx, batch }: HandlerContext<BatchData>): Promise<JobResult | null> | null {
  if (job.kind !== 'walk') return null;
  const notification = batch.notifications.get(job.data.notificationId);
  const workflow = notification && batch.workflowOf(notification);
  return workflow?.cancelOn?.length ? readCancelled(ctx, job) : null;
}

async function readCancelled(ctx: EngineContext, job: JobOf<'walk'>): Promise<JobResult | null> {
  const [cancelled] = await ctx.storage.records.getDocs(ctx.env, CANCELLED_RUNS, [runKey(job.transactionId, job.subscriberId)]);
  if (!cancelled) return null;
  const { event, at } = cancelled as { event: string; at: string };
  return resultOf(job, { kind: 'done' }, [traced([{ stepIndex: job.data.stepIndex, stepId: 'cancelOn', type: 'custom', decision: 'skipped', reason: `the run was cancelled by the event "${event}" at ${at} (cancelOn): this step and the ones after it do not run` }])]);
}
