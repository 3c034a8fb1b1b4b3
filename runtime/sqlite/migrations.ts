/**
 * keiyaku's SQLite tables, created only by an explicit, idempotent {@link migrateSqlite}.
 * Every component has numbered steps; `keiyaku_schema_versions` records how many ran, so a
 * later release adds steps and `migrateSqlite` applies only the new ones. Teams that run their
 * own migrations take the same SQL from {@link sqliteMigrationSql}.
 */

import { type MigrateOptions, type Migration, type MigrationResult, selectMigrations } from '@keiyaku/runtime/adapter';
import type Database from 'better-sqlite3';

export type { MigrateOptions, Migration, MigrationResult } from '@keiyaku/runtime/adapter';

export const SQLITE_VERSIONS_TABLE = `CREATE TABLE IF NOT EXISTS keiyaku_schema_versions (
  component TEXT PRIMARY KEY,
  version INTEGER NOT NULL,
  applied_at INTEGER NOT NULL
);`;

/** The dead-letter table (adopts tables the pre-migration SqliteDeadLetterStore created). */
export const SQLITE_DEAD_LETTERS_V1 = `CREATE TABLE IF NOT EXISTS keiyaku_dead_letters (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  channel TEXT NOT NULL,
  address TEXT NOT NULL,
  group_id TEXT NOT NULL,
  type TEXT NOT NULL,
  payload BLOB NOT NULL,
  headers TEXT NOT NULL,
  record_key TEXT,
  partition INTEGER,
  record_offset TEXT,
  error_name TEXT NOT NULL,
  error_message TEXT NOT NULL,
  error_stack TEXT,
  attempts INTEGER NOT NULL,
  first_failure_at INTEGER NOT NULL,
  last_failure_at INTEGER NOT NULL,
  parked_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS keiyaku_dead_letters_channel ON keiyaku_dead_letters (channel, group_id);`;

/**
 * Dead letters, version 2: the broker topic beside the address; `escaped` marks a row whose texts
 * are JSON-string escaped (a NUL or lone surrogate somewhere; see docs/stores.md); `claimed_at`
 * holds a redrive's claim (milliseconds since the epoch, null when unclaimed).
 */
export const SQLITE_DEAD_LETTERS_V2 = `ALTER TABLE keiyaku_dead_letters ADD COLUMN topic TEXT;
ALTER TABLE keiyaku_dead_letters ADD COLUMN escaped INTEGER NOT NULL DEFAULT 0;
ALTER TABLE keiyaku_dead_letters ADD COLUMN claimed_at INTEGER;`;

export const SQLITE_EVENTS_V1 = `CREATE TABLE IF NOT EXISTS keiyaku_events (
  position INTEGER PRIMARY KEY,
  stream_id TEXT NOT NULL,
  version INTEGER NOT NULL,
  event_id TEXT NOT NULL UNIQUE,
  event_type TEXT NOT NULL,
  data TEXT NOT NULL,
  metadata TEXT NOT NULL,
  correlation_id TEXT,
  causation_id TEXT,
  recorded_at INTEGER NOT NULL,
  UNIQUE (stream_id, version)
);`;

export const SQLITE_CHECKPOINTS_V1 = `CREATE TABLE IF NOT EXISTS keiyaku_checkpoints (
  name TEXT PRIMARY KEY,
  position INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);`;

/**
 * The outbox tables (schema version 1): the rows, and the lock row of the one dispatcher a
 * database file may have. Until this release the outbox recorded its version in a table of its
 * own, `keiyaku_outbox_schema`; see {@link SQLITE_LEGACY_OUTBOX_VERSION_TABLE}.
 */
