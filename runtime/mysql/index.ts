/**
 * `@keiyaku/mysql`: MySQL 8.0 and MariaDB 10.6+ through `mysql2` (promise API) — the durable
 * stores (event store, checkpoint store, dead-letter store) with {@link migrateMysql}, which
 * creates their tables explicitly (nothing is created silently), the inbox and the transactional
 * outbox ({@link MysqlOutbox}).
 */

export type { MysqlConnection, MysqlPool, MysqlPoolOptions, MysqlQueryable } from './client.js';
export { createMysqlPool, isConnectionError, isLockConflict, parseMysqlUrl, redactMysqlUrl } from './client.js';
export type { MysqlDeadLetterStoreOptions } from './dead-letters.js';
export { DeadLetterRecordError, MysqlDeadLetterStore, openDeadLetterStore } from './dead-letters.js';
export type { MysqlAppendOptions, MysqlEventStoreOptions } from './event-store.js';
export { MysqlCheckpointStore, MysqlEventStore } from './event-store.js';
export type { MysqlInboxOptions, MysqlInboxTransaction } from './inbox.js';
export { MysqlInboxStore } from './inbox.js';
export type { MigrateOptions, Migration, MigrationResult } from './migrations.js';
export {
  MYSQL_CHECKPOINTS_V1,
  MYSQL_DEAD_LETTERS_V1,
  MYSQL_EVENTS_V1,
  MYSQL_INBOX_MIGRATION,
  MYSQL_INBOX_V1,
  MYSQL_MIGRATION_LOCK_PREFIX,
  MYSQL_MIGRATIONS,
  MYSQL_OUTBOX_MIGRATION,
  MYSQL_OUTBOX_V1,
  MYSQL_VERSIONS_TABLE,
  migrateMysql,
  mysqlMigrationSql,
  mysqlSchemaVersions,
} from './migrations.js';
export type { MysqlOutboxConnection, MysqlOutboxOptions } from './outbox.js';
export {
  DEFAULT_MYSQL_OUTBOX_POLL_MS,
  MYSQL_OUTBOX_SCHEMA,
  MysqlOutbox,
  MysqlOutboxChannel,
  mysqlOutboxLane,
  mysqlServerSupport,
} from './outbox.js';
export { MYSQL_OUTBOX_LANE_COUNT } from './outbox-schema.js';
