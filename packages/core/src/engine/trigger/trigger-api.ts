import { TidingsError, notFound, type FieldIssue } from '../../errors.js';
import { namedContexts, type NamedContext } from '../../contexts/context-keys.js';
import { resolveContexts, storeGivenContexts, type ContextDataSeen } from '../contexts/context-records.js';
import { capsInForce } from '../frequency/caps.js';
import { newId, newTransactionId } from '../../ids.js';
import { MAX_BULK_EVENTS, MAX_RECIPIENTS_PER_CALL, type BroadcastEvent, type Job, type JobPriority, type Message, type Notification, type ParsedBroadcastEvent, type ParsedTriggerEvent, type Tenant, type TriggerEvent, type TriggerResult, type TriggerStatus, type Workflow } from '../../schemas/index.js';
import type { StorageRepositories, SubscriberUpsert } from '../../storage.js';
import { withPayloadDefaults } from '../../trigger/payload-defaults.js';
import { scheduledDelayErrors } from '../../trigger/scheduled-delays.js';
import { upsertSubscribers } from '../../subscribers/upsert-subscribers.js';
import { readRecipients, type RecipientPlan } from '../../trigger/read-recipients.js';
import { subscriberWrites } from '../../trigger/subscriber-writes.js';
import type { PagedAudience } from './audience-pages.js';
import { readEnvironmentAudience } from './environment-audience.js';
import { readTopicAudience } from './topic-audience.js';
import { validateBroadcast, validateEvent } from '../../trigger/validate-event.js';
import { workflowStatus } from '../../trigger/workflow-status.js';
import type { EngineContext } from '../context.js';
import { deliverInline, firstWalkJob, walksInline, type InlineWalk } from './inline-delivery.js';
import { precomputeRuns, type RunsBySubscriber } from './precompute-runs.js';
import { announceSkips } from '../walk/skip-events.js';
import type { DecisionRecord } from '../../walk/trace.js';
import { groupCommit } from './group-commit.js';
import { newCallTraceKey } from '../../records/traces.js';
import { watchWrite } from '../runtime/write-health.js';
import { digestFlushKey, newJob } from '../runtime/jobs.js';
import { cancelWaitsOf } from '../waits/cancel-waits.js';
import { triggerSpans } from '../telemetry/trigger-spans.js';
import { debounceGroup } from '../../debounce/debounce-group.js';
import { joinBurst, type DebounceRecord, type HeldTrigger } from '../../debounce/debounce-burst.js';
import { debounceJob, debounceJobKey, DEBOUNCES, burstOfTransaction, putDebounces, readDebounces } from '../debounce/debounce-records.js';

type TenantRef = ParsedTriggerEvent['tenant'];
type FanoutData = Extract<Job, { kind: 'fanout' }>['data'];
type TenantChange = Exclude<TenantRef, string | undefined>;

/** The tenant an event names by identifier, checked before its transaction: null, or 'missing'. */
async function namedTenant(ctx: EngineContext, tenant: TenantRef): Promise<Tenant | null | 'missing'> {
  if (typeof tenant !== 'string') return null;
  return (await ctx.storage.tenants.get(ctx.env, tenant)) ?? 'missing';
}

/**
 * Creates or updates the tenant an event carries as an object, inside the event's transaction, so an
 * event refused there (no recipients, a used transactionId) changes no tenant. `seen` holds the
 * tenants this call already wrote, so later events of a bulk build on earlier ones.
 */
async function upsertTenant(ctx: EngineContext, tx: StorageRepositories, change: TenantChange, seen: Map<string, Tenant>): Promise<Tenant> {
  const existing = seen.get(change.identifier) ?? (await tx.tenants.get(ctx.env, change.identifier));
  if (existing && change.name === undefined && change.data === undefined) return existing;
  const now = ctx.now();
  const tenant = await tx.tenants.upsert(ctx.env, {
    _id: existing?._id ?? newId(ctx.clock.now()),
    identifier: change.identifier,
    name: change.name ?? existing?.name ?? change.identifier,
    data: change.data ?? existing?.data ?? {},
    _environmentId: ctx.env,
    createdAt: existing?.createdAt ?? now,
    updatedAt: now,
  });
  seen.set(tenant.identifier, tenant);
  return tenant;
}

