export { serve, StartupError, type ServeOptions, type ServeCredentials, type ServeHandle } from './serve.js';
export { prometheusMetrics, type PrometheusMetrics } from './prometheus-metrics.js';
