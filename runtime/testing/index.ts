/**
 * `@keiyaku/runtime/testing`: the conformance suites (transport, batch handlers, outbox, inbox, stores) and a manual
 * clock. Importing it does not load vitest (an optional peer): the suite takes your runner's
 * `describe`/`it`/`afterEach`/`expect`, or loads vitest when it is registered without them.
 */
export { ManualClock, settle } from '../core/clock.js';
export type { BatchConformanceCase, BatchConformanceSkips } from './batch-conformance.js';
export { BATCH_CONFORMANCE_CASES, runBatchConformance } from './batch-conformance.js';
export type { ConformanceCase, ConformanceMatchers, ConformanceRunner, ConformanceTarget } from './conformance.js';
export { CONFORMANCE_CASES, runTransportConformance } from './conformance.js';
export type { InboxConformanceCase, InboxConformanceTarget, InboxHarness } from './inbox-conformance.js';
export { INBOX_CONFORMANCE_CASES, runInboxConformance } from './inbox-conformance.js';
export type {
  OutboxConformanceCase,
  OutboxConformanceChannel,
  OutboxConformanceTarget,
  OutboxHarness,
  OutboxPingPayload,
} from './outbox-conformance.js';
export { OUTBOX_CONFORMANCE_CASES, OutboxPing, outboxConformanceChannel, runOutboxConformance } from './outbox-conformance.js';
export type { RequestReplyConformanceCase } from './request-reply-conformance.js';
export { REQUEST_REPLY_CONFORMANCE_CASES, runRequestReplyConformance } from './request-reply-conformance.js';
export type { RetryLaterConformanceCase } from './retry-later-conformance.js';
export { RETRY_LATER_CONFORMANCE_CASES, runRetryLaterConformance } from './retry-later-conformance.js';
export type {
  CheckpointStoreTarget,
  ConformanceEvent,
  DeadLetterFeature,
  DeadLetterStoreTarget,
  EventStoreTarget,
} from './stores.js';
export {
  HOSTILE_TEXT,
  hostileParkRequest,
  hostilePayload,
  runCheckpointStoreConformance,
  runDeadLetterStoreConformance,
  runEventStoreConformance,
  sampleParkRequest,
} from './stores.js';