/**
 * Who a call's events go to, decided once at its start: the recipients each event names in `to`, or,
 * for a broadcast, every subscriber of the environment.
 */
type Addressing = 'named' | 'everyone';

/** How a call treats debounces: `hold` debounced events in their bursts, or `run` them (a burst's own run). */
type Debouncing = 'hold' | 'run';

/** A broadcast's recipients: none named; its audience is the environment's subscribers. */
const NO_RECIPIENTS: RecipientPlan = { direct: [], topics: [] };

/** An event that passed every check made before storage: it is recorded unless its recipients or transactionId fail. */
interface Prepared {
  readonly index: number;
  /** A broadcast's event has no `to`. */
  readonly event: ParsedTriggerEvent | ParsedBroadcastEvent;
  readonly workflow: Workflow;
  /** The tenant named by identifier; one given as an object is written and read in the transaction. */
  readonly tenant: Tenant | null;
  readonly notification: Notification;
  readonly actorId: string | null;
  readonly givenId: string | undefined;
  /** Who the event names: its subscribers with their inline fields, and its topics (none for a broadcast). */
  readonly plan: RecipientPlan;
  /** A debounced event: it joins its burst instead of running now. */
  readonly held?: HeldTrigger;
  /** A code workflow's runs, made before the transaction, for the subscribers it names (see `precomputeRuns`). */
  readonly precomputed?: RunsBySubscriber;
}

/** One trigger call's events that passed their checks, and the results array they answer in. */
interface Call {
  readonly prepared: readonly Prepared[];
  readonly results: TriggerResult[];
}

/** What recording one call wrote: its notifications with their audiences, and its inline messages. */
interface Written {
  /** Each notification with the subscribers it names and reached through topics read whole, and how many it reaches in all. */
  readonly recorded: { notification: Notification; subscriberIds: string[]; recipients: number }[];
  readonly messages: Message[];
  /** The decision records of its inline walks (their skipped steps are announced once committed). */
  readonly records: DecisionRecord[];
}

/**
 * A commit group holds at most as many events as one bulk call may (at least one call): concurrent
 * single triggers share commits, while no transaction grows past what one call could already make.
 * Larger groups measured worse on Postgres: a transaction that reads that much takes coarse
 * predicate locks, and two processes' groups then fail each other's commits over and over.
 */
const callEvents = (call: Call): number => call.prepared.length;

/** How many subscribers an event names directly in `to` (topics not counted). */
const directRecipients = (event: unknown): number => {
  const to = typeof event === 'object' && event !== null ? (event as { to?: unknown }).to : undefined;
  if (Array.isArray(to)) return to.filter((r) => !(typeof r === 'object' && r !== null && (r as { type?: unknown }).type === 'Topic')).length;
  return to === undefined || (typeof to === 'object' && to !== null && (to as { type?: unknown }).type === 'Topic') ? 0 : 1;
};

/** `payload.a: is required` as a field issue; a message without a path names none. */
function issueOf(error: string): FieldIssue {
  const at = error.indexOf(': ');
  return at < 0 ? { path: '', message: error } : { path: error.slice(0, at), message: error.slice(at + 2) };
}

/**
 * The error a single trigger rejects with when its event is refused for what it says (invalid, an
 * unknown workflow or tenant, no recipient, a used transactionId), so an unchecked call never drops
 * a notification silently. Statuses the workflow decides (inactive, no active steps) are answers.
 */
function refusal(result: TriggerResult): TidingsError | null {
  const errors = result.error ?? [];
  const described = errors.join('; ');
  if (result.status === 'invalid_recipients') return new TidingsError('validation_failed', described, { issues: [{ path: 'to', message: described }] });
  if (result.status === 'no_tenant_found') return new TidingsError('not_found', described, { issues: [{ path: 'tenant', message: described }] });
  if (result.status !== 'error') return null;
  if (errors.includes('workflow_not_found')) return new TidingsError('not_found', 'workflow_not_found: no workflow has this name', { issues: [{ path: 'name', message: 'workflow_not_found' }] });
  if (errors.includes('duplicate_transaction_id')) {
    return new TidingsError('conflict', `duplicate_transaction_id: transactionId "${result.transactionId}" was already used`, { issues: [{ path: 'transactionId', message: 'was already used' }] });
  }
  return new TidingsError('validation_failed', described, { issues: errors.map(issueOf) });
}

