/**
 * `keiyaku/postgres`: PostgreSQL through `pg` (node-postgres) — the durable stores (event store,
 * checkpoint store, dead-letter store) with {@link migratePostgres}, which creates their tables
 * explicitly (nothing is created silently), and the transactional outbox.
 */

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
export type { PostgresQueryable } from './postgres/client.js';
export { isConnectionError } from './postgres/client.js';
export type { PostgresDeadLetterStoreOptions } from './postgres/dead-letters.js';
export { PostgresDeadLetterStore } from './postgres/dead-letters.js';
export type { PostgresAppendOptions, PostgresEventStoreOptions } from './postgres/event-store.js';
export { EVENTS_CHANNEL, PostgresCheckpointStore, PostgresEventStore } from './postgres/event-store.js';
export type { MigrateOptions, Migration, MigrationResult } from './postgres/migrations.js';
export {
  MIGRATION_LOCK_KEY,
  migratePostgres,
  POSTGRES_MIGRATIONS,
  postgresMigrationSql,
  postgresSchemaVersions,
} from './postgres/migrations.js';
