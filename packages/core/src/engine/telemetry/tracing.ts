import { ProxyTracerProvider, ROOT_CONTEXT, TraceFlags, trace, type Context, type Span, type Tracer, type TracerProvider } from '@opentelemetry/api';

export const INSTRUMENTATION = '@tidings/core';

/**
 * The tracer to start spans with, or null when nothing would record them. With no tracer provider
 * given, the global one is asked on each call, so an SDK registered after `createTidings` is used
 * from then on; while none is registered, the answer is null and callers skip the span (and the
 * attribute objects it would take) altogether.
 */
export function tracerSource(given: TracerProvider | undefined): () => Tracer | null {
  if (given) {
    const tracer = given.getTracer(INSTRUMENTATION);
    return () => tracer;
  }
  let cached: { delegate: TracerProvider; tracer: Tracer } | null = null;
  return () => {
    const global = trace.getTracerProvider();
    // Another copy of the API registered the global: its proxy is not ours to look into.
    if (!(global instanceof ProxyTracerProvider)) return global.getTracer(INSTRUMENTATION);
    const delegate = global.getDelegate();
    if (cached?.delegate === delegate) return cached.tracer;
    const tracer = global.getDelegateTracer(INSTRUMENTATION);
    if (!tracer) return null;
    cached = { delegate, tracer };
    return tracer;
  };
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The span's context as a W3C `traceparent` header value (version 00), stored so later jobs join its trace. */
export function traceparentOf(span: Span): string {
  const { traceId, spanId, traceFlags } = span.spanContext();
  return `00-${traceId}-${spanId}-${(traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

/** A context whose parent span is the one a stored `traceparent` names; `base` when there is none or it is malformed. */
export function contextOf(traceparent: string | undefined, base: Context = ROOT_CONTEXT): Context {
  const parsed = traceparent === undefined ? null : TRACEPARENT.exec(traceparent);
  if (!parsed) return base;
  const spanContext = { traceId: parsed[1]!, spanId: parsed[2]!, traceFlags: Number.parseInt(parsed[3]!, 16) & TraceFlags.SAMPLED, isRemote: true };
  return trace.isSpanContextValid(spanContext) ? trace.setSpanContext(base, spanContext) : base;
}
