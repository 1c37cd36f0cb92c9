import type { JobRepository } from '../storage.js';
import type { KernelJobs } from './kernel.js';

/**
 * Whether the subscriber has a job, other than those of `exceptIds`, due before `before` (core's rule,
 * over `jobs.list`; a backend's `hasEarlier` must answer the same).
 */
export async function hasEarlierJob(jobs: Pick<JobRepository, 'list'>, env: string, subscriberId: string, before: string, exceptIds: readonly string[]): Promise<boolean> {
  const except = new Set(exceptIds);
  return (await jobs.list(env, { subscriberId })).some((job) => job.runAt < before && !except.has(job.id));
}

/** The job queue: the backend's, with core's rules where the backend has no fast path. */
export function jobRepository(kernel: KernelJobs): JobRepository {
  return {
    enqueue: (env, jobs) => kernel.enqueue(env, jobs),
    claimDue: (options) => kernel.claimDue(options),
    renew: (env, ids, workerId, lockedUntil) => kernel.renew(env, ids, workerId, lockedUntil),
    releaseLeases: (env, alive) => kernel.releaseLeases(env, alive),
    complete: (env, ids, workerId) => kernel.complete(env, ids, workerId),
    reschedule: (env, id, workerId, change) => kernel.reschedule(env, id, workerId, change),
    cancelByTransaction: (env, transactionId) => kernel.cancelByTransaction(env, transactionId),
    cancelBySubscriber: (env, subscriberId) => kernel.cancelBySubscriber(env, subscriberId),
    nextDueAt: (env, lane) => kernel.nextDueAt(env, lane),
    list: (env, filter) => kernel.list(env, filter),
    countByKind: (env) => kernel.countByKind(env),
    hasEarlier: (env, subscriberId, before, exceptIds) =>
      kernel.hasEarlier ? kernel.hasEarlier(env, subscriberId, before, exceptIds) : hasEarlierJob(kernel, env, subscriberId, before, exceptIds),
  };
}
