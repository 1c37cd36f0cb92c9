import { randomUUID } from 'node:crypto';
import { buildMessage } from '../messages/build-message.js';
import { selectIntegration } from '../integrations/select-integration.js';
import type { Integration, Job, Message, Notification, PreferenceRow, Subscriber, Tenant, Workflow } from '../schemas/index.js';
import type { DecisionRecord } from '../storage.js';
import { walkSteps, type Delivery, type TraceEntry } from '../trigger/walk-steps.js';
import type { EngineContext } from './context.js';

const byKey = <T, K>(items: readonly T[], key: (item: T) => K) => new Map(items.map((item) => [key(item), item]));
const unique = <T>(items: readonly T[]) => [...new Set(items)];

/** Seconds to wait before the next attempt of a failed job: 1 s, 2 s, 4 s … capped at an hour. */
export const retryDelayMs = (attempts: number) => Math.min(1_000 * 2 ** Math.max(0, attempts - 1), 3_600_000);

export interface JobRunner {
  /** Claims and runs every job due now, including those enqueued while it runs; returns how many ran. */
  runDue(): Promise<number>;
  readonly workerId: string;
}

export function createJobRunner(ctx: EngineContext): JobRunner {
  const { storage, env, options } = ctx;
  const workerId = `worker-${randomUUID()}`;

  async function loadBatch(jobs: readonly Job[]) {
    const notifications = byKey(await storage.notifications.getMany(env, unique(jobs.map((j) => j.data.notificationId))), (n) => n._id);
    const people = unique([...jobs.map((j) => j.subscriberId), ...[...notifications.values()].flatMap((n) => (n.actorId ? [n.actorId] : []))]);
    const subscribers = byKey(await storage.subscribers.getMany(env, people), (s) => s.subscriberId);
    const workflows = byKey(await storage.workflows.getMany(env, unique([...notifications.values()].map((n) => n._templateId))), (w) => w._id);
    const tenants = new Map<string, Tenant | null>();
    for (const id of unique([...notifications.values()].flatMap((n) => (n.tenantId ? [n.tenantId] : [])))) {
      tenants.set(id, await storage.tenants.get(env, id));
    }
    const integrations = await storage.integrations.list(env, { active: true });
    const preferences = new Map<string, PreferenceRow[]>();
    for (const row of await storage.preferences.listMany(env, unique(jobs.map((j) => j.subscriberId)))) {
      preferences.set(row.subscriberId, [...(preferences.get(row.subscriberId) ?? []), row]);
    }
    return { notifications, subscribers, workflows, tenants, integrations, preferences };
  }

  /** Status of a channel message, the integration chosen for it, and what the trace says. */
  function deliveryOutcome(delivery: Delivery, integrations: readonly Integration[], tenant: Tenant | null) {
    if (delivery.channel === 'in_app') return { status: 'sent' as const, fields: {}, note: {} };
    const choice = selectIntegration(integrations, delivery.channel, tenant);
    if (!choice.integration) return { status: 'warning' as const, fields: { errorText: choice.reason }, note: { reason: choice.reason } };
    const { providerId, identifier } = choice.integration;
    const errorText = `no provider is registered for "${providerId}"`;
    return { status: 'warning' as const, fields: { providerId, errorText }, note: { integration: identifier, reason: `${choice.reason}; ${errorText}` } };
  }

  async function runJob(
    job: Job,
    loaded: Awaited<ReturnType<typeof loadBatch>>,
    now: Date,
  ): Promise<{ messages: Message[]; resume: { runAt: Date; stepIndex: number } | null; trace: TraceEntry[] }> {
    const notification: Notification | undefined = loaded.notifications.get(job.data.notificationId);
    const subscriber: Subscriber | undefined = loaded.subscribers.get(job.subscriberId);
    const workflow: Workflow | undefined = notification && loaded.workflows.get(notification._templateId);
    if (!notification || !subscriber || !workflow) {
      const missing = !notification ? 'notification' : !subscriber ? 'subscriber' : 'workflow';
      return { messages: [], resume: null, trace: [{ stepIndex: job.data.stepIndex, stepId: '', type: 'in_app', decision: 'skipped', reason: `the ${missing} no longer exists` }] };
    }
    const tenant = notification.tenantId ? loaded.tenants.get(notification.tenantId) ?? null : null;
    const walk = walkSteps({
      workflow,
      notification,
      subscriber,
      actor: notification.actorId ? loaded.subscribers.get(notification.actorId) ?? null : null,
      tenant,
      startIndex: job.data.stepIndex,
      now,
      preferences: loaded.preferences.get(subscriber.subscriberId) ?? [],
      outsideSchedule: options.outsideSchedule,
    });
    const messages: Message[] = [];
    const notes = new Map<number, Partial<TraceEntry>>();
    for (const delivery of walk.deliveries) {
      const outcome = deliveryOutcome(delivery, loaded.integrations, tenant);
      const message = buildMessage(delivery, { workflow, notification, subscriber, now: now.toISOString(), status: outcome.status });
      messages.push({ ...message, ...outcome.fields });
      notes.set(delivery.stepIndex, outcome.note);
    }
    const trace = walk.trace.map((entry) => (entry.decision === 'delivered' && notes.has(entry.stepIndex) ? { ...entry, ...notes.get(entry.stepIndex) } : entry));
    return { messages, resume: walk.resume, trace };
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

  async function runBatch(jobs: readonly Job[], now: Date): Promise<void> {
    const loaded = await loadBatch(jobs);
    const messages: Message[] = [];
    const done: string[] = [];
    const records: DecisionRecord[] = [];
    for (const job of jobs) {
      try {
        const outcome = await runJob(job, loaded, now);
        messages.push(...outcome.messages);
        records.push({ environmentId: env, transactionId: job.transactionId, subscriberId: job.subscriberId, jobId: job.id, at: now.toISOString(), entries: outcome.trace });
        if (outcome.resume) {
          await storage.jobs.reschedule(job.id, workerId, {
            runAt: outcome.resume.runAt.toISOString(),
            data: { ...job.data, stepIndex: outcome.resume.stepIndex },
            lastError: null,
            resetAttempts: true,
          });
        } else done.push(job.id);
      } catch (error) {
        await failJob(job, error, now);
      }
    }
    // Messages first, then completion: a crash in between re-runs the jobs, and the message ids,
    // derived from (notification, subscriber, step), keep the second run from adding anything.
    const inserted = await storage.messages.insertMany(messages);
    await storage.traces.append(records);
    await storage.jobs.complete(done, workerId);
    for (const message of inserted) {
      ctx.events.emit('message.created', { message });
      if (message.status === 'sent') ctx.events.emit('message.sent', { message });
    }
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
