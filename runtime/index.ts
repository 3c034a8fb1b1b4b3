/**
 * `@keiyaku/runtime`: the transport-independent core — publishers, the conveyor belt,
 * dead-lettering, health, lifecycle, mappers, the event relay (formerly the message
 * producer) and the outbox core.
 * Transports: `@keiyaku/runtime/memory` (and Kafka, Iggy in their own subpaths).
 * The SQLite dead-letter store: `@keiyaku/sqlite`. The conformance suite: `@keiyaku/runtime/testing`.
 */

export type { BatchOptions, BatchSubscriptionOptions } from './belt/batch-options.js';
export { BatchSubscriptionError, DEFAULT_BATCH } from './belt/batch-options.js';
export { delayLabel, RETRY_HEADERS, RetryLaterError, retryTiers } from './belt/retry-tiers.js';
export type {
  RetryLaterOptions,
  RetryTierHealth,
  Stall,
  SubscriptionHealth,
  SubscriptionMetrics,
  SubscriptionOptions,
  SubscriptionState,
} from './belt/subscription.js';
export { Subscription, TransactionalSubscriptionError } from './belt/subscription.js';
export type { AddressChoice, ParameterRule, ParametersOfAddress } from './core/address.js';
export { ChannelAddressError } from './core/address.js';
export type { Backoff, BackoffOptions, DeadLetterPolicy } from './core/backoff.js';
export { DEFAULT_DEAD_LETTER_SCHEDULE, exponentialBackoff, scheduleBackoff } from './core/backoff.js';
export type { Clock } from './core/clock.js';
export { ManualClock, settle, systemClock } from './core/clock.js';
export type { ReplyAddressRule, ReplyOf, RequestOf, RequestReplyDescriptor, Responder } from './core/contract/request-reply.js';
export type {
  AnyChannel,
  AnyContractMessage,
  BatchContext,
  BatchHandler,
  BatchItem,
  ChannelDescriptor,
  MessageContext,
  MessageHandler,
  MessageTypeOf,
} from './core/contract.js';
export type { HistogramSnapshot, PartitionCounters } from './core/counters.js';
export { DURATION_BUCKETS } from './core/counters.js';
export type { EnvelopeOptions, OpenedEnvelope } from './core/envelope.js';
export { CE_HEADERS, encodeEnvelope, openEnvelope } from './core/envelope.js';
export {
  ClosedError,
  isKeiyakuError,
  isProducerFenced,
  KeiyakuError,
  ProducerFencedError,
  PublishError,
  TransportError,
} from './core/errors.js';
export type { HostedComponent, HostedComponentHealth } from './core/hosted.js';
export type { Logger, LogLevel, StreamLoggerOptions } from './core/logger.js';
export { createStreamLogger, silentLogger, stderrLogger } from './core/logger.js';
export { StructuredBinaryPayloadError } from './core/structured.js';
export {
  ATTR as MESSAGING_ATTRIBUTES,
  formatTraceparent,
  INSTRUMENTATION_NAME,
  parseTraceparent,
  TRACE_HEADERS,
} from './core/trace-context.js';
export type {
  ConsumedOffset,
  ConsumerOptions,
  IncomingRecord,
  OutgoingRecord,
  PartitionPosition,
  TransactionalProducer,
  Transport,
  TransportCapabilities,
  TransportConsumer,
  TransportHealth,
  TransportProducer,
  TransportTransaction,
  WireRecord,
} from './core/transport.js';
export type { MessagingHealth, MessagingOptions } from './host/messaging.js';
export { createMessaging, Messaging } from './host/messaging.js';
export type { RequesterOptions, RequesterStats, RequestOptions } from './host/requester.js';
export { ReplyInvalidError, Requester, RequesterStoppedError, RequestTimeoutError } from './host/requester.js';
export type { ResponderHandler, ResponderStats } from './host/responder.js';
export type { InboxEntry, InboxOutcome, InboxStore } from './inbox/inbox.js';
export { DEFAULT_INBOX_RETENTION_MS, INBOX_SCHEMA_VERSION, InboxError, inboxTransaction } from './inbox/inbox.js';
export type { InMemoryInboxOptions, MemoryInboxTransaction } from './inbox/memory.js';
export { InMemoryInboxStore } from './inbox/memory.js';
export type { InboxPurgerDeps, InboxPurgerOptions } from './inbox/purger.js';
export { InboxPurger } from './inbox/purger.js';
export type { OutboxDispatcherOptions, OutboxDispatcherStatus } from './outbox/dispatcher.js';
export { OutboxDispatcher } from './outbox/dispatcher.js';
export type {
  OutboxAdmin,
  OutboxChannelOptions,
  OutboxClaimRequest,
  OutboxCounts,
  OutboxDispatchStore,
  OutboxEventsOptions,
  OutboxFailure,
  OutboxFilter,
  OutboxRecord,
  OutboxRow,
  OutboxRowState,
  OutboxWriteOptions,
} from './outbox/outbox.js';
export { OUTBOX_SCHEMA_VERSION, OutboxEncoder, OutboxError, OutboxLockedError } from './outbox/outbox.js';
export type { PublisherOptions, PublisherStats, PublishOptions } from './publish/publisher.js';
export { Publisher } from './publish/publisher.js';
export type { RedriveErrorCode, RedriveOptions, RedriveResult, RedriveTarget } from './stores/dead-letter/redrive.js';
export { missingDestination, planRedrive, REDRIVEN_FROM_HEADER, RedriveError, redrive } from './stores/dead-letter/redrive.js';
export type {
  DeadLetterFilter,
  DeadLetterPage,
  DeadLetterStore,
  ParkedError,
  ParkedMessage,
  ParkedSummary,
  ParkRequest,
  PayloadView,
  PayloadViewKind,
  PayloadViewOptions,
} from './stores/dead-letter/store.js';
export { InMemoryDeadLetterStore, payloadText, payloadView } from './stores/dead-letter/store.js';
export type {
  EventMapper,
  EventMapperContext,
  Mapped,
  Mapper,
  MessageWithHeaders,
  WithoutRequiredHeaders,
} from './stores/event-store/mapper.js';
export { MapperResultError, withHeaders } from './stores/event-store/mapper.js';
export { InMemoryCheckpointStore, InMemoryEventStore } from './stores/event-store/memory.js';
export type { EventRelayOptions, EventRelayStatus, MessageProducerOptions, MessageProducerStatus } from './stores/event-store/relay.js';
export { EventRelay, MessageProducer } from './stores/event-store/relay.js';
export type {
  AppendOptions,
  AppendToStreamOptions,
  Awaitable,
  CheckpointStore,
  EventSerializer,
  EventSource,
  EventStore,
  ExpectedVersion,
  ReadAllOptions,
  RecordedEvent,
  StoredEvent,
} from './stores/event-store/store.js';
export { ConcurrencyError, jsonSerializer, StoreError, StoreNotMigratedError } from './stores/event-store/store.js';
