/**
 * `@keiyaku/runtime/ops`: the operations server of a `Messaging` host — `/healthz`, `/readyz`,
 * `/metrics` (Prometheus text format) and the operations page with dead-letter redrive.
 */
export type { PageContext } from './dashboard.js';
export { escapeHtml, html, SafeHtml } from './html.js';
export { instrumentMessaging } from './otel.js';
export { Exposition, escapeLabelValue, PROMETHEUS_CONTENT_TYPE } from './prometheus.js';
export type { OperationsOptions, OperationsServer, ServeOperationsOptions } from './server.js';
export { createOperations, Operations, serveOperations } from './server.js';
export type { Readiness, ReadinessLimits } from './state.js';
export { prometheusText, readiness } from './state.js';
