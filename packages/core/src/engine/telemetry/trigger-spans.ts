import { SpanKind, SpanStatusCode, trace, type Span, type Tracer } from '@opentelemetry/api';
import type { Notification, TriggerResult, TriggerStatus } from '../../schemas/index.js';
import { traceparentOf } from './tracing.js';

/** The `tidings.trigger` spans of one trigger call, one per event, all ended once the call's transaction is over. */
export interface TriggerSpans {
  /** Starts the span of the event at `index`. */
  start(index: number): void;
  /** The notification carrying the span's trace context, so its jobs' spans join the trace. */
  carry(index: number, notification: Notification): Notification;
  end(events: readonly unknown[], results: readonly TriggerResult[], recorded: readonly { notification: Notification; recipients: number }[]): void;
  failed(error: unknown): void;
}

/** Statuses of an event refused for what it says; the others are what the workflow decided. */
const REFUSED: ReadonlySet<TriggerStatus> = new Set(['error', 'invalid_recipients', 'no_tenant_found']);

const nameOf = (event: unknown) => {
  const name = typeof event === 'object' && event !== null ? (event as { name?: unknown }).name : undefined;
  return typeof name === 'string' ? name : '';
};

export function triggerSpans(tracer: Tracer, count: number): TriggerSpans {
  const spans: (Span | undefined)[] = new Array(count);
  return {
    start(index) {
      spans[index] = tracer.startSpan('tidings.trigger', { kind: SpanKind.PRODUCER });
    },
    carry(index, notification) {
      const span = spans[index];
      // A span the sampler left out still carries its context (flags 00), so its jobs are left out too.
      return span && trace.isSpanContextValid(span.spanContext()) ? { ...notification, traceparent: traceparentOf(span) } : notification;
    },
    end(events, results, recorded) {
      const recipients = new Map(recorded.map((r) => [r.notification.transactionId, r.recipients]));
      for (const [index, span] of spans.entries()) {
        if (!span) continue;
        const result = results[index];
        const transactionId = result?.transactionId;
        span.setAttributes({
          'tidings.workflow': nameOf(events[index]),
          'tidings.recipients': (transactionId !== undefined && recipients.get(transactionId)) || 0,
          'tidings.trigger.status': result?.status ?? 'error',
          ...(transactionId !== undefined && { 'tidings.transaction_id': transactionId }),
        });
        if (result === undefined || REFUSED.has(result.status)) span.setStatus({ code: SpanStatusCode.ERROR, message: (result?.error ?? []).join('; ') || (result?.status ?? '') });
        span.end();
      }
    },
    failed(error) {
      for (const span of spans) {
        if (!span) continue;
        span.recordException(error instanceof Error ? error : String(error));
        span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
        span.end();
      }
    },
  };
}