export const SQLITE_OUTBOX_V1 = `CREATE TABLE IF NOT EXISTS keiyaku_outbox (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  message_id TEXT NOT NULL,
  channel TEXT NOT NULL,
  address TEXT NOT NULL,
  partition_key TEXT,
  type TEXT NOT NULL,
  payload BLOB NOT NULL,
  headers TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'published', 'dead')),
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL DEFAULT 0,
  last_error TEXT,
  finished_at INTEGER
);
CREATE INDEX IF NOT EXISTS keiyaku_outbox_pending ON keiyaku_outbox (seq) WHERE state = 'pending';
CREATE INDEX IF NOT EXISTS keiyaku_outbox_retry ON keiyaku_outbox (next_attempt_at) WHERE state = 'pending' AND next_attempt_at > 0;
CREATE INDEX IF NOT EXISTS keiyaku_outbox_dead ON keiyaku_outbox (seq) WHERE state = 'dead';
CREATE INDEX IF NOT EXISTS keiyaku_outbox_published ON keiyaku_outbox (finished_at) WHERE state = 'published';
CREATE TABLE IF NOT EXISTS keiyaku_outbox_lock (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  owner TEXT NOT NULL,
  lease_until INTEGER NOT NULL
);`;

/**
 * The inbox table (schema version 1): one row per message a group handled, written in the
 * handler's own transaction; `received_at` (ms since the epoch) is what retention purges by.
 */
export const SQLITE_INBOX_V1 = `CREATE TABLE IF NOT EXISTS keiyaku_inbox (
  group_id TEXT NOT NULL,
  message_id TEXT NOT NULL,
  received_at INTEGER NOT NULL,
  PRIMARY KEY (group_id, message_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS keiyaku_inbox_received ON keiyaku_inbox (received_at);`;

/** The store components, in the order they are applied: what `migrateSqlite(db)` creates when no component is named. */
export const SQLITE_MIGRATIONS: readonly Migration[] = [
  { component: 'event-store', steps: [SQLITE_EVENTS_V1] },
  { component: 'checkpoints', steps: [SQLITE_CHECKPOINTS_V1] },
  { component: 'dead-letters', steps: [SQLITE_DEAD_LETTERS_V1, SQLITE_DEAD_LETTERS_V2] },
];

/**
 * The outbox component. `SqliteOutbox.migrate()` applies it; `migrateSqlite(db, { components:
 * ['outbox'] })` and `sqliteMigrationSql(['outbox'])` name it explicitly (a service without an
 * outbox gets no outbox tables from a plain `migrateSqlite(db)`).
 */
export const SQLITE_OUTBOX_MIGRATION: Migration = { component: 'outbox', steps: [SQLITE_OUTBOX_V1] };

/**
 * The inbox component. `SqliteInboxStore.migrate()` applies it; `migrateSqlite(db, { components:
 * ['inbox'] })` and `sqliteMigrationSql(['inbox'])` name it explicitly (like the outbox, it is not
 * part of a plain `migrateSqlite(db)`).
 */
export const SQLITE_INBOX_MIGRATION: Migration = { component: 'inbox', steps: [SQLITE_INBOX_V1] };

/**
 * Where outbox releases before `keiyaku_schema_versions` recorded their version (one row, id 1).
 * Migrating the `outbox` component carries that version over (once, inside the migration's
 * transaction) and leaves the table in place, so a process of the previous release still running
 * during a rolling upgrade keeps reading it; keiyaku no longer writes it. Drop it once no older
 * process runs: `DROP TABLE IF EXISTS keiyaku_outbox_schema;`.
 */
export const SQLITE_LEGACY_OUTBOX_VERSION_TABLE = 'keiyaku_outbox_schema';

const KNOWN_MIGRATIONS: readonly Migration[] = [...SQLITE_MIGRATIONS, SQLITE_OUTBOX_MIGRATION, SQLITE_INBOX_MIGRATION];

/** The migrations to run: the named components among all known ones, or the default set. */
function chooseMigrations(components: readonly string[] | undefined, migrations: readonly Migration[] | undefined): readonly Migration[] {
  if (components === undefined) return migrations ?? SQLITE_MIGRATIONS;
  return selectMigrations(components, migrations ?? KNOWN_MIGRATIONS);
}

function tableExists(db: Database.Database, name: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
}

