/**
 * keiyaku's MySQL/MariaDB tables, created only by an explicit, idempotent {@link migrateMysql}.
 * The version scheme is PostgreSQL's: each component has numbered steps, and
 * `keiyaku_schema_versions` records how many ran. MySQL commits each DDL statement on its own
 * (no transactional DDL), so every statement of a step is idempotent (`CREATE TABLE IF NOT
 * EXISTS`, `INSERT IGNORE`): a migration cut off halfway runs again from the start of its step.
 * Concurrent migrators (several processes starting at once) are serialised by a named lock
 * (`GET_LOCK`) scoped to the database. Tables are created in the connection's database;
 * teams that run their own migrations take the same SQL from {@link mysqlMigrationSql}.
 *
 * The tables work on MySQL 8.0 and on MariaDB 10.6 and later: no partial indexes, no
 * `IF NOT EXISTS` on indexes or columns (indexes are declared in `CREATE TABLE`), texts in
 * utf8mb4 with a binary collation (compared exactly, as PostgreSQL's `text`), bytes in LONGBLOB,
 * times as milliseconds since the epoch in BIGINT (no session time zone involved).
 */
import { type MigrateOptions, type Migration, type MigrationResult, selectMigrations } from '@keiyaku/runtime/adapter';
import { type MysqlConnection, type MysqlQueryable, selectRows, storeError, withConnection } from './client.js';
import { MYSQL_OUTBOX_V1 } from './outbox-schema.js';

export type { MigrateOptions, Migration, MigrationResult } from '@keiyaku/runtime/adapter';

/** The named lock `migrateMysql` holds while it runs, one per database: this prefix and the MD5 of the database's name. */
export const MYSQL_MIGRATION_LOCK_PREFIX = 'keiyaku_migrate_';

/** How long a migrator waits for another one to finish (seconds). */
const LOCK_WAIT_SECONDS = 120;

const TABLE_OPTIONS = 'ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin';

export const MYSQL_VERSIONS_TABLE = `CREATE TABLE IF NOT EXISTS keiyaku_schema_versions (
  component VARCHAR(64) NOT NULL PRIMARY KEY,
  version INT NOT NULL,
  applied_at TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3)
) ${TABLE_OPTIONS};`;

/** Events and the head row whose lock orders appends (gapless positions, visible in order). */
export const MYSQL_EVENTS_V1 = `CREATE TABLE IF NOT EXISTS keiyaku_events (
  position BIGINT NOT NULL PRIMARY KEY,
  stream_id VARCHAR(512) NOT NULL,
  version INT NOT NULL,
  event_id VARCHAR(64) NOT NULL,
  event_type TEXT NOT NULL,
  data LONGTEXT NOT NULL,
  metadata LONGTEXT NOT NULL,
  correlation_id TEXT NULL,
  causation_id TEXT NULL,
  recorded_at BIGINT NOT NULL,
  UNIQUE KEY keiyaku_events_event_id (event_id),
  UNIQUE KEY keiyaku_events_stream (stream_id, version)
) ${TABLE_OPTIONS};
CREATE TABLE IF NOT EXISTS keiyaku_event_head (
  id TINYINT NOT NULL PRIMARY KEY,
  position BIGINT NOT NULL,
  CONSTRAINT keiyaku_event_head_one CHECK (id = 1)
) ${TABLE_OPTIONS};
INSERT IGNORE INTO keiyaku_event_head (id, position) VALUES (1, 0);`;

export const MYSQL_CHECKPOINTS_V1 = `CREATE TABLE IF NOT EXISTS keiyaku_checkpoints (
  name VARCHAR(512) NOT NULL PRIMARY KEY,
  position BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
) ${TABLE_OPTIONS};`;

/**
 * Dead letters: the columns of PostgreSQL's version 2 in one step. `escaped` marks a row whose
 * texts are JSON-string escaped because one held a lone surrogate or a NUL (which UTF-8 cannot
 * carry, or which the escaping rule shared by every store covers); `claimed_at` holds a redrive's
 * claim in ms of the server's clock (null when unclaimed).
 */
