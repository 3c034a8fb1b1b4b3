/**
 * `keiyaku/sqlite`: SQLite (better-sqlite3), the embedded default — the durable stores (event
 * store, checkpoint store, dead-letter store) with {@link migrateSqlite}, which creates their
 * tables explicitly (nothing is created silently), and the transactional outbox.
 */
export { DeadLetterRecordError, SqliteDeadLetterStore } from './dead-letter/sqlite.js';
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
export type { SqliteOutboxOptions } from './outbox/sqlite.js';
export { SQLITE_OUTBOX_SCHEMA, SqliteOutbox, SqliteOutboxChannel } from './outbox/sqlite.js';
export type { SqliteEventStoreOptions } from './sqlite/event-store.js';
export { openSqlite, SqliteCheckpointStore, SqliteEventStore } from './sqlite/event-store.js';
export type { MigrateOptions, Migration, MigrationResult } from './sqlite/migrations.js';
export { migrateSqlite, SQLITE_MIGRATIONS, sqliteMigrationSql, sqliteSchemaVersions } from './sqlite/migrations.js';
