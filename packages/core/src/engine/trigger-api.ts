import { TidingsError, notFound } from '../errors.js';
import { newId, newTransactionId } from '../ids.js';
import { MAX_BULK_EVENTS, type Job, type Message, type Notification, type ParsedTriggerEvent, type Tenant, type TriggerEvent, type TriggerResult, type TriggerStatus, type Workflow } from '../schemas/index.js';
import type { SubscriberUpsert } from '../storage.js';
import { readRecipients } from '../trigger/read-recipients.js';
import { validateEvent } from '../trigger/validate-event.js';
import { workflowStatus } from '../trigger/workflow-status.js';
import type { EngineContext } from './context.js';
import { deliverInline } from './inline-delivery.js';

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

/** An event that passed every check made before storage: it is recorded unless its recipients or transactionId fail. */
interface Prepared {
  readonly index: number;
  readonly event: ParsedTriggerEvent;
  readonly workflow: Workflow;
  readonly tenant: Tenant | null;
  readonly notification: Notification;
  readonly actorId: string | null;
  readonly givenId: string | undefined;
}

const resultOf = (status: TriggerStatus, error: string[] | undefined, transactionId: string | undefined): TriggerResult => ({
  acknowledged: true,
  status,
  ...(error && { error }),
  ...(transactionId !== undefined && { transactionId }),
});