export const MYSQL_DEAD_LETTERS_V1 = `CREATE TABLE IF NOT EXISTS keiyaku_dead_letters (
  seq BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  id VARCHAR(64) NOT NULL,
  channel TEXT NOT NULL,
  address TEXT NOT NULL,
  topic TEXT NULL,
  group_id TEXT NOT NULL,
  type TEXT NOT NULL,
  payload LONGBLOB NOT NULL,
  headers LONGTEXT NOT NULL,
  record_key LONGTEXT NULL,
  \`partition\` INT NULL,
  record_offset TEXT NULL,
  error_name TEXT NOT NULL,
  error_message LONGTEXT NOT NULL,
  error_stack LONGTEXT NULL,
  attempts INT NOT NULL,
  first_failure_at BIGINT NOT NULL,
  last_failure_at BIGINT NOT NULL,
  parked_at BIGINT NOT NULL,
  \`escaped\` TINYINT(1) NOT NULL DEFAULT 0,
  claimed_at BIGINT NULL,
  UNIQUE KEY keiyaku_dead_letters_id (id),
  KEY keiyaku_dead_letters_channel (channel(255), group_id(255))
) ${TABLE_OPTIONS};`;

/** The inbox: one row per message a group handled, written in the handler's own transaction; retention purges by `received_at` (ms). */
export const MYSQL_INBOX_V1 = `CREATE TABLE IF NOT EXISTS keiyaku_inbox (
  group_id VARCHAR(255) NOT NULL,
  message_id VARCHAR(512) NOT NULL,
  received_at BIGINT NOT NULL,
  PRIMARY KEY (group_id, message_id),
  KEY keiyaku_inbox_received (received_at)
) ${TABLE_OPTIONS};`;

export { MYSQL_OUTBOX_V1 };

/** The store components, in the order they are applied: what `migrateMysql(pool)` creates when no component is named. */
export const MYSQL_MIGRATIONS: readonly Migration[] = [
  { component: 'event-store', steps: [MYSQL_EVENTS_V1] },
  { component: 'checkpoints', steps: [MYSQL_CHECKPOINTS_V1] },
  { component: 'dead-letters', steps: [MYSQL_DEAD_LETTERS_V1] },
];

/** The outbox component: applied only when named (`migrateMysql(pool, { components: ['outbox'] })`). */
export const MYSQL_OUTBOX_MIGRATION: Migration = { component: 'outbox', steps: [MYSQL_OUTBOX_V1] };

/** The inbox component: applied only when named (`migrateMysql(pool, { components: ['inbox'] })`) or by the inbox's `migrate()`. */
export const MYSQL_INBOX_MIGRATION: Migration = { component: 'inbox', steps: [MYSQL_INBOX_V1] };

const KNOWN_MIGRATIONS: readonly Migration[] = [...MYSQL_MIGRATIONS, MYSQL_OUTBOX_MIGRATION, MYSQL_INBOX_MIGRATION];

function chooseMigrations(components: readonly string[] | undefined, migrations: readonly Migration[] | undefined): readonly Migration[] {
  if (components === undefined) return migrations ?? MYSQL_MIGRATIONS;
  return selectMigrations(components, migrations ?? KNOWN_MIGRATIONS);
}

