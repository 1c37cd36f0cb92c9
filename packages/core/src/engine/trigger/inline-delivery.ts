import { newId } from '../../ids.js';
import { buildMessage } from '../../messages/build-message.js';
import type { Cap, Job, JobPriority, Message, Notification, Subscriber, Tenant, Workflow } from '../../schemas/index.js';
import { capsInApp } from '../frequency/caps.js';
import type { StorageRepositories } from '../../storage.js';
import { RENDER_BUDGET_MS, renderBudget, type RenderMeter } from '../../templates/render.js';
import { groupBy } from '../../util/group-by.js';
import { decisionRecord, type DecisionRecord } from '../../walk/trace.js';
import type { EngineContext } from '../context.js';
import { newJob } from '../runtime/jobs.js';
import { loopYielder } from '../runtime/loop-yield.js';
import { readLooks } from '../email/read-looks.js';
import { lookNeeds } from '../email/look-needs.js';
import { storeWalkResults, walkSubject } from '../walk/walk-io.js';
import { readTopicReach } from '../walk/topic-reach.js';
import { NotPrecomputed, type PrecomputedRuns } from '../../walk/code-run-memo.js';

/** One subscriber's walk of a notification whose workflow walks inline (`walker.walksInline`). */
export interface InlineWalk {
  readonly subscriberId: string;
  readonly workflow: Workflow;
  readonly notification: Notification;
  readonly tenant: Tenant | null;
  /**
   * A code workflow's runs for this subscriber, made before the trigger's transaction; null when none
   * could be made (the walk goes to a job: user code never runs in the transaction).
   */
  readonly precomputed?: PrecomputedRuns | null | undefined;
}

/**
 * Whether a workflow's walks are stored inline instead of queued: in-app steps only, no cap over
 * in-app messages, and, inside the trigger's write transaction, no user code: a code workflow's walks
 * are inline there only when its runs were made before the transaction (`precomputed`), and in a
 * fan-out job, outside any transaction.
 */
export const walksInline = (ctx: EngineContext, workflow: Workflow, caps: readonly Cap[], where: 'trigger' | 'job', precomputed = false): boolean =>
  ctx.options.inlineInApp && ctx.walker.walksInline(workflow) && !capsInApp(caps, workflow) && (where === 'job' || precomputed || !ctx.walker.runsUserCode(workflow));

/** The job that walks `subscriberId` through the notification's workflow from its first step. */
export const firstWalkJob = (env: string, notification: Notification, subscriberId: string, now: Date, priority: JobPriority = 'transactional'): Job =>
  newJob({ env, kind: 'walk', runAt: now.toISOString(), transactionId: notification.transactionId, subscriberId, priority, data: { notificationId: notification._id, stepIndex: 0 } }, now);

const NONE_CREATED: ReadonlySet<string> = new Set();

/** What inline walks made: their in-app messages and decision records, and jobs for subscribers not found. */
export interface InlineWalked {
  readonly jobs: Job[];
  readonly messages: Message[];
  readonly records: DecisionRecord[];
}

/**
 * Walks that only make in-app messages, run without a job of their own. `repos` is where they read
 * (the trigger's transaction, or the storage for a fan-out); `known` holds subscribers the caller
 * already read or wrote (their latest state), and `created` those of them whose records the
 * caller's transaction made: they have no preferences yet (preferences are stored only for a
 * subscriber that exists, and go with it), so none are read for them. Each walk has its own render
 * budget; a walk that spends it, and every walk after the call's walks together spent
 * RENDER_BUDGET_MS (they may run inside the trigger's transaction), goes to a job instead: later,
 * not failed. The walks let other work run between them. A subscriber who is not there keeps a job,
 * which records why nothing was sent.
 */
