import type { Message, Notification, PreferenceRow, Subscriber, Tenant, Workflow } from '../schemas/index.js';
import type { DecisionEntry, DecisionRecord, StorageRepositories } from '../storage.js';
import type { RenderBudget } from '../templates/render.js';
import { walkSteps, type WalkResult } from '../trigger/walk-steps.js';
import type { EngineContext } from './context.js';

/** Everything a walk of one notification for one subscriber reads. */
export interface WalkSubject {
  readonly workflow: Workflow;
  readonly notification: Notification;
  readonly subscriber: Subscriber;
  readonly actor: Subscriber | null;
  readonly tenant: Tenant | null;
  readonly preferences: readonly PreferenceRow[];
}

/** What a walk continues from, and the render budget of the call it belongs to. */
export interface WalkOptions {
  readonly digestEvents?: readonly Record<string, unknown>[];
  readonly renderBudget?: RenderBudget;
}

/** Walks the subject's steps from `startIndex` with the engine's settings. */
export function walkSubject(ctx: EngineContext, subject: WalkSubject, startIndex: number, now: Date, { digestEvents, renderBudget }: WalkOptions = {}): WalkResult {
  // One object shape for every call (no spread), so the walker's hot code sees a single shape.
  return walkSteps({
    workflow: subject.workflow,
    notification: subject.notification,
    subscriber: subject.subscriber,
    actor: subject.actor,
    tenant: subject.tenant,
    preferences: subject.preferences,
    startIndex,
    now,
    outsideSchedule: ctx.options.outsideSchedule,
    digestEvents,
    renderBudget,
  });
}

/**
 * The notifications of `notificationIds`, their workflows and their tenants, read once for a batch of
 * walks (by the job runner before its walks, and by a fan-out commit inside its transaction).
 */
export async function readWalkSources(repos: StorageRepositories, env: string, notificationIds: readonly string[]) {
  const notifications = new Map((await repos.notifications.getMany(env, [...new Set(notificationIds)])).map((n) => [n._id, n] as const));
  const stored = [...notifications.values()];
  const workflows = new Map((await repos.workflows.getMany(env, [...new Set(stored.map((n) => n._templateId))])).map((w) => [w._id, w] as const));
  const tenants = new Map<string, Tenant | null>();
  for (const id of new Set(stored.flatMap((n) => (n.tenantId ? [n.tenantId] : [])))) tenants.set(id, await repos.tenants.get(env, id));
  return { notifications, workflows, tenants };
}

export function decisionRecord(env: string, job: { id: string; transactionId: string; subscriberId: string }, at: string, entries: readonly DecisionEntry[]): DecisionRecord {
  return { environmentId: env, transactionId: job.transactionId, subscriberId: job.subscriberId, jobId: job.id, at, entries };
}

/**
 * The one way walks are stored, by inline delivery at trigger time and by the job runner: messages
 * (a message already stored under its deterministic id is left as it is) and decision records, in
 * the caller's transaction. Returns the messages actually inserted.
 */
export async function storeWalkResults(tx: StorageRepositories, messages: readonly Message[], records: readonly DecisionRecord[]): Promise<Message[]> {
  const stored = messages.length > 0 ? await tx.messages.insertMany(messages) : [];
  if (records.length > 0) await tx.traces.append(records);
  return stored;
}
