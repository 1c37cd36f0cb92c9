import { earliestExpiry } from '../../messages/expiry.js';
import { stepIndexOf } from '../../messages/build-message.js';
import type { Message } from '../../schemas/index.js';
import type { StorageRepositories } from '../../storage.js';
import { groupBy } from '../../util/group-by.js';
import type { DecisionRecord } from '../../walk/trace.js';
import type { EngineContext } from '../context.js';
import { newJob } from '../runtime/jobs.js';

/** The sweep job's key and transactionId: one sweep per environment, whichever process enqueues it. */
export const SWEEP_KEY = 'tidings:sweep';
/** The sweep runs at least this often once it exists: the retention policy's cadence, and a check that misses no expiry. */
export const SWEEP_EVERY_MS = 3_600_000;

const sweepJob = (ctx: EngineContext, runAt: string) =>
  newJob({ env: ctx.env, kind: 'sweep', runAt, transactionId: SWEEP_KEY, subscriberId: '', key: SWEEP_KEY, priority: 'bulk', data: {} }, ctx.clock.now());

/**
 * Makes the sweep run by `at`: enqueues the keyed job, or moves it earlier. A sweep due sooner is
 * left as it is (a keyed enqueue would move it later).
 */
export async function scheduleSweep(ctx: EngineContext, tx: StorageRepositories, at: string): Promise<void> {
  const [stored] = await tx.jobs.list(ctx.env, { transactionId: SWEEP_KEY });
  if (stored && stored.runAt <= at) return;
  await tx.jobs.enqueue(ctx.env, [sweepJob(ctx, at)]);
}

/** Stored messages that expire make the sweep run when the first of them does. */
export async function sweepWhenExpiring(ctx: EngineContext, tx: StorageRepositories, stored: readonly Message[]): Promise<void> {
  const first = earliestExpiry(stored);
  if (first !== undefined) await scheduleSweep(ctx, tx, first);
}

/** With a retention policy, the sweep exists: a missing one is enqueued to run now. */
export async function ensureSweep(ctx: EngineContext): Promise<void> {
  const { messages, notifications, audit } = ctx.options.retention;
  if (!messages && !notifications && !audit) return;
  await ctx.storage.transaction(async (tx) => {
    if ((await tx.jobs.list(ctx.env, { transactionId: SWEEP_KEY })).length === 0) await tx.jobs.enqueue(ctx.env, [sweepJob(ctx, ctx.now())]);
  });
}

/**
 * What `explain` answers for messages the sweeper deleted, one record per trigger and subscriber:
 * only for triggers whose notification is still stored (a deleted notification has no records).
 */
export async function deletionRecords(tx: StorageRepositories, env: string, jobId: string, at: string, deleted: readonly Message[], reason: (m: Message) => string): Promise<DecisionRecord[]> {
  if (deleted.length === 0) return [];
  const kept = new Set((await tx.notifications.getMany(env, [...new Set(deleted.map((m) => m._notificationId))])).map((n) => n._id));
  const groups = groupBy(deleted.filter((m) => kept.has(m._notificationId)), (m) => `${m.transactionId}\u0000${m.subscriberId}`);
  return [...groups.values()].map((messages) => ({
    environmentId: env,
    transactionId: messages[0]!.transactionId,
    subscriberId: messages[0]!.subscriberId,
    jobId,
    at,
    entries: messages.map((m) => {
      const stepIndex = stepIndexOf(m);
      return { stepIndex, stepId: m._messageTemplateId ?? String(stepIndex), type: m.channel, decision: 'expired' as const, reason: reason(m) };
    }),
  }));
}
