import { newJob } from '../runtime/jobs.js';
import { enqueue, resultOf, waitUntil } from '../runtime/job-result.js';
import type { EngineJobHandler } from '../walk/batch-data.js';
import { closeDigest } from './digest-effects.js';

/** How long a due flush waits for an event of its window that another worker is still walking. */
const FLUSH_RECHECK_MS = 250;

/**
 * Flushes a digest when it is due: the commit closes it, so no event joins after this, and queues
 * the walk that goes on after the digest step with its events (as the digest's first event).
 * Events triggered inside the window whose walks have not reached the digest yet belong to it: the
 * flush waits for them instead of splitting the window (at once when they run in this batch).
 */
export const digestHandler: EngineJobHandler<'digest'> = async (job, { ctx, batch, now }) => {
  const { storage, env } = ctx;
  const digest = await storage.digests.get(env, job.data.digestId);
  // Every event was cancelled: the digest is gone and there is nothing to send.
  if (!digest || digest.events.length === 0) return resultOf(job, { kind: 'done' });
  if (digest.status === 'open') {
    const dueAt = new Date(digest.dueAt);
    if (dueAt > now) return resultOf(job, waitUntil(job, dueAt));
    const earlierHere = batch.jobs.some((j) => j.kind === 'walk' && j.subscriberId === digest.subscriberId && j.runAt < digest.dueAt);
    if (earlierHere) return resultOf(job, waitUntil(job, now));
    const batchIds = batch.jobs.map((j) => j.id);
    if (await storage.jobs.hasEarlier(env, digest.subscriberId, digest.dueAt, batchIds)) return resultOf(job, waitUntil(job, new Date(now.getTime() + FLUSH_RECHECK_MS)));
  }
  const owner = digest.events[0]!;
  const walk = newJob(
    { env, kind: 'walk', runAt: now.toISOString(), transactionId: owner.transactionId, subscriberId: digest.subscriberId, priority: 'bulk', data: { notificationId: owner.notificationId, stepIndex: digest.stepIndex + 1, digestId: digest.id } },
    now,
  );
  return resultOf(job, { kind: 'done' }, [closeDigest(digest.id), enqueue([walk])]);
};
