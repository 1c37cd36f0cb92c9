import type { Job, JobKind } from '../../schemas/index.js';
import { digestHandler } from '../digests/digest-handler.js';
import { fanoutHandler } from '../trigger/fanout-handler.js';
import type { HandlerContext, JobHandler, JobResult } from './job-result.js';
import { unsnoozeHandler } from '../inbox/unsnooze-handler.js';
import { walkHandler } from '../walk/walk-handler.js';
import { webhookHandler } from '../webhooks/webhook-handler.js';
import { outboxHandler } from '../webhooks/outbox-handler.js';
import { sweepHandler } from '../retention/sweep-handler.js';
import { StepTimedOut } from './step-time-limit.js';
import type { TraceEntry } from '../../walk/trace.js';

export type { BatchData, JobResult, MessageUpdate, NextStep } from './job-result.js';

/** One handler per job kind, as graphile-worker has one task per identifier. */
const handlers: { readonly [K in JobKind]: JobHandler<K> } = {
  walk: walkHandler,
  fanout: fanoutHandler,
  unsnooze: unsnoozeHandler,
  digest: digestHandler,
  webhook: webhookHandler,
  outbox: outboxHandler,
  sweep: sweepHandler,
};

/** What `explain` says of a walk whose user code ran out of time: the job is retried, or given up after its last attempt. */
function timedOutTrace(job: Job, error: unknown, maxAttempts: number): TraceEntry[] | null {
  if (!(error instanceof StepTimedOut) || job.kind !== 'walk') return null;
  const then = job.attempts >= maxAttempts ? 'the job gives up' : `the job runs again later (attempt ${job.attempts} of ${maxAttempts})`;
  return [{ stepIndex: job.data.stepIndex, stepId: '', type: 'custom', decision: 'failed', reason: `${error.message}; ${then}` }];
}

/** Runs a job by its kind's handler; a handler that throws is a result too (the job retries or gives up). */
export async function runJob(job: Job, context: HandlerContext): Promise<JobResult> {
  try {
    return await (handlers[job.kind] as JobHandler<JobKind>)(job, context);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { job, next: { kind: 'threw', error: message }, trace: timedOutTrace(job, error, context.ctx.options.maxAttempts), messages: [], failures: [], warnings: [], records: [], enqueue: [], messageUpdates: [] };
  }
}
