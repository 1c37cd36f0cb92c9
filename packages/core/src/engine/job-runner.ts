import { randomUUID } from 'node:crypto';
import { ProviderError, type Provider } from '../delivery/provider.js';
import { resolveRecipient } from '../delivery/recipient.js';
import { selectIntegration } from '../integrations/select-integration.js';
import { buildMessage } from '../messages/build-message.js';
import { applyUnsnooze } from '../messages/transitions.js';
import type { DigestMetadata, Integration, Job, JsonObject, Message, Notification, Subscriber, Tenant, Workflow } from '../schemas/index.js';
import type { DecisionRecord } from '../storage.js';
import { renderEmailBody } from '../templates/email-html.js';
import { groupBy } from '../util/group-by.js';
import { delayOverride, walkSteps, type Delivery, type TraceEntry } from '../trigger/walk-steps.js';
import { newId } from '../ids.js';
import { backoffLetsThrough, digestDueAt } from '../timing/digest-due-at.js';
import { readPath } from '../util/path.js';
import type { EngineContext } from './context.js';

const byKey = <T, K>(items: readonly T[], key: (item: T) => K) => new Map(items.map((item) => [key(item), item]));
const unique = <T>(items: readonly T[]) => [...new Set(items)];

/** Milliseconds before the next attempt of a failed job: 1 s, 2 s, 4 s … capped at an hour. */
export const retryDelayMs = (attempts: number) => Math.min(1_000 * 2 ** Math.max(0, attempts - 1), 3_600_000);

export interface JobRunner {
  /** Claims and runs every job due now, including those enqueued while it runs; returns how many ran. */
  runDue(): Promise<number>;
  readonly workerId: string;
}

type Loaded = Awaited<ReturnType<ReturnType<typeof loaderFor>>>;

function loaderFor(ctx: EngineContext) {
  const { storage, env } = ctx;
  return async (jobs: readonly Job[]) => {
    const notifications = byKey(await storage.notifications.getMany(env, unique(jobs.map((j) => j.data.notificationId))), (n) => n._id);
    const people = unique([...jobs.map((j) => j.subscriberId), ...[...notifications.values()].flatMap((n) => (n.actorId ? [n.actorId] : []))]);
    const subscribers = byKey(await storage.subscribers.getMany(env, people), (s) => s.subscriberId);
    const workflows = byKey(await storage.workflows.getMany(env, unique([...notifications.values()].map((n) => n._templateId))), (w) => w._id);
    const tenants = new Map<string, Tenant | null>();
    for (const id of unique([...notifications.values()].flatMap((n) => (n.tenantId ? [n.tenantId] : [])))) {
      tenants.set(id, await storage.tenants.get(env, id));
    }
    const integrations = await storage.integrations.list(env, { active: true });
    const preferences = groupBy(await storage.preferences.listMany(env, unique(jobs.map((j) => j.subscriberId))), (row) => row.subscriberId);
    return { notifications, subscribers, workflows, tenants, integrations, preferences };
  };
}

/** What one job run produced and where its walk goes next. */
interface JobOutcome {
  readonly messages: Message[];
  readonly failures: { message: Message; error: string }[];
  readonly trace: TraceEntry[];
  /** Run again later from `stepIndex` (after a delay, schedule hold or digest, or to retry a provider). */
  readonly next: { runAt: Date; stepIndex: number; retry: boolean; lastError: string | null; digestId?: string } | null;
}

async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ProviderError(`the provider did not answer within ${ms} ms`, { retryable: true, code: 'timeout' })), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Runs `fn` over `items` with at most `limit` in flight, keeping results in order. */
async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  });
  await Promise.all(lanes);
  return results;
}

