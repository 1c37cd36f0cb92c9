import type { Message, Tenant, WalkState } from '../../schemas/index.js';
import type { StorageRepositories } from '../../storage.js';
import type { DecisionRecord } from '../../walk/trace.js';
import type { DigestedEvent, WalkResult, WalkSubject } from '../../walk/walker.js';
import type { RenderBudget } from '../../templates/render.js';
import type { EngineContext } from '../context.js';
import type { EmailLook } from '../../email/email-look.js';
import type { PrecomputedRuns } from '../../walk/code-run-memo.js';
import { messageEvents, queueWebhookEvents } from '../webhooks/webhook-outbox.js';
import { sweepWhenExpiring } from '../retention/sweep.js';
import { pinnedWorkflows } from '../revisions/pinned-workflows.js';

/** What a walk continues from, and its render budget. */
export interface WalkOptions {
  readonly digestEvents?: readonly DigestedEvent[] | undefined;
  readonly renderBudget?: RenderBudget | undefined;
  readonly hopeless?: ReadonlySet<number> | undefined;
  readonly state?: WalkState | undefined;
  readonly messages?: ReadonlyMap<string, Message> | undefined;
  readonly look?: EmailLook | undefined;
  readonly precomputed?: PrecomputedRuns | undefined;
}

/** Walks the subject's steps from `startIndex` with the engine's walker and settings. */
export function walkSubject(ctx: EngineContext, subject: WalkSubject, startIndex: number, now: Date, { digestEvents, renderBudget, hopeless, state, messages, look, precomputed }: WalkOptions = {}): Promise<WalkResult> {
  // One object shape for every call (no spread), so the walker's hot code sees a single shape.
  return ctx.walker.walk({
    workflow: subject.workflow,
    notification: subject.notification,
    subscriber: subject.subscriber,
    actor: subject.actor,
    tenant: subject.tenant,
    preferences: subject.preferences,
    reach: subject.reach,
    startIndex,
    now,
    outsideSchedule: ctx.options.outsideSchedule,
    digestEvents,
    renderBudget,
    hopeless,
    state,
    messages,
    look,
    precomputed,
  });
}

/** The stored messages a walk of this state reads (a code workflow's in-app flags), by id; undefined when it reads none. */
export async function messagesForWalk(ctx: EngineContext, subject: WalkSubject, state: WalkState | undefined): Promise<Map<string, Message> | undefined> {
  const ids = ctx.walker.messagesToRead?.(subject.workflow, state, subject.notification._id, subject.subscriber._id) ?? [];
  if (ids.length === 0) return undefined;
  return new Map((await ctx.storage.messages.getMany(ctx.env, subject.subscriber._id, ids)).map((m) => [m._id, m] as const));
}

/**
 * The notifications of the jobs' `sources`, the workflow each one's run walks (see `pinnedWorkflows`) and their tenants, read once for a batch of
 * walks (by the job runner before its walks).
 */
export async function readWalkSources(repos: Pick<StorageRepositories, 'notifications' | 'workflows' | 'tenants' | 'records'>, env: string, sources: readonly { notificationId: string; transactionId: string }[]) {
  // A job's notification is nearly always its trigger's, read by its key; any other by its id.
  const wanted = new Set(sources.map((s) => s.notificationId));
  const byTrigger = await repos.notifications.getByTransactionIds(env, [...new Set(sources.map((s) => s.transactionId))]);
  const notifications = new Map(byTrigger.filter((n) => wanted.has(n._id)).map((n) => [n._id, n] as const));
  const others = [...wanted].filter((id) => !notifications.has(id));
  if (others.length > 0) for (const n of await repos.notifications.getMany(env, others)) notifications.set(n._id, n);
  const stored = [...notifications.values()];
  const current = new Map((await repos.workflows.getMany(env, [...new Set(stored.map((n) => n._templateId))])).map((w) => [w._id, w] as const));
  const workflowOf = await pinnedWorkflows(repos.records, env, stored, current);
  const tenants = new Map<string, Tenant | null>();
  for (const id of new Set(stored.flatMap((n) => (n.tenantId ? [n.tenantId] : [])))) tenants.set(id, await repos.tenants.get(env, id));
  return { notifications, workflowOf, tenants };
}

/**
 * The one way walks are stored, by inline delivery at trigger time and by the job runner's commit:
 * messages (a message already stored under its id is left as it is) and decision records (a trigger
 * call's as one record under `callTraces`), in the caller's transaction. Returns the messages actually inserted.
 */
export async function storeWalkResults(ctx: EngineContext, tx: StorageRepositories, messages: readonly Message[], records: readonly DecisionRecord[], callTraces?: string): Promise<Message[]> {
  const stored = messages.length > 0 ? await tx.messages.insertMany(ctx.env, messages) : [];
  await sweepWhenExpiring(ctx, tx, stored);
  if (records.length > 0) await (callTraces === undefined ? tx.traces.append(records) : tx.traces.appendCall(callTraces, records));
  await queueWebhookEvents(ctx, tx, stored.flatMap(messageEvents));
  return stored;
}
