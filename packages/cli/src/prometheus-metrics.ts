import { diag } from '@opentelemetry/api';
import { PrometheusExporter, PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';

/** A meter provider read on demand in Prometheus' text format: what `tidings serve --metrics` answers `/metrics` with. */
export interface PrometheusMetrics {
  /** Give it to `createTidings({ meterProvider })`. */
  readonly meterProvider: MeterProvider;
  /** Collects every instrument now (the storage gauges read storage) and answers with the text. */
  respond(): Promise<Response>;
  shutdown(): Promise<void>;
}

/**
 * The OpenTelemetry Prometheus exporter as a pull reader, without the server of its own it would
 * start: the text is served on the app's port instead, by whatever route the caller mounts.
 */
export function prometheusMetrics(): PrometheusMetrics {
  const exporter = new PrometheusExporter({ preventServerStart: true });
  const meterProvider = new MeterProvider({ readers: [exporter] });
  // No target_info: without a resource set up it says only `unknown_service`; Prometheus labels each target itself.
  const serializer = new PrometheusSerializer(undefined, false, undefined, true);
  return {
    meterProvider,
    async respond() {
      const { resourceMetrics, errors } = await exporter.collect();
      if (errors.length > 0) diag.error('tidings: metrics collection errors', ...errors);
      return new Response(serializer.serialize(resourceMetrics), { headers: { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' } });
    },
    shutdown: () => meterProvider.shutdown(),
  };
}