/** The statements of a step, one per `;` that ends a line (the steps hold no procedures or triggers). */
export function mysqlStatements(step: string): string[] {
  return step
    .split(/;\s*(?:\n|$)/)
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

async function versionOf(connection: MysqlConnection, component: string): Promise<number> {
  const rows = await selectRows<{ version: number }>(connection, 'SELECT version FROM keiyaku_schema_versions WHERE component = ?', [
    component,
  ]);
  return rows[0]?.version ?? 0;
}

/**
 * Applies `chosen` on one connection under the database's named lock, raw `mysql2` errors and all
 * (an outbox's or inbox's `migrate()` reports them as they are; {@link migrateMysql} maps them).
 */
export async function applyMysqlMigrations(db: MysqlQueryable, chosen: readonly Migration[]): Promise<MigrationResult> {
  return withConnection(db, async (connection) => {
    const lockName = `CONCAT('${MYSQL_MIGRATION_LOCK_PREFIX}', MD5(COALESCE(DATABASE(), '')))`;
    const [locked] = await selectRows<{ got: number | null }>(connection, `SELECT GET_LOCK(${lockName}, ?) AS got`, [LOCK_WAIT_SECONDS]);
    if (Number(locked?.got) !== 1)
      throw new Error(`another keiyaku migration held the database's migration lock for ${LOCK_WAIT_SECONDS} s`);
    try {
      await connection.query(MYSQL_VERSIONS_TABLE);
      const applied: { component: string; from: number; to: number }[] = [];
      for (const migration of chosen) {
        const from = await versionOf(connection, migration.component);
        if (from >= migration.steps.length) continue;
        for (const step of migration.steps.slice(from)) {
          for (const statement of mysqlStatements(step)) await connection.query(statement);
        }
        await connection.query(
          `INSERT INTO keiyaku_schema_versions (component, version) VALUES (?, ?)
           ON DUPLICATE KEY UPDATE version = VALUES(version), applied_at = CURRENT_TIMESTAMP(3)`,
          [migration.component, migration.steps.length],
        );
        applied.push({ component: migration.component, from, to: migration.steps.length });
      }
      return { applied };
    } finally {
      await connection.query(`SELECT RELEASE_LOCK(${lockName})`).catch(() => {});
    }
  });
}

/**
 * Creates or upgrades keiyaku's tables (the store components, or those named — `outbox` and
 * `inbox` only when named); running it again changes nothing. Safe to call from several
 * processes at once.
 */
export async function migrateMysql(
  db: MysqlQueryable,
  options: MigrateOptions & { readonly migrations?: readonly Migration[] } = {},
): Promise<MigrationResult> {
  const chosen = chooseMigrations(options.components, options.migrations);
  try {
    return await applyMysqlMigrations(db, chosen);
  } catch (error) {
    throw storeError(error, 'migrating keiyaku tables');
  }
}

/** The schema versions recorded in the database (empty when it was never migrated). */
export async function mysqlSchemaVersions(db: MysqlQueryable): Promise<Readonly<Record<string, number>>> {
  const present = await selectRows<{ n: number }>(
    db,
    "SELECT COUNT(*) AS n FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = 'keiyaku_schema_versions'",
  );
  if (Number(present[0]?.n ?? 0) === 0) return {};
  const rows = await selectRows<{ component: string; version: number }>(db, 'SELECT component, version FROM keiyaku_schema_versions');
  return Object.fromEntries(rows.map((r) => [r.component, Number(r.version)]));
}

/**
 * The SQL `migrateMysql` runs on an empty database, as one script, for teams that run their own
 * migrations (the store components, or those named: `['outbox']`, `['inbox']`). MySQL commits
 * each DDL statement on its own, so the script is not one transaction; every statement in it is
 * idempotent, and running it again is harmless.
 */
export function mysqlMigrationSql(components?: readonly string[]): string {
  const chosen = chooseMigrations(components, undefined);
  const parts = [MYSQL_VERSIONS_TABLE];
  for (const m of chosen) {
    parts.push(`-- ${m.component}`, ...m.steps);
    parts.push(
      `INSERT INTO keiyaku_schema_versions (component, version) VALUES ('${m.component}', ${m.steps.length})\n  ON DUPLICATE KEY UPDATE version = VALUES(version), applied_at = CURRENT_TIMESTAMP(3);`,
    );
  }
  return `${parts.join('\n')}\n`;
}
