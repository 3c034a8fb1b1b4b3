/**
 * keiyaku's PostgreSQL tables, created only by an explicit, idempotent {@link migratePostgres}.
 * Each component has numbered steps; `keiyaku_schema_versions` records how many ran. Concurrent
 * callers (several processes starting at once) are serialised by a transaction-scoped advisory
 * lock. Teams that run their own migrations take the same SQL from {@link postgresMigrationSql}.
 * Tables are created in the connection's current schema (its `search_path`).
 */
import { type MigrateOptions, type Migration, type MigrationResult, selectMigrations } from '@keiyaku/runtime/adapter';
import { inTransaction, type PostgresQueryable, storeError } from './client.js';

export type { MigrateOptions, Migration, MigrationResult } from '@keiyaku/runtime/adapter';

/** Key of the advisory lock `migratePostgres` holds while it runs. */
export const MIGRATION_LOCK_KEY = 0x6b65_6979; // "keiy"

export const POSTGRES_VERSIONS_TABLE = `CREATE TABLE IF NOT EXISTS keiyaku_schema_versions (
  component TEXT PRIMARY KEY,
  version INTEGER NOT NULL,
  applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
);`;

export const POSTGRES_EVENTS_V1 = `CREATE TABLE IF NOT EXISTS keiyaku_events (
  position BIGINT PRIMARY KEY,
  stream_id TEXT NOT NULL,
  version INTEGER NOT NULL,
  event_id TEXT NOT NULL UNIQUE,
  event_type TEXT NOT NULL,
  data TEXT NOT NULL,
  metadata JSONB NOT NULL,
  correlation_id TEXT,
  causation_id TEXT,
  recorded_at TIMESTAMPTZ NOT NULL,
  UNIQUE (stream_id, version)
);
CREATE TABLE IF NOT EXISTS keiyaku_event_head (
  id BOOLEAN PRIMARY KEY DEFAULT true CHECK (id),
  position BIGINT NOT NULL
);
INSERT INTO keiyaku_event_head (id, position) VALUES (true, 0) ON CONFLICT (id) DO NOTHING;`;

export const POSTGRES_CHECKPOINTS_V1 = `CREATE TABLE IF NOT EXISTS keiyaku_checkpoints (
  name TEXT PRIMARY KEY,
  position BIGINT NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL
);`;

export const POSTGRES_DEAD_LETTERS_V1 = `CREATE TABLE IF NOT EXISTS keiyaku_dead_letters (
  seq BIGSERIAL PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  channel TEXT NOT NULL,
  address TEXT NOT NULL,
  group_id TEXT NOT NULL,
  type TEXT NOT NULL,
  payload BYTEA NOT NULL,
  headers JSONB NOT NULL,
  record_key TEXT,
  partition INTEGER,
  record_offset TEXT,
  error_name TEXT NOT NULL,
  error_message TEXT NOT NULL,
  error_stack TEXT,
  attempts INTEGER NOT NULL,
  first_failure_at TIMESTAMPTZ NOT NULL,
  last_failure_at TIMESTAMPTZ NOT NULL,
  parked_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX IF NOT EXISTS keiyaku_dead_letters_channel ON keiyaku_dead_letters (channel, group_id);`;

/**
 * Dead letters, version 2: the broker topic beside the address; `escaped` marks a row whose texts
 * (and header names and values) are JSON-string escaped because one held a NUL or a lone
 * surrogate, which `text` and `jsonb` refuse (see docs/stores.md); `claimed_at` holds a redrive's
 * claim (null when unclaimed).
 */
export const POSTGRES_DEAD_LETTERS_V2 = `ALTER TABLE keiyaku_dead_letters ADD COLUMN IF NOT EXISTS topic TEXT;
ALTER TABLE keiyaku_dead_letters ADD COLUMN IF NOT EXISTS escaped BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE keiyaku_dead_letters ADD COLUMN IF NOT EXISTS claimed_at TIMESTAMPTZ;`;

/** Every component keiyaku creates in PostgreSQL, in the order they are applied. */
export const POSTGRES_MIGRATIONS: readonly Migration[] = [
  { component: 'event-store', steps: [POSTGRES_EVENTS_V1] },
  { component: 'checkpoints', steps: [POSTGRES_CHECKPOINTS_V1] },
  { component: 'dead-letters', steps: [POSTGRES_DEAD_LETTERS_V1, POSTGRES_DEAD_LETTERS_V2] },
];

/**
 * Creates or upgrades keiyaku's tables (all components, or those named) in one transaction;
 * running it again changes nothing. Safe to call from several processes at once.
 */
export async function migratePostgres(
  db: PostgresQueryable,
  options: MigrateOptions & { readonly migrations?: readonly Migration[] } = {},
): Promise<MigrationResult> {
  const chosen = selectMigrations(options.components, options.migrations ?? POSTGRES_MIGRATIONS);
  try {
    return await inTransaction(db, async (client) => {
      await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
      await client.query(POSTGRES_VERSIONS_TABLE);
      const applied: { component: string; from: number; to: number }[] = [];
      for (const migration of chosen) {
        const { rows } = await client.query<{ version: number }>('SELECT version FROM keiyaku_schema_versions WHERE component = $1', [
          migration.component,
        ]);
        const from = rows[0]?.version ?? 0;
        if (from >= migration.steps.length) continue;
        for (const step of migration.steps.slice(from)) await client.query(step);
        await client.query(
          `INSERT INTO keiyaku_schema_versions (component, version, applied_at) VALUES ($1, $2, now())
           ON CONFLICT (component) DO UPDATE SET version = excluded.version, applied_at = excluded.applied_at`,
          [migration.component, migration.steps.length],
        );
        applied.push({ component: migration.component, from, to: migration.steps.length });
      }
      return { applied };
    });
  } catch (error) {
    throw storeError(error, 'migrating keiyaku tables');
  }
}

/** The schema versions recorded in the database (empty when it was never migrated). */
export async function postgresSchemaVersions(db: PostgresQueryable): Promise<Readonly<Record<string, number>>> {
  const { rows: exists } = await db.query("SELECT to_regclass('keiyaku_schema_versions') IS NOT NULL AS present");
  if (!(exists[0] as { present: boolean }).present) return {};
  const { rows } = await db.query<{ component: string; version: number }>('SELECT component, version FROM keiyaku_schema_versions');
  return Object.fromEntries(rows.map((r) => [r.component, r.version]));
}

/** The SQL `migratePostgres` runs on an empty database, as one script, for teams that run their own migrations. */
export function postgresMigrationSql(components?: readonly string[]): string {
  const chosen = selectMigrations(components, POSTGRES_MIGRATIONS);
  const parts = ['BEGIN;', POSTGRES_VERSIONS_TABLE];
  for (const m of chosen) {
    parts.push(`-- ${m.component}`, ...m.steps);
    parts.push(
      `INSERT INTO keiyaku_schema_versions (component, version) VALUES ('${m.component}', ${m.steps.length})\n  ON CONFLICT (component) DO UPDATE SET version = excluded.version, applied_at = now();`,
    );
  }
  parts.push('COMMIT;');
  return `${parts.join('\n')}\n`;
}