const resultOf = (status: Exclude<TriggerStatus, 'processed'>, error: string[] | undefined, transactionId: string | undefined): TriggerResult => ({
  acknowledged: true,
  status,
  ...(error && { error }),
  ...(transactionId !== undefined && { transactionId }),
});

const processed = (transactionId: string): TriggerResult => ({ acknowledged: true, status: 'processed', transactionId });

export function triggerApi(ctx: EngineContext) {
  const { storage, env } = ctx;

  const fanoutJob = (notification: Notification, subscriberId: string, data: FanoutData, priority: JobPriority) =>
    newJob({ env, kind: 'fanout', runAt: ctx.now(), transactionId: notification.transactionId, subscriberId, priority, data }, ctx.clock.now());

  /**
   * The class of an event's jobs: as the trigger or its workflow says; else its own walks are
   * transactional and a large audience's fan-out is bulk, unless the workflow is critical.
   */
  const priorityOf = (p: Prepared, fanout: boolean): JobPriority => p.event.priority ?? p.workflow.priority ?? (fanout && !p.workflow.critical ? 'bulk' : 'transactional');

  /** Validation, workflow status and tenant: everything decided before the storage transaction. */
  async function prepare(raw: unknown, index: number, addressing: Addressing, debouncing: Debouncing, workflows: Map<string, Promise<Workflow | null>>, contexts: ContextDataSeen, outside: <T>(work: () => Promise<T>) => Promise<T>): Promise<Prepared | TriggerResult> {
    const validation = addressing === 'everyone' ? validateBroadcast(raw) : validateEvent(raw);
    const givenId = typeof (raw as { transactionId?: unknown } | null)?.transactionId === 'string' ? (raw as { transactionId: string }).transactionId : undefined;
    if (!validation.ok) return resultOf('error', validation.errors, givenId);
    const event = validation.event;
    let lookup = workflows.get(event.name);
    if (!lookup) workflows.set(event.name, (lookup = storage.workflows.find(env, event.name)));
    const workflow = await lookup;
    if (!workflow) return resultOf('error', ['workflow_not_found'], givenId);
    const blocked = workflowStatus(workflow);
    if (blocked) return resultOf(blocked, undefined, givenId);
    const { payload: withDefaults, missing } = withPayloadDefaults(workflow, event.payload);
    if (missing.length > 0) return resultOf('error', missing.map((name) => `payload.${name}: is required by the workflow`), givenId);
    const { walker } = ctx;
    const checked = walker.preparePayload ? await outside(() => walker.preparePayload!(workflow, withDefaults)) : { ok: true as const, payload: withDefaults };
    if (!checked.ok) return resultOf('error', [...checked.errors], givenId);
    const payload = checked.payload;
    const delayErrors = scheduledDelayErrors(workflow, payload, ctx.clock.now());
    if (delayErrors.length > 0) return resultOf('error', delayErrors, givenId);
    if (event.expiresAt !== undefined && event.expiresAt <= ctx.now()) return resultOf('error', ['expiresAt: must be in the future'], givenId);
    const tenant = await namedTenant(ctx, event.tenant);
    if (tenant === 'missing') return resultOf('no_tenant_found', [`tenant "${String(event.tenant)}" was not found`], givenId);
    const actorId = event.actor === undefined ? null : typeof event.actor === 'string' ? event.actor : event.actor.subscriberId;
    const plan = addressing === 'named' ? readRecipients((event as ParsedTriggerEvent).to) : NO_RECIPIENTS;
    const now = ctx.now();
    const notification: Notification = {
      _id: newId(ctx.clock.now()),
      _environmentId: env,
      _organizationId: ctx.organizationId,
      _templateId: workflow._id,
      templateIdentifier: workflow.identifier,
      transactionId: event.transactionId ?? newTransactionId(ctx.clock.now()),
      payload,
      overrides: event.overrides,
      actorId,
      tenantId: typeof event.tenant === 'object' ? event.tenant.identifier : tenant?.identifier ?? null,
      context: await resolveContexts(ctx.storage.records, env, namedContexts(event.context), contexts),
      ...(plan.topics.length > 0 && { topics: { keys: plan.topics.map((t) => t.topicKey), direct: plan.direct.map((d) => d.subscriberId) } }),
      ...(event.locale !== undefined && { locale: event.locale }),
      ...(workflow.revision !== undefined && { revision: workflow.revision }),
      createdAt: now,
      ...(event.expiresAt !== undefined && { expiresAt: event.expiresAt }),
    };
    const debounce = debouncing === 'hold' ? event.debounce ?? workflow.debounce : undefined;
    if (!debounce) return { index, event, workflow, tenant, notification, actorId, givenId, plan };
    const group = debounceGroup(workflow._id, debounce, event);
    if (!group.ok) return resultOf('error', [group.error], givenId);
    const { debounce: _settings, ...rest } = event;
    const held: HeldTrigger = { group: group.group, debounce, workflowId: workflow._id, addressing, event: { ...rest, transactionId: notification.transactionId } as HeldTrigger['event'] };
    return { index, event, workflow, tenant, notification, actorId, givenId, plan, held };
  }

  /**
   * Debounced events join their bursts inside the call's transaction: each burst keeps its last event
   * and its one keyed job moves to the burst's new due time. A used transactionId is found when the
   * burst runs (the run is refused, as the trigger would have been).
   */
  async function holdDebounced(tx: StorageRepositories, held: readonly HeldTrigger[], now: Date): Promise<Job[]> {
    const bursts = await readDebounces(tx.records, env, held.map((h) => h.group.id));
    for (const h of held) bursts.set(h.group.id, joinBurst(bursts.get(h.group.id), h, now));
    const changed = [...new Set(held.map((h) => h.group.id))].map((id) => bursts.get(id)!);
    await putDebounces(tx.records, env, changed);
    return changed.map((burst) => debounceJob(env, burst, now));
  }

  /**
   * Records the prepared events of one or more calls (a commit group) in one storage transaction:
   * each event's notification, inline subscribers and jobs are written only once its own checks pass,
   * so an event is whole or absent and one bad event never touches the others. Writes are batched:
   * one upsert and one enqueue for the group. Each call keeps its own results and its own room for
   * inline walks, so a call is recorded as it would be alone.
   */
  async function record(calls: readonly Call[]): Promise<Written[]> {
    const caps = ctx.options.inlineInApp ? await capsInForce(ctx) : [];
    try {
      return await watchWrite(ctx, () => storage.transaction(async (tx) => {
        const now = ctx.now();
        const held = calls.flatMap((call) => call.prepared.filter((p) => p.held !== undefined));
        for (const p of held) calls.find((call) => call.prepared.includes(p))!.results[p.index] = processed(p.notification.transactionId);
        const heldJobs = held.length > 0 ? await holdDebounced(tx, held.map((p) => p.held!), ctx.clock.now()) : [];
        const all = calls.flatMap((call, at) => call.prepared.filter((p) => p.held === undefined).map((p) => ({ p, at, plan: p.plan })));
        const bareIds = [...new Set(all.flatMap(({ plan }) => plan.direct.filter((d) => d.patch === null).map((d) => d.subscriberId)))];
        // Subscribers read or written here, so in-app delivery below does not read them again.
        const known = new Map((await tx.subscribers.getMany(env, bareIds)).map((s) => [s.subscriberId, s] as const));
        const existing = new Set(known.keys());
        const upserts: SubscriberUpsert[] = [];
        const jobs: Job[] = [];
        const walks: InlineWalk[] = [];
        const tenants = new Map<string, Tenant>();
        const givenContexts: NamedContext[] = [];
        const written = calls.map((): Written => ({ recorded: [], messages: [], records: [] }));
        // Each call's room for inline walks: a call is recorded as it would be alone.
        const inlineRoom = calls.map(() => (ctx.options.inlineInApp ? ctx.options.inlineLimit : -1));
        // Recipients first: an event without any is refused before anything of it is written.
        const withRecipients: { p: Prepared; at: number; plan: (typeof all)[number]['plan']; subscriberIds: string[]; paged: PagedAudience | null }[] = [];
        const sizes = { room: ctx.options.inlineInApp ? ctx.options.inlineLimit : 0, chunk: ctx.options.fanoutChunk };
        for (const { p, at, plan } of all) {
          const recipients = new Set(plan.direct.map((d) => d.subscriberId));
          const everyone = !('to' in p.event);
          const audience = everyone
            ? await readEnvironmentAudience(tx, env, sizes)
            : plan.topics.length > 0
              ? await readTopicAudience(tx, env, plan.topics, p.actorId, recipients, sizes)
              : { members: [] };
          const paged = 'pages' in audience && audience.count > 0 ? audience : null;
          if ('members' in audience) for (const id of audience.members) recipients.add(id);
          // A broadcast to an environment without subscribers is recorded and reaches nobody, as Novu's does.
          if (recipients.size === 0 && !paged && !everyone) calls[at]!.results[p.index] = resultOf('invalid_recipients', ['to holds no subscriber: no subscriberId, or only empty or unknown topics'], p.givenId);
          else withRecipients.push({ p, at, plan, subscriberIds: [...recipients], paged });
        }
        // Then the notifications, in one statement: a transactionId already used refuses its event.
        // With in-app walks stored here, each names the one record the group's decision records go to.
        const callTraces = ctx.options.inlineInApp ? newCallTraceKey() : undefined;
        const stored = new Set(await tx.notifications.insertMany(env, withRecipients.map((w) => w.p.notification), { ...(callTraces !== undefined && { callTraces }) }));
        for (const { p, at, plan, subscriberIds, paged } of withRecipients) {
          const { results } = calls[at]!;
          if (!stored.has(p.notification._id)) {
            results[p.index] = resultOf('error', ['duplicate_transaction_id'], p.givenId);
            continue;
          }
          for (const patch of subscriberWrites(plan, p.event.actor, existing)) upserts.push({ patch, _id: newId(ctx.clock.now()) });
          const tenant = typeof p.event.tenant === 'object' ? await upsertTenant(ctx, tx, p.event.tenant, tenants) : p.tenant;
          givenContexts.push(...namedContexts(p.event.context));
          // Walks that end at once with in-app messages are stored here while they fit the call's limit;
          // from the first event that does not fit, every event of the call goes through jobs, a large
          // audience as fan-out jobs of `fanoutChunk` members. Other walks go straight to jobs: each is
          // walked once, by its job.
          // The user's code (a code workflow's resolvers) never runs inside this transaction: such walks
          // replay the runs made before it, or go to jobs.
          const inApp = walksInline(ctx, p.workflow, caps, 'trigger', p.precomputed !== undefined);
          if (inApp && subscriberIds.length <= inlineRoom[at]!) {
            inlineRoom[at]! -= subscriberIds.length;
            for (const subscriberId of subscriberIds) walks.push({ subscriberId, workflow: p.workflow, notification: p.notification, tenant, ...(p.precomputed && { precomputed: p.precomputed.get(subscriberId) ?? null }) });
          } else {
            if (inApp) inlineRoom[at] = -1;
            if (subscriberIds.length <= ctx.options.fanoutChunk) jobs.push(...subscriberIds.map((id) => firstWalkJob(env, p.notification, id, ctx.clock.now(), priorityOf(p, false))));
            else for (let i = 0; i < subscriberIds.length; i += ctx.options.fanoutChunk) {
              const chunk = subscriberIds.slice(i, i + ctx.options.fanoutChunk);
              jobs.push(fanoutJob(p.notification, chunk[0]!, { notificationId: p.notification._id, subscriberIds: chunk }, priorityOf(p, true)));
            }
          }
          // A large audience (topics, or a broadcast's): one fan-out job per page, each reading its own members when it runs.
          if (paged) for (const { after, until } of paged.pages) jobs.push(fanoutJob(p.notification, until, { notificationId: p.notification._id, ...paged.source, after, until }, priorityOf(p, true)));
          results[p.index] = processed(p.notification.transactionId);
          written[at]!.recorded.push({ notification: p.notification, subscriberIds, recipients: subscriberIds.length + (paged?.count ?? 0) });
        }
        // A subscriber keeps the `_id` of the upsert that made it: those with one of these were made here.
        const made = new Set(upserts.map((u) => u._id));
        const created = new Set<string>();
        for (const s of await upsertSubscribers(tx, env, upserts, now, ctx.organizationId, known)) {
          known.set(s.subscriberId, s);
          if (made.has(s._id)) created.add(s.subscriberId);
        }
        await storeGivenContexts(tx.records, env, givenContexts, now);
        const inline = await deliverInline(ctx, tx, walks, known, created, callTraces);
        const queue = [...jobs, ...inline.jobs, ...heldJobs];
        if (queue.length > 0) await tx.jobs.enqueue(env, queue);
        const owner = new Map(written.flatMap((call) => call.recorded.map((r) => [r.notification._id, call] as const)));
        for (const message of inline.messages) owner.get(message._notificationId)?.messages.push(message);
        const ownerOfTransaction = new Map(written.flatMap((call) => call.recorded.map((r) => [r.notification.transactionId, call] as const)));
        for (const record of inline.records) ownerOfTransaction.get(record.transactionId)?.records.push(record);
        return written;
      }));
    } finally {
      // V8 may keep the context of a closure made in a task alive until every microtask of that task
      // has run: in a loop of calls, into the next call. Released here, the group's events and what
      // they made do not outlive their call (1,000 bulk calls promoted 88 MB to the old generation
      // instead of 148, and ran 4% faster).
      calls = [];
    }
  }

  const committer = groupCommit(record, { weight: callEvents, maxWeight: MAX_BULK_EVENTS });

  async function triggerMany(events: readonly unknown[], addressing: Addressing = 'named', debouncing: Debouncing = 'hold'): Promise<TriggerResult[]> {
    const workflows = new Map<string, Promise<Workflow | null>>();
    const contexts: ContextDataSeen = new Map();
    const results: TriggerResult[] = new Array(events.length);
    const prepared: Prepared[] = [];
    const tracer = ctx.telemetry.tracer();
    const spans = tracer && triggerSpans(tracer, events.length);
    let written: Written;
    // The call takes its place in the commit group now, so calls begun together commit together.
    const ticket = committer.begin();
    try {
      for (const [index, raw] of events.entries()) {
        spans?.start(index);
        const outcome = await prepare(raw, index, addressing, debouncing, workflows, contexts, (work) => ticket.outside(work));
        if ('acknowledged' in outcome) results[index] = outcome;
        else prepared.push(spans ? { ...outcome, notification: spans.carry(index, outcome.notification) } : outcome);
      }
      const runs = await precomputeRuns(ctx, prepared, (work) => ticket.outside(work));
      const withRuns = runs.size === 0 ? prepared : prepared.map((p) => (runs.has(p) ? { ...p, precomputed: runs.get(p)! } : p));
      written = prepared.length === 0 ? { recorded: [], messages: [], records: [] } : await ticket.commit({ prepared: withRuns, results });
    } catch (error) {
      spans?.failed(error);
      throw error;
    } finally {
      ticket.abandon();
    }
    const { recorded, messages, records } = written;
    spans?.end(events, results, recorded);
    const counted = ctx.telemetry.metrics;
    if (counted) for (const result of results) counted.triggered(result.status);
    for (const { notification, subscriberIds, recipients } of recorded) ctx.events.emit('notification.triggered', { notification, subscriberIds, recipients });
    for (const message of messages) {
      ctx.events.emit('message.created', { message });
      ctx.events.emit('message.sent', { message });
    }
    announceSkips(ctx, records);
    return results;
  }

  return {
    /**
     * Runs a debounced burst: its last event, past every debounce. The same burst run again (its job
     * retried after a crash) finds its transactionId used: it ran, and answers `processed`.
     */
    async runBurst(burst: DebounceRecord): Promise<TriggerResult> {
      const [result] = await triggerMany([burst.event], burst.addressing, 'run');
      return result!.error?.includes('duplicate_transaction_id') ? processed(result!.transactionId ?? '') : result!;
    },
    /**
     * Triggers one event. Rejects with a TidingsError (`validation_failed`, `not_found` for an unknown
     * workflow or tenant, `conflict` for a used transactionId) when the event is refused, naming the
     * field; resolves with the result otherwise (`processed`, or a status the workflow decides).
     */
    async trigger(event: TriggerEvent): Promise<TriggerResult> {
      const [result] = await triggerMany([event]);
      const refused = refusal(result!);
      if (refused) throw refused;
      return result!;
    },
    /**
     * Triggers one event for every subscriber of the environment (Novu's broadcast): a trigger's event
     * without `to`, recorded once with one transactionId, its audience read page by page through the
     * fan-out jobs large topic audiences use, so memory stays flat however many subscribers there
     * are. Answers as `trigger` does: rejects when the event is refused for what it says, resolves
     * with the result otherwise. With `{ refused: 'answer' }` it resolves with the result whatever its
     * status, as each event of `triggerBulk` does.
     */
    async broadcast(event: BroadcastEvent, options: { refused?: 'reject' | 'answer' } = {}): Promise<TriggerResult> {
      const [result] = await triggerMany([event], 'everyone');
      const refused = options.refused === 'answer' ? null : refusal(result!);
      if (refused) throw refused;
      return result!;
    },
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
      const recipients = events.reduce((sum, event) => sum + directRecipients(event), 0);
      if (recipients > MAX_RECIPIENTS_PER_CALL) {
        const message = `must name at most ${MAX_RECIPIENTS_PER_CALL} recipients in all (it names ${recipients}); reach larger audiences through topics`;
        throw new TidingsError('validation_failed', `events ${message}`, { issues: [{ path: 'events', message }] });
      }
      return triggerMany(events);
    },
    /**
     * Cancels the trigger's pending jobs (delays, held and retried steps) and takes its events out of
     * open digests; a digest keeps its due time and flushes with the events left (none: nothing is
     * sent). Returns how many jobs were cancelled; not_found when the transaction is unknown.
     */
    async cancel(transactionId: string): Promise<{ cancelled: number }> {
      const notification = await storage.notifications.getByTransactionId(env, transactionId);
      if (!notification) {
        // A debounced trigger still waiting as its burst's last event: the burst is cancelled whole.
        const burst = await burstOfTransaction(storage.records, env, transactionId);
        if (!burst) throw notFound('Transaction', transactionId);
        return storage.transaction(async (tx) => {
          await tx.records.delete(env, DEBOUNCES, [burst.group]);
          return { cancelled: await tx.jobs.cancelByTransaction(env, debounceJobKey(burst.group)) };
        });
      }
      return storage.transaction(async (tx) => {
        const cancelled = await tx.jobs.cancelByTransaction(env, transactionId);
        const { deleted } = await tx.digests.removeTransaction(env, transactionId);
        // A digest left without events has nothing to flush.
        for (const digestId of deleted) await tx.jobs.cancelByTransaction(env, digestFlushKey(digestId));
        await cancelWaitsOf(tx, env, transactionId);
        return { cancelled };
      });
    },
    /** What is still to happen: pending jobs (delays, held steps, digest flushes) and open digests. */
    async pending(filter: { subscriberId?: string; transactionId?: string } = {}) {
      const digests = await storage.digests.listOpen(env, filter);
      // A digest's flush job belongs to the digest: it is pending for every event the digest holds.
      const flushes = filter.transactionId === undefined ? [] : await Promise.all(digests.map((d) => storage.jobs.list(env, { transactionId: digestFlushKey(d.id) })));
      const jobs = [...(await storage.jobs.list(env, filter)), ...flushes.flat()];
      return {
        jobs: jobs.map((j) => ({
          kind: j.kind,
          transactionId: j.transactionId,
          subscriberId: j.subscriberId,
          runAt: j.runAt,
          stepIndex: j.kind === 'walk' ? j.data.stepIndex : null,
          attempts: j.attempts,
          digestId: j.kind === 'digest' ? j.data.digestId : j.kind === 'walk' ? j.data.digestId ?? null : null,
          lastError: j.lastError,
        })),
        digests: digests.map((d) => ({ id: d.id, workflowId: d.workflowId, subscriberId: d.subscriberId, digestKey: d.digestKey, openedAt: d.openedAt, dueAt: d.dueAt, count: d.events.length, transactionIds: d.events.map((e) => e.transactionId) })),
      };
    },
  };
}
