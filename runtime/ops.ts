/**
 * `@keiyaku/runtime/ops`: the operations server of a `Messaging` host — `/healthz`, `/readyz`,
 * `/metrics` (Prometheus text format) and the operations page with dead-letter redrive.
 */
export type { PageContext } from './ops/dashboard.js';
export { escapeHtml, html, SafeHtml } from './ops/html.js';
export { instrumentMessaging } from './ops/otel.js';
export { Exposition, escapeLabelValue, PROMETHEUS_CONTENT_TYPE } from './ops/prometheus.js';
export type { OperationsOptions, OperationsServer, ServeOperationsOptions } from './ops/server.js';
export { createOperations, Operations, serveOperations } from './ops/server.js';
export type { Readiness, ReadinessLimits } from './ops/state.js';
export { prometheusText, readiness } from './ops/state.js';
