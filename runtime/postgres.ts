/**
 * `keiyaku/postgres`: durable stores on PostgreSQL through `pg` (node-postgres) — the event
 * store, the checkpoint store and the dead-letter store — and {@link migratePostgres}, which
 * creates their tables explicitly (nothing is created silently).
 */
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
