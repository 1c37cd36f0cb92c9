import { metrics, type MeterProvider, type Tracer, type TracerProvider } from '@opentelemetry/api';
import type { TidingsEmitter } from '../../events.js';
import type { Storage } from '../../storage.js';
import { engineMetrics, type EngineMetrics } from './engine-metrics.js';
import { INSTRUMENTATION, tracerSource } from './tracing.js';

/** Where the engine's spans and measurements go: through `@opentelemetry/api`, nowhere without an SDK. */
export interface Telemetry {
  /** The tracer, or null while no tracer provider would record a span. */
  tracer(): Tracer | null;
  readonly metrics: EngineMetrics | null;
}

export interface TelemetryOptions {
  readonly tracerProvider?: TracerProvider | undefined;
  readonly meterProvider?: MeterProvider | undefined;
}

/**
 * The engine's telemetry. The meter is taken once, here: the metrics API has no proxy, so a global
 * meter provider must be registered before `createTidings` (or passed as `meterProvider`).
 */
export function engineTelemetry(options: TelemetryOptions, storage: Storage, env: string, events: TidingsEmitter, onError: (error: unknown) => void): Telemetry {
  const meter = (options.meterProvider ?? metrics.getMeterProvider()).getMeter(INSTRUMENTATION);
  return { tracer: tracerSource(options.tracerProvider), metrics: engineMetrics(meter, storage, env, events, onError) };
}

/** Telemetry that records nothing. */
export const NO_TELEMETRY: Telemetry = { tracer: () => null, metrics: null };
