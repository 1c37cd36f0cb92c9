import { randomUUID } from 'node:crypto';
import { buildMessage } from '../messages/build-message.js';
import type { Job, Message, Notification, Subscriber, Tenant, Workflow } from '../schemas/index.js';
import { walkSteps } from '../trigger/walk-steps.js';
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
    return { notifications, subscribers, workflows, tenants };
  }

  async function deliveryStatus(channel: Message['channel']): Promise<Pick<Message, 'status' | 'errorText'>> {
    if (channel === 'in_app') return { status: 'sent' };
    const active = await storage.integrations.list(env, { active: true, channel });
    return active.length === 0
      ? { status: 'warning', errorText: `no active ${channel} integration` }
      : { status: 'warning', errorText: `no provider is registered for ${channel}` };
  }

  async function runJob(
    job: Job,
    loaded: Awaited<ReturnType<typeof loadBatch>>,
    now: Date,
  ): Promise<{ messages: Message[]; resume: { runAt: Date; stepIndex: number } | null }> {
    const notification: Notification | undefined = loaded.notifications.get(job.data.notificationId);
    const subscriber: Subscriber | undefined = loaded.subscribers.get(job.subscriberId);
    const workflow: Workflow | undefined = notification && loaded.workflows.get(notification._templateId);
    if (!notification || !subscriber || !workflow) return { messages: [], resume: null };
    const walk = walkSteps({
      workflow,
      notification,
      subscriber,
      actor: notification.actorId ? loaded.subscribers.get(notification.actorId) ?? null : null,
      tenant: notification.tenantId ? loaded.tenants.get(notification.tenantId) ?? null : null,
      startIndex: job.data.stepIndex,
      now,
    });
    const messages: Message[] = [];
    for (const delivery of walk.deliveries) {
      const { status, errorText } = await deliveryStatus(delivery.channel);
      const message = buildMessage(delivery, { workflow, notification, subscriber, now: now.toISOString(), status });
      messages.push(errorText === undefined ? message : { ...message, errorText });
    }
    return { messages, resume: walk.resume };
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
    for (const job of jobs) {
      try {
        const outcome = await runJob(job, loaded, now);
        messages.push(...outcome.messages);
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