export async function walkInline(ctx: EngineContext, repos: Pick<StorageRepositories, 'subscribers' | 'preferences' | 'records' | 'topics'>, walks: readonly InlineWalk[], known: ReadonlyMap<string, Subscriber>, priority: JobPriority = 'transactional', created: ReadonlySet<string> = NONE_CREATED): Promise<InlineWalked> {
  if (walks.length === 0) return { jobs: [], messages: [], records: [] };
  const tx = repos;
  const { env } = ctx;
  const ids = new Set<string>();
  for (const w of walks) {
    ids.add(w.subscriberId);
    if (w.notification.actorId) ids.add(w.notification.actorId);
  }
  const subscribers = new Map(known);
  const missing = [...ids].filter((id) => !known.has(id));
  if (missing.length > 0) for (const s of await tx.subscribers.getMany(env, missing)) subscribers.set(s.subscriberId, s);
  const withPreferences = [...new Set(walks.map((w) => w.subscriberId))].filter((id) => !created.has(id));
  const preferences = groupBy(withPreferences.length > 0 ? await tx.preferences.listMany(env, withPreferences) : [], (row) => row.subscriberId);
  const reach = await readTopicReach(tx, env, walks.flatMap((w) => {
    const subscriber = subscribers.get(w.subscriberId);
    return subscriber ? [{ notification: w.notification, subscriber }] : [];
  }));
  // In-app walks only: brands for their templates, no layouts.
  const look = await readLooks(tx.records, env, [...new Set(walks.flatMap((w) => (w.tenant ? [w.tenant.identifier] : [])))], lookNeeds(new Set(walks.map((w) => w.workflow)), false), ctx.options);
  const now = ctx.clock.now();
  const at = now.toISOString();
  const jobs: Job[] = [];
  const messages: Message[] = [];
  const records: DecisionRecord[] = [];
  const meter: RenderMeter = { spentMs: 0 };
  const breathe = loopYielder();
  for (const { subscriberId, workflow, notification, tenant, precomputed } of walks) {
    await breathe();
    const subscriber = subscribers.get(subscriberId);
    if (!subscriber || meter.spentMs >= RENDER_BUDGET_MS || precomputed === null) {
      jobs.push(firstWalkJob(env, notification, subscriberId, now, priority));
      continue;
    }
    const actor = notification.actorId ? subscribers.get(notification.actorId) ?? null : null;
    const walk = await walkSubject(ctx, { workflow, notification, subscriber, actor, tenant, preferences: preferences.get(subscriberId) ?? [], reach: reach(notification, subscriber) }, 0, now, { renderBudget: renderBudget({ meter }), look: look(tenant?.identifier), ...(precomputed && { precomputed }) }).catch(
      (error: unknown) => {
        // The walk saw other data than its runs were made with (the subscriber changed meanwhile): its job runs them afresh.
        if (error instanceof NotPrecomputed) return null;
        throw error;
      },
    );
    if (!walk || walk.spent) {
      jobs.push(firstWalkJob(env, notification, subscriberId, now, priority));
      continue;
    }
    for (const delivery of walk.deliveries) messages.push(buildMessage(delivery, { workflow, notification, subscriber, now: at, status: 'sent' }));
    records.push(decisionRecord(env, { id: newId(now), transactionId: notification.transactionId, subscriberId }, at, walk.trace, workflow.revision));
  }
  return { jobs, messages, records };
}

/**
 * Inline walks stored inside the trigger's transaction: their messages commit with the notification,
 * their decision records as one record under `callTraces` when the notifications name one.
 */
export async function deliverInline(ctx: EngineContext, tx: StorageRepositories, walks: readonly InlineWalk[], known: ReadonlyMap<string, Subscriber>, created: ReadonlySet<string>, callTraces?: string): Promise<{ jobs: Job[]; messages: Message[]; records: DecisionRecord[] }> {
  const walked = await walkInline(ctx, tx, walks, known, 'transactional', created);
  return { jobs: walked.jobs, messages: await storeWalkResults(ctx, tx, walked.messages, walked.records, callTraces), records: walked.records };
}
