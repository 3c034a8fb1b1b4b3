/**
 * `@keiyaku/runtime/adapter`: what a transport or store package builds on — the transport
 * interface and its records, the CloudEvents envelope every transport writes, the store
 * interfaces, the outbox and inbox cores, errors, logger, clock, retry, waiting and migrations. `@keiyaku/kafka`, `@keiyaku/iggy`, `@keiyaku/sqlite` and
 * `@keiyaku/postgres` import the runtime through this entry only; a new transport or store does
 * the same (docs/architecture.md), and proves itself with the conformance suites of
 * `@keiyaku/runtime/testing`. Services do not need it.
 */
export type { AddressedChannel } from '../core/address.js';
export { resolveAddress } from '../core/address.js';
export type { Backoff, BackoffOptions } from '../core/backoff.js';
export { exponentialBackoff } from '../core/backoff.js';
export type { Clock } from '../core/clock.js';
export { systemClock } from '../core/clock.js';
export type { AnyChannel, AnyContractMessage, ChannelBindings, DecodeResult, HeadersOf } from '../core/contract.js';
export type { EnvelopeOptions } from '../core/envelope.js';
export { CE_HEADERS, encodeEnvelope, openEnvelope, recordType } from '../core/envelope.js';
export { ClosedError, isKeiyakuError, isProducerFenced, KeiyakuError, ProducerFencedError, TransportError } from '../core/errors.js';
export type { Logger } from '../core/logger.js';
export { forwardingLogger, silentLogger, stderrLogger } from '../core/logger.js';
export type { MigrateOptions, Migration, MigrationResult } from '../core/migration.js';
export { selectMigrations } from '../core/migration.js';
export type { RetryOptions } from '../core/retry.js';
export { isRetriable, retry } from '../core/retry.js';
export type { ContentMode } from '../core/structured.js';
export { refuseStructuredBinary, StructuredBinaryPayloadError, toStructured } from '../core/structured.js';
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
} from '../core/transport.js';
export type { Waiter } from '../core/wake-up.js';
export { waitForWake } from '../core/wake-up.js';
export type { InboxEntry, InboxOutcome, InboxStore } from '../inbox/inbox.js';
export { DEFAULT_INBOX_RETENTION_MS, INBOX_SCHEMA_VERSION, InboxError } from '../inbox/inbox.js';
export { assertInboxSchemaVersion, inboxNotMigrated, isThenable } from '../inbox/store-base.js';
export type { OutboxDispatcherDeps, OutboxDispatcherOptions, OutboxDispatcherStatus } from '../outbox/dispatcher.js';
export { OutboxDispatcher } from '../outbox/dispatcher.js';
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
} from '../outbox/outbox.js';
export { OUTBOX_SCHEMA_VERSION, OutboxEncoder, OutboxError, OutboxLockedError, parseRowId } from '../outbox/outbox.js';
export type { OutboxStoreDispatcherDeps, OutboxStoreOptions, OutboxTableRow } from '../outbox/store-base.js';
export {
  capOutboxBatch,
  DEFAULT_OUTBOX_LEASE_MS,
  OUTBOX_COLUMNS,
  OutboxStoreBase,
  outboxCountsFrom,
  outboxNotMigrated,
  outboxRowFrom,
} from '../outbox/store-base.js';
export type { DeadLetterColumns, DeadLetterFilterColumns, DeadLetterRowFormat } from '../stores/dead-letter/records.js';
export {
  checkLease,
  DeadLetterRecordError,
  deadLetterColumns,
  deadLetterFilterColumns,
  escapeText,
  needsEscaping,
  pageLimit,
  parkedFromRequest,
  parkedFromRow,
  summaryFromRow,
  unescapeText,
} from '../stores/dead-letter/records.js';
export type {
  DeadLetterFilter,
  DeadLetterPage,
  DeadLetterStore,
  ParkedMessage,
  ParkedSummary,
  ParkRequest,
} from '../stores/dead-letter/store.js';
export type { DeadLetterInsert } from '../stores/dead-letter/table.js';
export {
  DEAD_LETTER_INSERT_COLUMNS,
  DEAD_LETTER_V2_COLUMN,
  deadLetterInsert,
  deadLetterSummaryColumns,
  deadLetterTableOutdated,
} from '../stores/dead-letter/table.js';
export type { EventMapper, Mapper } from '../stores/event-store/mapper.js';
export type { EventTableRow } from '../stores/event-store/rows.js';
export { recordedEventFrom } from '../stores/event-store/rows.js';
export type {
  AppendToStreamOptions,
  CheckpointStore,
  EventSerializer,
  EventStore,
  ReadAllOptions,
  RecordedEvent,
} from '../stores/event-store/store.js';
export { checkExpectedVersion, eventTypeOf, jsonSerializer, StoreError, StoreNotMigratedError } from '../stores/event-store/store.js';
