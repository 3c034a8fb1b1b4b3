/** `keiyaku/testing`: the transport, store and outbox conformance suites (need vitest) and a manual clock. */
export { ManualClock, settle } from './core/clock.js';
export type { ConformanceCase, ConformanceTarget } from './testing/conformance.js';
export { CONFORMANCE_CASES, runTransportConformance } from './testing/conformance.js';
export type {
  OutboxConformanceCase,
  OutboxConformanceChannel,
  OutboxConformanceTarget,
  OutboxHarness,
  OutboxPingPayload,
} from './testing/outbox-conformance.js';
export { OUTBOX_CONFORMANCE_CASES, OutboxPing, outboxConformanceChannel, runOutboxConformance } from './testing/outbox-conformance.js';
export type {
  CheckpointStoreTarget,
  ConformanceEvent,
  DeadLetterStoreTarget,
  EventStoreTarget,
} from './testing/stores.js';
export {
  runCheckpointStoreConformance,
  runDeadLetterStoreConformance,
  runEventStoreConformance,
  sampleParkRequest,
} from './testing/stores.js';
