import { z } from 'zod';
import { notFound, TidingsError } from '../../errors.js';
import { stepIndexOf } from '../../messages/build-message.js';
import { idSchema, type DigestMetadata, type Message, type Notification, type Subscriber, type WalkJobData, type Workflow } from '../../schemas/index.js';
import { groupBy } from '../../util/group-by.js';
import { parseInput } from '../../validation.js';
import type { EngineContext } from '../context.js';
import { newJob } from '../runtime/jobs.js';
import { neverAccepted } from './retry-run.js';
import { digestKeyOf } from '../digests/settle-digest.js';
import { pinnedWorkflows } from '../revisions/pinned-workflows.js';

const retryInputSchema = z.object({ transactionId: idSchema, subscriberId: idSchema });

/** A step a retry queued, and its `error` messages that the run replaces. */
export interface RetriedStep {
  readonly stepIndex: number;
  readonly messageIds: string[];
}

/** The key of a step's retry job: a second retry before the first ran queues nothing more. */
const retryKey = (notification: Notification, subscriber: Subscriber, stepIndex: number) => `retry:${notification._id}:${subscriber._id}:${stepIndex}`;

/**
 * The subscriber's steps of the trigger that failed for good: a step with a message no provider took
 * (its channel's, or its fallback's) and none sent. A step sent through its fallback is not one.
 */
function failedSteps(messages: readonly Message[]): RetriedStep[] {
  return [...groupBy(messages, stepIndexOf)].flatMap(([stepIndex, ofStep]) =>
    ofStep.some(neverAccepted) && !ofStep.some((m) => m.status === 'sent') ? [{ stepIndex, messageIds: ofStep.filter(neverAccepted).map((m) => m._id) }] : [],
  );
}

/**
 * What a walk that reaches `stepIndex` after a digest step continues from: the digest this event
 * opened (its events are `step.events` again), or the event alone when the digest let it through.
 */
async function digestContext(ctx: EngineContext, workflow: Workflow, notification: Notification, subscriber: Subscriber, stepIndex: number): Promise<Pick<WalkJobData, 'digestId' | 'passedDigest'>> {
  const digestIndex = workflow.steps.slice(0, stepIndex).findLastIndex((s) => s.template.type === 'digest');
  if (digestIndex < 0) return {};
  const base = workflow.steps[digestIndex]!;
  for (const step of [base, ...base.variants]) {
    const { key } = digestKeyOf({ workflow, notification, subscriber, stepIndex: digestIndex, step }, (step.metadata ?? { type: 'regular' }) as DigestMetadata);
    const joined = await ctx.storage.digests.membership(ctx.env, key, notification.transactionId);
    if (joined) return { digestId: joined.digestId };
  }
  return { passedDigest: true };
}

/**
 * `tidings.retry(transactionId, subscriberId)`: sends again the subscriber's steps of a trigger that
 * failed for good (their jobs gave up; the messages are `error`), each as a new walk job from that
 * step. A step after which the walk went on is made alone, so no step that ran is made twice; one
 * where the walk ended (`shouldStopOnFail`) walks on from there. The new message of a step takes the
 * id, and the place, of its `error` message.
 */
export function retryApi(ctx: EngineContext) {
  return async function retry(transactionId: string, subscriberId: string): Promise<{ retried: RetriedStep[] }> {
    parseInput(retryInputSchema, { transactionId, subscriberId }, 'retry');
    const { storage, env } = ctx;
    const notification = await storage.notifications.getByTransactionId(env, transactionId);
    if (!notification) throw notFound('Transaction', transactionId);
    const [subscriber] = await storage.subscribers.getMany(env, [subscriberId]);
    if (!subscriber) throw notFound('Subscriber', subscriberId);
    const current = new Map((await storage.workflows.getMany(env, [notification._templateId])).map((w) => [w._id, w] as const));
    // The run is retried in the revision it walked, as its job will walk it.
    const workflow = (await pinnedWorkflows(storage.records, env, [notification], current))(notification);
    if (!workflow) throw notFound('Workflow', notification._templateId);
    if (workflow._creatorId === 'code') {
      throw new TidingsError('conflict', `Workflow "${workflow.identifier}" is written in code: a run of it is replayed from its start, so one failed step cannot be sent again on its own`);
    }
    const messages = (await storage.messages.listByTransaction(env, transactionId)).filter((m) => m._subscriberId === subscriber._id);
    const retried = failedSteps(messages);
    if (retried.length === 0) throw new TidingsError('conflict', `Nothing to retry: no step of subscriber "${subscriberId}" in transaction "${transactionId}" failed for good`);
    const records = await storage.traces.list(env, transactionId, subscriberId);
    const reached = Math.max(-1, ...records.flatMap((r) => r.entries.map((e) => e.stepIndex)));
    const now = ctx.clock.now();
    const jobs = await Promise.all(
      retried.map(async ({ stepIndex }) => {
        const data: WalkJobData = { notificationId: notification._id, stepIndex, retry: { stepIndex, alone: reached > stepIndex }, ...(await digestContext(ctx, workflow, notification, subscriber, stepIndex)) };
        return newJob({ env, kind: 'walk', runAt: now.toISOString(), transactionId, subscriberId, key: retryKey(notification, subscriber, stepIndex), data }, now);
      }),
    );
    await storage.jobs.enqueue(env, jobs);
    return { retried };
  };
}
