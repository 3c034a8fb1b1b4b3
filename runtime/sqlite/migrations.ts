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

/** Every component keiyaku creates in SQLite, in the order they are applied. */
export const SQLITE_MIGRATIONS: readonly Migration[] = [
  { component: 'event-store', steps: [SQLITE_EVENTS_V1] },
  { component: 'checkpoints', steps: [SQLITE_CHECKPOINTS_V1] },
  { component: 'dead-letters', steps: [SQLITE_DEAD_LETTERS_V1, SQLITE_DEAD_LETTERS_V2] },
];

/**
 * Creates or upgrades keiyaku's tables in `db` (all components, or those named), in one
 * transaction; running it again changes nothing.
 */
export function migrateSqlite(
  db: Database.Database,
  options: MigrateOptions & { readonly migrations?: readonly Migration[] } = {},
): MigrationResult {
  const chosen = selectMigrations(options.components, options.migrations ?? SQLITE_MIGRATIONS);
  const applied: { component: string; from: number; to: number }[] = [];
  db.transaction(() => {
    db.exec(SQLITE_VERSIONS_TABLE);
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

/** The SQL `migrateSqlite` runs on an empty database, as one script, for teams that run their own migrations. */
export function sqliteMigrationSql(components?: readonly string[]): string {
  const chosen = selectMigrations(components, SQLITE_MIGRATIONS);
  const parts = [SQLITE_VERSIONS_TABLE];
  for (const m of chosen) {
    parts.push(`-- ${m.component}`, ...m.steps);
    parts.push(
      `INSERT INTO keiyaku_schema_versions (component, version, applied_at) VALUES ('${m.component}', ${m.steps.length}, CAST(unixepoch('subsec') * 1000 AS INTEGER))\n  ON CONFLICT (component) DO UPDATE SET version = excluded.version, applied_at = excluded.applied_at;`,
    );
  }
  return `${parts.join('\n')}\n`;
}
