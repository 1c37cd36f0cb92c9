import type { Job, JobKind } from '../../schemas/index.js';
import type { HandlerContext, JobHandler, JobResult } from './job-result.js';

/** One handler per job kind, as graphile-worker has one task per identifier. */
export type JobHandlers<B> = { readonly [K in JobKind]: JobHandler<K, B> };

/** Runs a job by its kind's handler; a handler that throws is a result too (the job retries or gives up). */
export async function runJob<B>(handlers: JobHandlers<B>, job: Job, context: HandlerContext<B>): Promise<JobResult> {
  try {
    return await (handlers[job.kind] as JobHandler<JobKind, B>)(job, context);
  } catch (error) {
    return { job, next: { kind: 'threw', error: error instanceof Error ? error.message : String(error) }, effects: [] };
  }
}
