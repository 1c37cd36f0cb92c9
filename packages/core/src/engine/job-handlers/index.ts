import type { Job, JobKind } from '../../schemas/index.js';
import { digestHandler } from './digest-handler.js';
import { fanoutHandler } from './fanout-handler.js';
import type { HandlerContext, JobHandler, JobResult } from './job-result.js';
import { unsnoozeHandler } from './unsnooze-handler.js';
import { walkHandler } from './walk-handler.js';
import { webhookHandler } from './webhook-handler.js';
import { sweepHandler } from './sweep-handler.js';

export type { BatchData, JobResult, MessageUpdate, NextStep } from './job-result.js';

/** One handler per job kind, as graphile-worker has one task per identifier. */
const handlers: { readonly [K in JobKind]: JobHandler<K> } = {
  walk: walkHandler,
  fanout: fanoutHandler,
  unsnooze: unsnoozeHandler,
  digest: digestHandler,
  webhook: webhookHandler,
  sweep: sweepHandler,
};

/** Runs a job by its kind's handler; a handler that throws is a result too (the job retries or gives up). */
export async function runJob(job: Job, context: HandlerContext): Promise<JobResult> {
  try {
    return await (handlers[job.kind] as JobHandler<JobKind>)(job, context);
  } catch (error) {
    return { job, next: { kind: 'threw', error: error instanceof Error ? error.message : String(error) }, trace: null, messages: [], failures: [], warnings: [], records: [], enqueue: [], messageUpdates: [] };
  }
}