export function triggerApi(ctx: EngineContext) {
  const { storage, env } = ctx;

  /** Validation, workflow status and tenant: everything decided before the storage transaction. */
  async function prepare(raw: unknown, index: number, workflows: Map<string, Promise<Workflow | null>>): Promise<Prepared | TriggerResult> {
    const validation = validateEvent(raw);
    const givenId = typeof (raw as { transactionId?: unknown } | null)?.transactionId === 'string' ? (raw as { transactionId: string }).transactionId : undefined;
    if (!validation.ok) return resultOf('error', validation.errors, givenId);
    const event = validation.event;
    let lookup = workflows.get(event.name);
    if (!lookup) workflows.set(event.name, (lookup = storage.workflows.find(env, event.name)));
    const workflow = await lookup;
    if (!workflow) return resultOf('error', ['workflow_not_found'], givenId);
    const blocked = workflowStatus(workflow);
    if (blocked) return resultOf(blocked, undefined, givenId);
    const tenant = await resolveTenant(ctx, event.tenant);
    if (tenant === 'missing') return resultOf('no_tenant_found', [`tenant "${String(event.tenant)}" was not found`], givenId);
    const actorId = event.actor === undefined ? null : typeof event.actor === 'string' ? event.actor : event.actor.subscriberId;
    const now = ctx.now();
    const notification: Notification = {
      _id: newId(ctx.clock.now()),
      _environmentId: env,
      _organizationId: ctx.organizationId,
      _templateId: workflow._id,
      templateIdentifier: workflow.identifier,
      transactionId: event.transactionId ?? newTransactionId(ctx.clock.now()),
      payload: event.payload,
      overrides: event.overrides,
      actorId,
      tenantId: tenant?.identifier ?? null,
      context: event.context ?? {},
      createdAt: now,
    };
    return { index, event, workflow, tenant, notification, actorId, givenId };
  }

  /**
   * Records the prepared events in one storage transaction: each event's notification, inline
   * subscribers and jobs are written only once its own checks pass, so an event is whole or absent
   * and one bad event never touches the others. Writes are batched: one upsert and one enqueue.
   */
  async function record(prepared: readonly Prepared[], results: TriggerResult[]): Promise<{ recorded: { notification: Notification; subscriberIds: string[] }[]; queued: number; messages: Message[] }> {
    if (prepared.length === 0) return { recorded: [], queued: 0, messages: [] };
    return storage.transaction(async (tx) => {
      const now = ctx.now();
      const plans = prepared.map((p) => readRecipients(p.event.to));
      const bareIds = [...new Set(plans.flatMap((plan) => plan.direct.filter((d) => d.patch === null).map((d) => d.subscriberId)))];
      // Subscribers read or written here, so in-app delivery below does not read them again.
      const known = new Map((await tx.subscribers.getMany(env, bareIds)).map((s) => [s.subscriberId, s] as const));
      const existing = new Set(known.keys());
      const upserts: SubscriberUpsert[] = [];
      const jobs: Job[] = [];
      const owners = new Map<Job, Prepared>();
      const recorded: { notification: Notification; subscriberIds: string[] }[] = [];
      // Recipients first: an event without any is refused before anything of it is written.
      const withRecipients: { p: Prepared; plan: (typeof plans)[number]; subscriberIds: string[] }[] = [];
      for (const [i, p] of prepared.entries()) {
        const plan = plans[i]!;
        const recipients = new Set(plan.direct.map((d) => d.subscriberId));
        if (plan.topicKeys.length > 0) for (const id of await tx.topics.memberIds(env, plan.topicKeys)) if (id !== p.actorId) recipients.add(id);
        if (recipients.size === 0) results[p.index] = resultOf('invalid_recipients', ['to holds no subscriber: no subscriberId, or only empty or unknown topics'], p.givenId);
        else withRecipients.push({ p, plan, subscriberIds: [...recipients] });
      }
      // Then the notifications, in one statement: a transactionId already used refuses its event.
      const stored = new Set(await tx.notifications.insertMany(env, withRecipients.map((w) => w.p.notification)));
      for (const { p, plan, subscriberIds } of withRecipients) {
        if (!stored.has(p.notification._id)) {
          results[p.index] = resultOf('error', ['duplicate_transaction_id'], p.givenId);
          continue;
        }
        for (const d of plan.direct) {
          if (d.patch !== null) upserts.push({ patch: d.patch, _id: newId(ctx.clock.now()) });
          else if (!existing.has(d.subscriberId)) {
            upserts.push({ patch: { subscriberId: d.subscriberId }, _id: newId(ctx.clock.now()) });
            existing.add(d.subscriberId);
          }
        }
        if (typeof p.event.actor === 'object') upserts.push({ patch: p.event.actor, _id: newId(ctx.clock.now()) });
        for (const subscriberId of subscriberIds) {
          const job: Job = {
            id: newId(ctx.clock.now()),
            environmentId: env,
            kind: 'walk',
            runAt: now,
            attempts: 0,
            lockedBy: null,
            lockedUntil: null,
            transactionId: p.notification.transactionId,
            subscriberId,
            data: { notificationId: p.notification._id, stepIndex: 0 },
            lastError: null,
          };
          jobs.push(job);
          owners.set(job, p);
        }
        results[p.index] = resultOf('processed', undefined, p.notification.transactionId);
        recorded.push({ notification: p.notification, subscriberIds });
      }
      if (upserts.length > 0) for (const s of await tx.subscribers.upsertMany(env, upserts, now, ctx.organizationId)) known.set(s.subscriberId, s);
      let queue = jobs;
      let messages: Message[] = [];
      if (ctx.options.inlineInApp) {
        const inline = await deliverInline(ctx, tx, jobs.map((job) => ({ job, workflow: owners.get(job)!.workflow, notification: owners.get(job)!.notification, tenant: owners.get(job)!.tenant })), known);
        queue = inline.jobs;
        messages = inline.messages;
      }
      if (queue.length > 0) await tx.jobs.enqueue(queue);
      return { recorded, queued: queue.length, messages };
    });
  }

  async function triggerMany(events: readonly unknown[]): Promise<TriggerResult[]> {
    const workflows = new Map<string, Promise<Workflow | null>>();
    const results: TriggerResult[] = new Array(events.length);
    const prepared: Prepared[] = [];
    for (const [index, raw] of events.entries()) {
      const outcome = await prepare(raw, index, workflows);
      if ('acknowledged' in outcome) results[index] = outcome;
      else prepared.push(outcome);
    }
    const { recorded, queued, messages } = await record(prepared, results);
    for (const { notification, subscriberIds } of recorded) ctx.events.emit('notification.triggered', { notification, subscriberIds });
    for (const message of messages) {
      ctx.events.emit('message.created', { message });
      ctx.events.emit('message.sent', { message });
    }
    if (queued > 0) ctx.events.emit('jobs.enqueued', { count: queued, earliestRunAt: ctx.now() });
    return results;
  }

  return {
    /** Triggers one event. The result says what happened; invalid input is a result, not a throw. */
    trigger: async (event: TriggerEvent): Promise<TriggerResult> => (await triggerMany([event]))[0]!,
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
      return triggerMany(events);
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
