import { randomUUID } from 'node:crypto';
import { TidingsError, notFound } from '../errors.js';
import { newId } from '../ids.js';
import { MAX_BULK_EVENTS, type Job, type Notification, type ParsedTriggerEvent, type Tenant, type TriggerEvent, type TriggerResult, type TriggerStatus } from '../schemas/index.js';
import type { StorageRepositories } from '../storage.js';
import { readRecipients } from '../trigger/read-recipients.js';
import { validateEvent } from '../trigger/validate-event.js';
import { workflowStatus } from '../trigger/workflow-status.js';
import type { EngineContext } from './context.js';

/** Ends an event's transaction early with a result instead of a failure. */
class EventRejected extends Error {
  constructor(readonly status: Exclude<TriggerStatus, 'processed'>, readonly errors: string[]) {
    super(errors.join('; '));
  }
}

async function resolveTenant(ctx: EngineContext, tenant: ParsedTriggerEvent['tenant']): Promise<Tenant | null | 'missing'> {
  if (tenant === undefined) return null;
  if (typeof tenant === 'string') return (await ctx.storage.tenants.get(ctx.env, tenant)) ?? 'missing';
  const existing = await ctx.storage.tenants.get(ctx.env, tenant.identifier);
  if (existing && tenant.name === undefined && tenant.data === undefined) return existing;
  const now = ctx.now();
  return ctx.storage.tenants.upsert(ctx.env, {
    _id: existing?._id ?? newId(ctx.clock.now()),
    identifier: tenant.identifier,
    name: tenant.name ?? existing?.name ?? tenant.identifier,
    data: tenant.data ?? existing?.data ?? {},
    _environmentId: ctx.env,
    createdAt: existing?.createdAt ?? now,
    updatedAt: now,
  });
}

/** Upserts inline subscribers, expands topics and returns every recipient's subscriberId, each once. */
async function recordRecipients(ctx: EngineContext, tx: StorageRepositories, event: ParsedTriggerEvent, actorId: string | null): Promise<string[]> {
  const { env } = ctx;
  const plan = readRecipients(event.to);
  const now = ctx.now();
  const directIds = plan.direct.map((d) => d.subscriberId);
  const existing = new Set((await tx.subscribers.getMany(env, directIds.filter((_, i) => !plan.direct[i]!.patch))).map((s) => s.subscriberId));
  const upserts = plan.direct
    .filter((d) => d.patch !== null || !existing.has(d.subscriberId))
    .map((d) => ({ patch: d.patch ?? { subscriberId: d.subscriberId }, _id: newId(ctx.clock.now()) }));
  if (typeof event.actor === 'object') upserts.push({ patch: event.actor, _id: newId(ctx.clock.now()) });
  if (upserts.length > 0) await tx.subscribers.upsertMany(env, upserts, now, ctx.organizationId);
  const recipients = new Set(directIds);
  if (plan.topicKeys.length > 0) {
    for (const id of await tx.topics.memberIds(env, plan.topicKeys)) if (id !== actorId) recipients.add(id);
  }
  return [...recipients];
}

