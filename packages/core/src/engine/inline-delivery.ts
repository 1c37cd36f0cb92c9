import { buildMessage } from '../messages/build-message.js';
import type { Job, Message, Notification, Subscriber, Tenant, Workflow } from '../schemas/index.js';
import type { DecisionRecord, StorageRepositories } from '../storage.js';
import { renderBudget as newRenderBudget } from '../templates/render.js';
import { groupBy } from '../util/group-by.js';
import type { EngineContext } from './context.js';
import { loopYielder } from './loop-yield.js';
import { decisionRecord, storeWalkResults, walkSubject } from './walk-records.js';

export interface InlineCandidate {
  readonly job: Job;
  readonly workflow: Workflow;
  readonly notification: Notification;
  readonly tenant: Tenant | null;
}

/**
 * `known` holds subscribers the caller already read or wrote in this transaction (their latest state).
 * With `inlineInApp`, walks that only store in-app messages (no delay, digest, provider step or hold)
 * run inside the trigger's own transaction: their messages commit with the notification and no job is
 * queued. Any other walk keeps its job. The walks share one render budget (RENDER_BUDGET_MS) and
 * let other work run between them. Returns the jobs still to enqueue and what was stored.
 */
export async function deliverInline(
  ctx: EngineContext,
  tx: StorageRepositories,
  candidates: readonly InlineCandidate[],
  known: ReadonlyMap<string, Subscriber>,
): Promise<{ jobs: Job[]; messages: Message[] }> {
  if (candidates.length === 0) return { jobs: [], messages: [] };
  const { env } = ctx;
  const ids = new Set<string>();
  for (const c of candidates) {
    ids.add(c.job.subscriberId);
    if (c.notification.actorId) ids.add(c.notification.actorId);
  }
  const subscribers = new Map(known);
  const missing = [...ids].filter((id) => !known.has(id));
  if (missing.length > 0) for (const s of await tx.subscribers.getMany(env, missing)) subscribers.set(s.subscriberId, s);
  const preferences = groupBy(await tx.preferences.listMany(env, candidates.map((c) => c.job.subscriberId)), (row) => row.subscriberId);
  const now = ctx.clock.now();
  const at = now.toISOString();
  const jobs: Job[] = [];
  const messages: Message[] = [];
  const records: DecisionRecord[] = [];
  const renderBudget = newRenderBudget();
  const breathe = loopYielder();
  for (const { job, workflow, notification, tenant } of candidates) {
    await breathe();
    const subscriber: Subscriber | undefined = subscribers.get(job.subscriberId);
    if (!subscriber) {
      jobs.push(job);
      continue;
    }
    const actor = notification.actorId ? subscribers.get(notification.actorId) ?? null : null;
    const walk = walkSubject(ctx, { workflow, notification, subscriber, actor, tenant, preferences: preferences.get(subscriber.subscriberId) ?? [] }, 0, now, { renderBudget });
    if (walk.resume || walk.digest || walk.deliveries.some((d) => d.channel !== 'in_app')) {
      jobs.push(job);
      continue;
    }
    for (const delivery of walk.deliveries) messages.push(buildMessage(delivery, { workflow, notification, subscriber, now: at, status: 'sent' }));
    records.push(decisionRecord(env, job, at, walk.trace));
  }
  return { jobs, messages: await storeWalkResults(tx, messages, records) };
}
