/**
 * `@keiyaku/sqlite`: SQLite (better-sqlite3), the embedded default — the durable stores (event
 * store, checkpoint store, dead-letter store) with {@link migrateSqlite}, which creates their
 * tables explicitly (nothing is created silently), the transactional outbox, and the inbox.
 */

export { DeadLetterRecordError, openDeadLetterStore, SqliteDeadLetterStore } from './dead-letters.js';
export { SqliteDriverError } from './driver.js';
export type { SqliteEventStoreOptions } from './event-store.js';
export { openSqlite, SqliteCheckpointStore, SqliteEventStore } from './event-store.js';
export type { SqliteInboxOptions } from './inbox.js';
export { SqliteInboxStore } from './inbox.js';
export type { MigrateOptions, Migration, MigrationResult } from './migrations.js';
export {
  migrateSqlite,
  SQLITE_INBOX_MIGRATION,
  SQLITE_INBOX_V1,
  SQLITE_LEGACY_OUTBOX_VERSION_TABLE,
  SQLITE_MIGRATIONS,
  SQLITE_OUTBOX_MIGRATION,
  SQLITE_OUTBOX_V1,
  sqliteMigrationSql,
  sqliteOutboxSchemaVersion,
  sqliteSchemaVersions,
} from './migrations.js';
export type { SqliteOutboxOptions } from './outbox.js';
export { SQLITE_OUTBOX_SCHEMA, SqliteOutbox, SqliteOutboxChannel } from './outbox.js';
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