export function createJobRunner(ctx: EngineContext, providers: ReadonlyMap<string, Provider>): JobRunner {
  const { storage, env, options } = ctx;
  const workerId = `worker-${randomUUID()}`;
  const load = loaderFor(ctx);

  type Sent =
    | { kind: 'message'; message: Message; note: Partial<TraceEntry>; failure?: string }
    | { kind: 'retry'; error: string; note: Partial<TraceEntry> };

  /** Delivers one channel step: picks the integration, resolves the address, calls the provider. */
  async function deliver(
    job: Job,
    delivery: Delivery,
    base: Message,
    context: { subscriber: Subscriber; tenant: Tenant | null; integrations: readonly Integration[]; notification: Notification },
  ): Promise<Sent> {
    if (delivery.channel === 'in_app') return { kind: 'message', message: base, note: {} };
    const warning = (reason: string, integration?: Integration): Sent => ({
      kind: 'message',
      message: { ...base, ...(integration && { providerId: integration.providerId }), status: 'warning', deliveredAt: [], errorText: reason },
      note: { reason, ...(integration && { integration: integration.identifier }) },
    });
    const choice = selectIntegration(context.integrations, delivery.channel, context.tenant);
    const integration = choice.integration;
    if (!integration) return warning(choice.reason);
    const provider = providers.get(`${delivery.channel}:${integration.providerId}`);
    if (!provider) return warning(`${choice.reason}; no provider is registered for "${integration.providerId}"`, integration);
    const recipient = resolveRecipient(context.subscriber, delivery.channel, integration);
    if (!recipient.ok) return warning(recipient.reason, integration);
    const note = { integration: integration.identifier, reason: choice.reason };
    const body = typeof base.content === 'string' && delivery.channel !== 'email' ? { content: base.content } : (() => {
      const { html, text } = renderEmailBody(base.content);
      return { content: text, html };
    })();
    const overrides = context.notification.overrides[integration.providerId];
    try {
      const result = await withTimeout(
        provider.send(
          {
            messageId: base._id,
            transactionId: base.transactionId,
            channel: delivery.channel,
            to: recipient.to,
            ...body,
            ...(base.subject !== undefined && { subject: base.subject }),
            ...(base.title !== undefined && { title: base.title }),
            payload: base.payload,
            overrides: typeof overrides === 'object' && overrides !== null ? (overrides as JsonObject) : {},
          },
          integration.credentials,
        ),
        options.providerTimeoutMs,
      );
      const address = { ...(recipient.to.email && { email: recipient.to.email }), ...(recipient.to.phone && { phone: recipient.to.phone }), ...(recipient.to.webhookUrl && { directWebhookUrl: recipient.to.webhookUrl }), ...(recipient.to.deviceTokens && { deviceTokens: [...recipient.to.deviceTokens] }) };
      return {
        kind: 'message',
        message: { ...base, ...address, providerId: integration.providerId, status: 'sent', deliveredAt: [base.createdAt] },
        note: { ...note, reason: `sent by "${integration.identifier}"${result.id ? ` as ${result.id}` : ''}` },
      };
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      const retryable = error instanceof ProviderError ? error.retryable : true;
      if (retryable && job.attempts < options.maxAttempts) return { kind: 'retry', error: text, note: { ...note, reason: `${text}; will retry` } };
      const errorId = error instanceof ProviderError ? (error.options.code ?? (error.options.status ? `http_${error.options.status}` : 'provider_error')) : 'provider_error';
      return {
        kind: 'message',
        message: { ...base, providerId: integration.providerId, status: 'error', deliveredAt: [], errorId, errorText: text },
        note: { ...note, reason: `failed: ${text}` },
        failure: text,
      };
    }
  }

  async function runJob(job: Job, loaded: Loaded, now: Date): Promise<JobOutcome> {
    const notification = loaded.notifications.get(job.data.notificationId);
    const subscriber = loaded.subscribers.get(job.subscriberId);
    const workflow: Workflow | undefined = notification && loaded.workflows.get(notification._templateId);
    if (!notification || !subscriber || !workflow) {
      const missing = !notification ? 'notification' : !subscriber ? 'subscriber' : 'workflow';
      return { messages: [], failures: [], next: null, trace: [{ stepIndex: job.data.stepIndex, stepId: '', type: 'in_app', decision: 'skipped', reason: `the ${missing} no longer exists` }] };
    }
    const messages: Message[] = [];
    const failures: JobOutcome['failures'] = [];
    const trace: TraceEntry[] = [];
    const zone = subscriber.timezone ?? 'UTC';

    // A digest's flush job: wait longer if a debounced join moved the digest, else close it and go on
    // with its events.
    let digestEvents: Record<string, unknown>[] | undefined;
    if (job.data.digestId) {
      const digest = await storage.digests.get(env, job.data.digestId);
      if (digest && digest.status === 'open' && Date.parse(digest.dueAt) > now.getTime()) {
        return { messages, failures, trace, next: { runAt: new Date(digest.dueAt), stepIndex: job.data.stepIndex, retry: false, lastError: null, digestId: digest.id } };
      }
      const closed = digest && (await storage.digests.close(env, digest.id));
      if (!closed || closed.events.length === 0) {
        return { messages, failures, next: null, trace: [{ stepIndex: job.data.stepIndex, stepId: '', type: 'digest', decision: 'skipped', reason: 'the digest no longer exists' }] };
      }
      digestEvents = closed.events.map((e) => e.payload);
      ctx.events.emit('digest.flushed', { transactionIds: closed.events.map((e) => e.transactionId), subscriberId: subscriber.subscriberId, count: closed.events.length });
    }

    const tenant = notification.tenantId ? loaded.tenants.get(notification.tenantId) ?? null : null;
    const context = { subscriber, tenant, integrations: loaded.integrations, notification };
    let startIndex = job.data.stepIndex;
    for (;;) {
      const walk = walkSteps({
        workflow,
        notification,
        subscriber,
        actor: notification.actorId ? loaded.subscribers.get(notification.actorId) ?? null : null,
        tenant,
        startIndex,
        now,
        preferences: loaded.preferences.get(subscriber.subscriberId) ?? [],
        outsideSchedule: options.outsideSchedule,
        ...(digestEvents && { digestEvents }),
      });
      const notes = new Map<number, Partial<TraceEntry>>();
      const noted = (upTo: number) =>
        walk.trace.filter((e) => e.stepIndex <= upTo).map((e) => (notes.has(e.stepIndex) ? { ...e, ...notes.get(e.stepIndex) } : e));
      for (const delivery of walk.deliveries) {
        const base = buildMessage(delivery, { workflow, notification, subscriber, now: now.toISOString(), status: 'sent' });
        const sent = await deliver(job, delivery, base, context);
        if (sent.kind === 'retry') {
          notes.set(delivery.stepIndex, { ...sent.note, decision: 'failed' });
          trace.push(...noted(delivery.stepIndex));
          const runAt = new Date(now.getTime() + retryDelayMs(job.attempts));
          return { messages, failures, trace, next: { runAt, stepIndex: delivery.stepIndex, retry: true, lastError: sent.error, ...(job.data.digestId && { digestId: job.data.digestId }) } };
        }
        messages.push(sent.message);
        notes.set(delivery.stepIndex, sent.failure ? { ...sent.note, decision: 'failed' } : sent.note);
        if (sent.failure) {
          failures.push({ message: sent.message, error: sent.failure });
          if (delivery.step.shouldStopOnFail) {
            trace.push(...noted(delivery.stepIndex));
            return { messages, failures, trace, next: null };
          }
        }
      }
      trace.push(...noted(Number.MAX_SAFE_INTEGER));
      if (walk.resume) return { messages, failures, trace, next: { ...walk.resume, retry: false, lastError: null } };
      if (!walk.digest) return { messages, failures, trace, next: null };

      const digested = await joinDigest(workflow, notification, subscriber, walk.digest, now, zone);
      trace.push({ stepIndex: walk.digest.stepIndex, stepId: walk.digest.step._id ?? String(walk.digest.stepIndex), type: 'digest', decision: digested.kind === 'through' ? 'delivered' : 'delayed', reason: digested.reason });
      if (digested.kind === 'opened') {
        return { messages, failures, trace, next: { runAt: digested.dueAt, stepIndex: walk.digest.stepIndex + 1, retry: false, lastError: null, digestId: digested.digestId } };
      }
      if (digested.kind === 'joined') return { messages, failures, trace, next: null };
      // Let through (backoff): the walk goes on at once with this event alone.
      startIndex = walk.digest.stepIndex + 1;
      digestEvents = [notification.payload];
    }
  }

  /** Joins or opens the digest of a digest step (or lets a backoff event through). */
  async function joinDigest(
    workflow: Workflow,
    notification: Notification,
    subscriber: Subscriber,
    at: { stepIndex: number; step: Delivery['step'] },
    now: Date,
    zone: string,
  ): Promise<{ kind: 'through'; reason: string } | { kind: 'joined'; reason: string } | { kind: 'opened'; reason: string; dueAt: Date; digestId: string }> {
    const metadata = (at.step.metadata ?? { type: 'regular' }) as DigestMetadata;
    const keyPath = metadata.digestKey;
    const keyValue = keyPath ? readPath(notification.payload, keyPath) : undefined;
    const digestKey = keyPath === undefined ? null : keyValue === undefined ? null : JSON.stringify(keyValue);
    // JSON keeps a missing value (null) apart from any value, and has no NUL byte Postgres would refuse.
    const key = JSON.stringify([workflow._id, at.stepIndex, subscriber.subscriberId, keyPath ?? null, digestKey]);
    const previous = await storage.digests.touch(env, key, now.toISOString());
    if (backoffLetsThrough(metadata, previous, now, zone)) return { kind: 'through', reason: 'no event of this digest within the backoff window: sent at once' };
    const override = delayOverride(notification.overrides);
    const dueAt = digestDueAt(metadata, { openedAt: now, now, timeZone: zone, override });
    if (!dueAt) return { kind: 'through', reason: 'the timed digest never fires: sent at once' };
    const event = { transactionId: notification.transactionId, notificationId: notification._id, payload: notification.payload, at: now.toISOString() };
    const { digest, opened } = await storage.digests.join(
      env,
      { id: newId(now), environmentId: env, key, workflowId: workflow._id, stepIndex: at.stepIndex, subscriberId: subscriber.subscriberId, digestKey, openedAt: now.toISOString(), dueAt: dueAt.toISOString() },
      event,
      metadata.type !== 'timed' && metadata.updateMode ? dueAt.toISOString() : undefined,
    );
    if (opened) return { kind: 'opened', reason: `opened a digest due ${digest.dueAt}`, dueAt: new Date(digest.dueAt), digestId: digest.id };
    return { kind: 'joined', reason: `joined the digest due ${digest.dueAt} (${digest.events.length} events)` };
  }

  /** Brings snoozed messages back when their snooze ends (unless it was moved or lifted meanwhile). */
  async function unsnooze(jobs: readonly Job[], now: Date): Promise<void> {
    const back: Message[] = [];
    await storage.transaction(async (tx) => {
      for (const job of jobs) {
        const [subscriber] = await tx.subscribers.getMany(env, [job.subscriberId]);
        const [message] = subscriber && job.data.messageId ? await tx.messages.getMany(env, subscriber._id, [job.data.messageId]) : [];
        if (message?.snoozedUntil !== undefined && message.snoozedUntil <= now.toISOString()) back.push(applyUnsnooze(message, now.toISOString()));
      }
      await tx.messages.replaceMany(back);
    });
    await storage.jobs.complete(jobs.map((j) => j.id), workerId);
    for (const message of back) ctx.events.emit('message.unsnoozed', { message });
  }

  async function runBatch(all: readonly Job[], now: Date): Promise<void> {
    const snoozes = all.filter((j) => j.kind === 'unsnooze');
    if (snoozes.length > 0) await unsnooze(snoozes, now);
    const jobs = all.filter((j) => j.kind === 'walk');
    if (jobs.length === 0) return;
    const loaded = await load(jobs);
    const outcomes = await mapLimited(jobs, options.deliveryConcurrency, async (job): Promise<{ job: Job; outcome?: JobOutcome; error?: unknown }> => {
      try {
        return { job, outcome: await runJob(job, loaded, now) };
      } catch (error) {
        return { job, error };
      }
    });
    const messages: Message[] = [];
    const records: DecisionRecord[] = [];
    const done: string[] = [];
    const later: { job: Job; next: NonNullable<JobOutcome['next']> }[] = [];
    const failures: JobOutcome['failures'] = [];
    for (const result of outcomes) {
      const { job, outcome } = result;
      if (!outcome) {
        await failJob(job, result.error, now);
        continue;
      }
      messages.push(...outcome.messages);
      failures.push(...outcome.failures);
      records.push({ environmentId: env, transactionId: job.transactionId, subscriberId: job.subscriberId, jobId: job.id, at: now.toISOString(), entries: outcome.trace });
      if (outcome.next) later.push({ job, next: outcome.next });
      else done.push(job.id);
    }
    // The batch's results commit together: its messages, decision records and job completions are all
    // stored or none. A crash before the commit re-runs the jobs, and the message ids, derived from
    // (notification, step, subscriber), keep the second run from storing anything twice.
    const inserted = await storage.transaction(async (tx) => {
      const stored = await tx.messages.insertMany(messages);
      await tx.traces.append(records);
      for (const { job, next } of later) {
        await tx.jobs.reschedule(job.id, workerId, {
          runAt: next.runAt.toISOString(),
          data: { notificationId: job.data.notificationId, stepIndex: next.stepIndex, ...(next.digestId !== undefined && { digestId: next.digestId }) },
          lastError: next.lastError,
          resetAttempts: !next.retry,
        });
      }
      await tx.jobs.complete(done, workerId);
      return stored;
    });
    const failed = new Map(failures.map((f) => [f.message._id, f.error]));
    for (const message of inserted) {
      ctx.events.emit('message.created', { message });
      if (message.status === 'sent') ctx.events.emit('message.sent', { message });
      const error = failed.get(message._id);
      if (error !== undefined) ctx.events.emit('message.failed', { message, error });
    }
  }

  async function failJob(job: Job, error: unknown, now: Date): Promise<void> {
    const text = error instanceof Error ? error.message : String(error);
    if (job.attempts >= options.maxAttempts) {
      await storage.jobs.complete([job.id], workerId);
      ctx.events.emit('job.failed', { job, error: text });
      return;
    }
    await storage.jobs.reschedule(job.id, workerId, {
      runAt: new Date(now.getTime() + retryDelayMs(job.attempts)).toISOString(),
      data: job.data,
      lastError: text,
      resetAttempts: false,
    });
  }

  return {
    workerId,
    async runDue() {
      let ran = 0;
      for (;;) {
        const now = ctx.clock.now();
        const jobs = await storage.jobs.claimDue({ env, workerId, now: now.toISOString(), limit: options.batchSize, leaseMs: options.leaseMs });
        if (jobs.length === 0) return ran;
        await runBatch(jobs, now);
        ran += jobs.length;
      }
    },
  };
}
