import type { Job } from '../../schemas/index.js';
import type { EngineContext } from '../context.js';
import { firstWalkJob, walkInline, walksInline, type InlineWalk } from './inline-delivery.js';
import { newJob } from '../runtime/jobs.js';
import { enqueue, resultOf } from '../runtime/job-result.js';
import type { EngineJobHandler } from '../walk/batch-data.js';
import { decided, madeMessages } from '../walk/walk-effects.js';

type FanoutJob = Extract<Job, { kind: 'fanout' }>;
type Page = Exclude<FanoutJob['data'], { subscriberIds: string[] }>;

/** Members a page job reads at most; a page that grew past it since the trigger leaves the rest to a job of its own. */
const pageLimit = (ctx: EngineContext) => ctx.options.fanoutChunk * 10;

/**
 * The members of a chunk: its list, or its page read now (of the topics, or of the environment's
 * subscribers for a broadcast), with the rest of an overgrown page as a new job.
 */
async function chunkMembers(ctx: EngineContext, job: FanoutJob, now: Date): Promise<{ members: string[]; rest: Job[] }> {
  if ('subscriberIds' in job.data) return { members: job.data.subscriberIds, rest: [] };
  const page: Page = job.data;
  const limit = pageLimit(ctx);
  const range = { after: page.after, until: page.until, limit };
  const read = 'everyone' in page ? await ctx.storage.subscribers.idPage(ctx.env, range) : await ctx.storage.topics.memberPage(ctx.env, page.topicKeys, range);
  const rest = read.length < limit ? [] : [newJob({ env: ctx.env, kind: 'fanout', runAt: now.toISOString(), transactionId: job.transactionId, subscriberId: job.subscriberId, priority: job.priority ?? 'transactional', data: { ...page, after: read.at(-1)! } }, now)];
  if ('everyone' in page) return { members: read, rest };
  const excluded = new Set(page.exclude);
  return { members: read.filter((id) => !excluded.has(id)), rest };
}

/**
 * Starts the walks of a chunk of a large audience (its jobs of the fan-out's class, `bulk` unless the
 * trigger or workflow said otherwise): walks that only make in-app messages run here
 * (unless `inlineInApp` is off) and are stored by the commit; every other walk is queued as a job of
 * its own, to be walked once, there.
 */
export const fanoutHandler: EngineJobHandler<'fanout'> = async (job, { ctx, batch, now }) => {
  const notification = batch.notifications.get(job.data.notificationId);
  const workflow = notification && batch.workflowOf(notification);
  if (!notification || !workflow) return resultOf(job, { kind: 'done' });
  const { members, rest } = await chunkMembers(ctx, job, now);
  if (!walksInline(ctx, workflow, batch.caps, 'job')) {
    return resultOf(job, { kind: 'done' }, [enqueue([...members.map((id) => firstWalkJob(ctx.env, notification, id, now, job.priority)), ...rest])]);
  }
  const tenant = notification.tenantId ? batch.tenants.get(notification.tenantId) ?? null : null;
  const walks: InlineWalk[] = members.map((subscriberId) => ({ subscriberId, workflow, notification, tenant }));
  const walked = await walkInline(ctx, ctx.storage, walks, new Map(), job.priority);
  return resultOf(job, { kind: 'done' }, [madeMessages(walked.messages), decided(walked.records), enqueue([...walked.jobs, ...rest])]);
};
