/** `keiyaku/postgres`: the PostgreSQL transactional outbox (node-postgres). */
export type { OutboxDispatcherOptions, OutboxDispatcherStatus } from './outbox/dispatcher.js';
export { OutboxDispatcher } from './outbox/dispatcher.js';
export type {
  OutboxAdmin,
  OutboxChannelOptions,
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
export type { PgQueryable, PostgresOutboxOptions } from './outbox/postgres.js';
export {
  OUTBOX_LANES,
  OUTBOX_NOTIFY_CHANNEL,
  outboxLane,
  POSTGRES_OUTBOX_SCHEMA,
  PostgresOutbox,
  PostgresOutboxChannel,
} from './outbox/postgres.js';
