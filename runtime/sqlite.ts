/**
 * `keiyaku/sqlite`: durable stores on SQLite (better-sqlite3), the embedded default — the event
 * store, the checkpoint store and the dead-letter store — and {@link migrateSqlite}, which
 * creates their tables explicitly (nothing is created silently).
 */
export { SqliteDeadLetterStore } from './dead-letter/sqlite.js';
export type { SqliteEventStoreOptions } from './sqlite/event-store.js';
export { openSqlite, SqliteCheckpointStore, SqliteEventStore } from './sqlite/event-store.js';
export type { MigrateOptions, Migration, MigrationResult } from './sqlite/migrations.js';
export { migrateSqlite, SQLITE_MIGRATIONS, sqliteMigrationSql, sqliteSchemaVersions } from './sqlite/migrations.js';
