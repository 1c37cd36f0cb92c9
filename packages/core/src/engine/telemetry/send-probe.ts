import { SpanKind, SpanStatusCode, context, trace, type Span } from '@opentelemetry/api';
import type { Integration, Message } from '../../schemas/index.js';
import type { SendOutcome } from './engine-metrics.js';
import type { Telemetry } from './telemetry.js';

/** One provider call watched: its `tidings.provider.send` span and its latency. */
export interface SendProbe {
  /** Starts the call with the span active, so the provider's own requests nest under it. */
  run<T>(send: () => Promise<T>): Promise<T>;
  /** Ends the span and records the latency; later calls do nothing. */
  end(outcome: SendOutcome, error?: unknown): void;
}

/**
 * A probe for one provider call, or null when neither spans nor metrics are kept (nothing is made per
 * message then). Latency is wall time (`performance.now()`), not the engine's clock: it measures the
 * call, which a manual clock in tests does not move.
 */
export function sendProbe(telemetry: Telemetry, integration: Integration, channel: Message['channel']): SendProbe | null {
  const tracer = telemetry.tracer();
  const metrics = telemetry.metrics;
  if (!tracer && !metrics) return null;
  const started = performance.now();
  const span: Span | undefined = tracer?.startSpan('tidings.provider.send', {
    kind: SpanKind.CLIENT,
    attributes: { 'tidings.provider': integration.providerId, 'tidings.integration': integration.identifier, 'tidings.channel': channel },
  });
  let ended = false;
  return {
    run(send) {
      return span ? context.with(trace.setSpan(context.active(), span), send) : send();
    },
    end(outcome, error) {
      if (ended) return;
      ended = true;
      const seconds = (performance.now() - started) / 1000;
      metrics?.providerSent(integration.providerId, outcome, seconds);
      if (!span) return;
      span.setAttributes({ 'tidings.outcome': outcome, 'tidings.duration_ms': seconds * 1000 });
      if (error !== undefined) {
        span.recordException(error instanceof Error ? error : String(error));
        span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
      }
      span.end();
    },
  };
}
