import { firstWalkJob, walkInline, type InlineWalk } from '../inline-delivery.js';
import { resultOf, type JobHandler } from './job-result.js';
import { capsInApp } from '../caps.js';

/**
 * Starts the walks of a chunk of a large audience: walks that only make in-app messages run here
 * (unless `inlineInApp` is off) and are stored by the commit; every other walk is queued as a job of
 * its own, to be walked once, there.
 */
export const fanoutHandler: JobHandler<'fanout'> = async (job, { ctx, batch, now }) => {
  const notification = batch.notifications.get(job.data.notificationId);
  const workflow = notification && batch.workflows.get(notification._templateId);
  if (!notification || !workflow) return resultOf(job, { kind: 'done' });
  const members = job.data.subscriberIds;
  if (!ctx.options.inlineInApp || !ctx.walker.walksInline(workflow) || capsInApp(batch.caps, workflow)) {
    return resultOf(job, { kind: 'done' }, { enqueue: members.map((id) => firstWalkJob(ctx.env, notification, id, now)) });
  }
  const tenant = notification.tenantId ? batch.tenants.get(notification.tenantId) ?? null : null;
  const walks: InlineWalk[] = members.map((subscriberId) => ({ subscriberId, workflow, notification, tenant }));
  const walked = await walkInline(ctx, ctx.storage, walks, new Map());
  return resultOf(job, { kind: 'done' }, { messages: walked.messages, records: walked.records, enqueue: walked.jobs });
};
