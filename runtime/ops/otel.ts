/**
 * `instrumentMessaging`, as `@keiyaku/runtime/ops` has always exported it. The instruments
 * belong to the host (it registers them when it starts, `host/otel-metrics.ts`); the operations
 * package depends on the host and never the other way round.
 */
export { instrumentMessaging } from '../host/otel-metrics.js';