/** Records the version of a legacy outbox layout as the `outbox` component's, unless one is recorded already. */
function adoptLegacyOutboxVersion(db: Database.Database): void {
  if (!tableExists(db, SQLITE_LEGACY_OUTBOX_VERSION_TABLE)) return;
  db.prepare<[number]>(
    `INSERT INTO keiyaku_schema_versions (component, version, applied_at)
     SELECT 'outbox', version, ? FROM ${SQLITE_LEGACY_OUTBOX_VERSION_TABLE} WHERE id = 1
     ON CONFLICT (component) DO NOTHING`,
  ).run(Date.now());
}

/**
 * The outbox schema version in `db`: the `outbox` row of `keiyaku_schema_versions`, else the
 * legacy table's (a database an earlier release migrated), else undefined (no outbox tables).
 */
export function sqliteOutboxSchemaVersion(db: Database.Database): number | undefined {
  const recorded = sqliteSchemaVersions(db).outbox;
  if (recorded !== undefined) return recorded;
  if (!tableExists(db, SQLITE_LEGACY_OUTBOX_VERSION_TABLE)) return undefined;
  return db.prepare<[], { version: number }>(`SELECT version FROM ${SQLITE_LEGACY_OUTBOX_VERSION_TABLE} WHERE id = 1`).get()?.version;
}

/**
 * Creates or upgrades keiyaku's tables in `db` (the store components, or those named — the
 * `outbox` component only when named), in one transaction; running it again changes nothing.
 */
export function migrateSqlite(
  db: Database.Database,
  options: MigrateOptions & { readonly migrations?: readonly Migration[] } = {},
): MigrationResult {
  const chosen = chooseMigrations(options.components, options.migrations);
  const applied: { component: string; from: number; to: number }[] = [];
  db.transaction(() => {
    db.exec(SQLITE_VERSIONS_TABLE);
    if (chosen.some((m) => m.component === SQLITE_OUTBOX_MIGRATION.component)) adoptLegacyOutboxVersion(db);
    const read = db.prepare<[string], { version: number }>('SELECT version FROM keiyaku_schema_versions WHERE component = ?');
    const write = db.prepare<[string, number, number]>(
      `INSERT INTO keiyaku_schema_versions (component, version, applied_at) VALUES (?, ?, ?)
       ON CONFLICT (component) DO UPDATE SET version = excluded.version, applied_at = excluded.applied_at`,
    );
    for (const migration of chosen) {
      const from = read.get(migration.component)?.version ?? 0;
      if (from >= migration.steps.length) continue;
      for (const step of migration.steps.slice(from)) db.exec(step);
      write.run(migration.component, migration.steps.length, Date.now());
      applied.push({ component: migration.component, from, to: migration.steps.length });
    }
  }).immediate();
  return { applied };
}

/** The schema versions recorded in `db` (empty when it was never migrated). */
export function sqliteSchemaVersions(db: Database.Database): Readonly<Record<string, number>> {
  const exists = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'keiyaku_schema_versions'").get();
  if (exists === undefined) return {};
  const rows = db.prepare<[], { component: string; version: number }>('SELECT component, version FROM keiyaku_schema_versions').all();
  return Object.fromEntries(rows.map((r) => [r.component, r.version]));
}

/**
 * The SQL `migrateSqlite` runs on an empty database, as one script, for teams that run their own
 * migrations (the store components, or those named: `['outbox']` for the outbox).
 */
export function sqliteMigrationSql(components?: readonly string[]): string {
  const chosen = chooseMigrations(components, undefined);
  const parts = [SQLITE_VERSIONS_TABLE];
  for (const m of chosen) {
    parts.push(`-- ${m.component}`, ...m.steps);
    parts.push(
      `INSERT INTO keiyaku_schema_versions (component, version, applied_at) VALUES ('${m.component}', ${m.steps.length}, CAST(unixepoch('subsec') * 1000 AS INTEGER))\n  ON CONFLICT (component) DO UPDATE SET version = excluded.version, applied_at = excluded.applied_at;`,
    );
  }
  return `${parts.join('\n')}\n`;
}
