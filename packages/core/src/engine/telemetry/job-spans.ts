import { SpanKind, SpanStatusCode, context, trace, type Span, type Tracer } from '@opentelemetry/api';
import type { Job, Notification } from '../../schemas/index.js';
import type { JobResult } from '../runtime/job-result.js';
import type { BatchSpans } from '../runtime/job-runner.js';
import type { TraceEffect } from '../walk/walk-effects.js';
import { contextOf } from './tracing.js';

/** The `tidings.job` spans of one batch: one per job, from its run until the batch's commit. */
export interface JobSpans extends BatchSpans {
  /** Runs the job's work with its span active, so provider calls nest under it. */
  run<T>(job: Job, work: () => Promise<T>): Promise<T>;
  /** The batch committed: each span gets the run's steps as events and its outcome, and ends. */
  committed(results: readonly JobResult[], gaveUp: ReadonlySet<string>): void;
  /** The batch failed before or at its commit: every span ends with the error. */
  failed(error: unknown): void;
}

/**
 * Starts a span per job. A walk or fan-out job's parent is the `tidings.trigger` span of its
 * notification (its stored `traceparent`), so one trace holds a trigger and every later delivery of
 * it, however long after; other jobs (digest flushes, webhooks, sweeps) start from the active context.
 */
export function startJobSpans(tracer: Tracer, jobs: readonly Job[], notifications: ReadonlyMap<string, Notification>): JobSpans {
  const active = context.active();
  const spans = new Map<string, { span: Span; context: ReturnType<typeof context.active> }>();
  for (const job of jobs) {
    const notificationId = job.kind === 'walk' || job.kind === 'fanout' ? job.data.notificationId : undefined;
    const parent = contextOf(notificationId === undefined ? undefined : notifications.get(notificationId)?.traceparent, active);
    const span = tracer.startSpan(
      'tidings.job',
      {
        kind: SpanKind.CONSUMER,
        attributes: { 'tidings.job.id': job.id, 'tidings.job.kind': job.kind, 'tidings.job.attempt': job.attempts, 'tidings.transaction_id': job.transactionId, 'tidings.subscriber_id': job.subscriberId },
      },
      parent,
    );
    spans.set(job.id, { span, context: trace.setSpan(parent, span) });
  }
  return {
    run(job, work) {
      const held = spans.get(job.id);
      return held ? context.with(held.context, work) : work();
    },
    committed(results, gaveUp) {
      for (const result of results) {
        const held = spans.get(result.job.id);
        if (!held) continue;
        const { span } = held;
        for (const entry of result.effects.flatMap((e) => (e.kind === 'trace' ? (e as TraceEffect).entries : []))) {
          span.addEvent('tidings.step', {
            'tidings.step.index': entry.stepIndex,
            'tidings.step.id': entry.stepId,
            'tidings.step.type': entry.type,
            'tidings.step.decision': entry.decision,
            'tidings.step.reason': entry.reason,
            ...(entry.integration !== undefined && { 'tidings.step.integration': entry.integration }),
          });
        }
        span.setAttribute('tidings.job.outcome', gaveUp.has(result.job.id) ? 'gave_up' : result.next.kind === 'later' ? (result.next.retry ? 'retry' : 'later') : result.next.kind);
        if (result.next.kind === 'threw') span.setStatus({ code: SpanStatusCode.ERROR, message: result.next.error });
        else if (result.next.kind === 'later' && result.next.lastError !== null) span.setStatus({ code: SpanStatusCode.ERROR, message: result.next.lastError });
        span.end();
        spans.delete(result.job.id);
      }
      for (const { span } of spans.values()) span.end();
      spans.clear();
    },
    failed(error) {
      for (const { span } of spans.values()) {
        span.recordException(error instanceof Error ? error : String(error));
        span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
        span.end();
      }
      spans.clear();
    },
  };
}
