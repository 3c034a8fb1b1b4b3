/**
 * `@keiyaku/postgres`: PostgreSQL through `pg` (node-postgres) — the durable stores (event store,
 * checkpoint store, dead-letter store) with {@link migratePostgres}, which creates their tables
 * explicitly (nothing is created silently), the transactional outbox, and the inbox.
 */

export type { PostgresQueryable } from './client.js';
export { createPostgresPool, isConnectionError } from './client.js';
export type { PostgresDeadLetterStoreOptions } from './dead-letters.js';
export { DeadLetterRecordError, openDeadLetterStore, PostgresDeadLetterStore } from './dead-letters.js';
export type { PostgresAppendOptions, PostgresEventStoreOptions } from './event-store.js';
export { EVENTS_CHANNEL, PostgresCheckpointStore, PostgresEventStore } from './event-store.js';
export type { PostgresInboxOptions, PostgresInboxTransaction } from './inbox.js';
export { PostgresInboxStore } from './inbox.js';
export type { MigrateOptions, Migration, MigrationResult } from './migrations.js';
export {
  MIGRATION_LOCK_KEY,
  migratePostgres,
  POSTGRES_INBOX_MIGRATION,
  POSTGRES_INBOX_V1,
  POSTGRES_LEGACY_OUTBOX_VERSION_TABLE,
  POSTGRES_MIGRATIONS,
  POSTGRES_OUTBOX_MIGRATION,
  POSTGRES_OUTBOX_V1,
  postgresMigrationSql,
  postgresOutboxSchemaVersion,
  postgresSchemaVersions,
} from './migrations.js';
export type { PgQueryable, PostgresOutboxOptions } from './outbox.js';
export {
  OUTBOX_LANES,
  OUTBOX_NOTIFY_CHANNEL,
  outboxLane,
  POSTGRES_OUTBOX_SCHEMA,
  PostgresOutbox,
  PostgresOutboxChannel,
} from './outbox.js';
// Deprecated: the runtime's outbox names, re-exported before the runtime exported them itself.
export type {
  OutboxAdmin,
  OutboxChannelOptions,
  OutboxCounts,
  OutboxDispatcherOptions,
  OutboxDispatcherStatus,
  OutboxDispatchStore,
  OutboxEventsOptions,
  OutboxFailure,
  OutboxFilter,
  OutboxRecord,
  OutboxRow,
  OutboxRowState,
  OutboxWriteOptions,
} from './runtime-names.js';
export { OUTBOX_SCHEMA_VERSION, OutboxDispatcher, OutboxEncoder, OutboxError, OutboxLockedError } from './runtime-names.js';