export function triggerApi(ctx: EngineContext) {
  const { storage, env } = ctx;

  async function triggerOne(raw: unknown): Promise<TriggerResult> {
    const validation = validateEvent(raw);
    const givenId = typeof (raw as { transactionId?: unknown } | null)?.transactionId === 'string' ? (raw as { transactionId: string }).transactionId : undefined;
    const result = (status: TriggerStatus, error?: string[], transactionId = givenId): TriggerResult => ({
      acknowledged: true,
      status,
      ...(error && { error }),
      ...(transactionId !== undefined && { transactionId }),
    });
    if (!validation.ok) return result('error', validation.errors);
    const event = validation.event;
    const workflow = await storage.workflows.find(env, event.name);
    if (!workflow) return result('error', ['workflow_not_found']);
    const blocked = workflowStatus(workflow);
    if (blocked) return result(blocked);
    const tenant = await resolveTenant(ctx, event.tenant);
    if (tenant === 'missing') return result('no_tenant_found', [`tenant "${String(event.tenant)}" was not found`]);
    const transactionId = event.transactionId ?? randomUUID();
    const actorId = event.actor === undefined ? null : typeof event.actor === 'string' ? event.actor : event.actor.subscriberId;
    const now = ctx.now();
    const notification: Notification = {
      _id: newId(ctx.clock.now()),
      _environmentId: env,
      _organizationId: ctx.organizationId,
      _templateId: workflow._id,
      templateIdentifier: workflow.identifier,
      transactionId,
      payload: event.payload,
      overrides: event.overrides,
      actorId,
      tenantId: tenant?.identifier ?? null,
      context: event.context ?? {},
      createdAt: now,
    };
    try {
      const subscriberIds = await storage.transaction(async (tx) => {
        const recipients = await recordRecipients(ctx, tx, event, actorId);
        if (recipients.length === 0) throw new EventRejected('invalid_recipients', ['to holds no subscriber: no subscriberId, or only empty or unknown topics']);
        if (!(await tx.notifications.insert(env, notification))) throw new EventRejected('error', ['duplicate_transaction_id']);
        const jobs: Job[] = recipients.map((subscriberId) => ({
          id: newId(ctx.clock.now()),
          environmentId: env,
          kind: 'walk',
          runAt: now,
          attempts: 0,
          lockedBy: null,
          lockedUntil: null,
          transactionId,
          subscriberId,
          data: { notificationId: notification._id, stepIndex: 0 },
          lastError: null,
        }));
        await tx.jobs.enqueue(jobs);
        return recipients;
      });
      ctx.events.emit('notification.triggered', { notification, subscriberIds });
      ctx.events.emit('jobs.enqueued', { count: subscriberIds.length, earliestRunAt: now });
      return result('processed', undefined, transactionId);
    } catch (error) {
      if (error instanceof EventRejected) return result(error.status, error.errors);
      if (error instanceof TidingsError) return result('error', [error.message]);
      throw error;
    }
  }

  return {
    /** Triggers one event. The result says what happened; invalid input is a result, not a throw. */
    trigger: (event: TriggerEvent): Promise<TriggerResult> => triggerOne(event),
    /**
     * Triggers up to 100 events, each on its own and in order: one bad event never fails the others.
     * An empty list or more than 100 events refuses the whole call and processes nothing.
     */
    async triggerBulk(events: readonly TriggerEvent[]): Promise<TriggerResult[]> {
      if (!Array.isArray(events)) {
        throw new TidingsError('validation_failed', 'events must be an array', { issues: [{ path: 'events', message: 'must be an array' }] });
      }
      if (events.length === 0) {
        throw new TidingsError('validation_failed', 'events must contain at least 1 element', { issues: [{ path: 'events', message: 'must contain at least 1 element' }] });
      }
      if (events.length > MAX_BULK_EVENTS) {
        throw new TidingsError('too_many_events', `events must contain no more than ${MAX_BULK_EVENTS} elements`, {
          issues: [{ path: 'events', message: `must contain no more than ${MAX_BULK_EVENTS} elements` }],
        });
      }
      const results: TriggerResult[] = [];
      for (const event of events) results.push(await triggerOne(event));
      return results;
    },
    /**
     * Cancels the trigger's pending jobs (delays, held and retried steps) and takes its events out of
     * open digests. A digest the trigger opened passes to its oldest remaining event, keeping its due
     * time. Returns how many jobs were cancelled; not_found when the transaction is unknown.
     */
    async cancel(transactionId: string): Promise<{ cancelled: number }> {
      const notification = await storage.notifications.getByTransactionId(env, transactionId);
      if (!notification) throw notFound('Transaction', transactionId);
      return storage.transaction(async (tx) => {
        const cancelled = await tx.jobs.cancelByTransaction(env, transactionId);
        const { updated, removedOwnerOf } = await tx.digests.removeTransaction(env, transactionId);
        const handedOver: Job[] = updated
          .filter((digest) => removedOwnerOf.includes(digest.id))
          .map((digest) => {
            const owner = digest.events[0]!;
            return {
              id: newId(ctx.clock.now()),
              environmentId: env,
              kind: 'walk',
              runAt: digest.dueAt,
              attempts: 0,
              lockedBy: null,
              lockedUntil: null,
              transactionId: owner.transactionId,
              subscriberId: digest.subscriberId,
              data: { notificationId: owner.notificationId, stepIndex: digest.stepIndex + 1, digestId: digest.id },
              lastError: null,
            };
          });
        if (handedOver.length > 0) await tx.jobs.enqueue(handedOver);
        return { cancelled };
      });
    },
    /** What is still to happen: pending jobs (delays, held steps, digest flushes) and open digests. */
    async pending(filter: { subscriberId?: string; transactionId?: string } = {}) {
      const jobs = await storage.jobs.list(env, filter);
      const digests = await storage.digests.listOpen(env, filter);
      return {
        jobs: jobs.map((j) => ({ transactionId: j.transactionId, subscriberId: j.subscriberId, runAt: j.runAt, stepIndex: j.data.stepIndex, attempts: j.attempts, digestId: j.data.digestId ?? null, lastError: j.lastError })),
        digests: digests.map((d) => ({ id: d.id, workflowId: d.workflowId, subscriberId: d.subscriberId, digestKey: d.digestKey, openedAt: d.openedAt, dueAt: d.dueAt, count: d.events.length, transactionIds: d.events.map((e) => e.transactionId) })),
      };
    },
  };
}
