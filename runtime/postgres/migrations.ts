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

/**
 * The outbox tables (schema version 1): the rows, 64 lanes dispatchers claim, the idle-listener
 * marks, and the statement trigger that NOTIFYs idle dispatchers at commit. Until this release
 * the outbox recorded its version in a table of its own, `keiyaku_outbox_schema`; see
 * {@link POSTGRES_LEGACY_OUTBOX_VERSION_TABLE}.
 */
export const POSTGRES_OUTBOX_V1 = `CREATE TABLE IF NOT EXISTS keiyaku_outbox (
  seq bigserial PRIMARY KEY,
  message_id text NOT NULL,
  channel text NOT NULL,
  address text NOT NULL,
  partition_key text,
  lane smallint NOT NULL,
  type text NOT NULL,
  payload bytea NOT NULL,
  headers jsonb NOT NULL,
  created_at bigint NOT NULL,
  state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'published', 'dead')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at bigint NOT NULL DEFAULT 0,
  last_error text,
  finished_at bigint
);
CREATE INDEX IF NOT EXISTS keiyaku_outbox_pending ON keiyaku_outbox (lane, seq) WHERE state = 'pending';
CREATE INDEX IF NOT EXISTS keiyaku_outbox_retry ON keiyaku_outbox (next_attempt_at) WHERE state = 'pending' AND next_attempt_at > 0;
CREATE INDEX IF NOT EXISTS keiyaku_outbox_dead ON keiyaku_outbox (seq) WHERE state = 'dead';
CREATE INDEX IF NOT EXISTS keiyaku_outbox_published ON keiyaku_outbox (finished_at) WHERE state = 'published';
CREATE TABLE IF NOT EXISTS keiyaku_outbox_lanes (
  lane smallint PRIMARY KEY,
  owner text,
  lease_until timestamptz
);
INSERT INTO keiyaku_outbox_lanes (lane) SELECT generate_series(0, 63) ON CONFLICT (lane) DO NOTHING;
CREATE TABLE IF NOT EXISTS keiyaku_outbox_listeners (
  owner text PRIMARY KEY,
  idle_until timestamptz NOT NULL
);
CREATE OR REPLACE FUNCTION keiyaku_outbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM keiyaku_outbox_listeners WHERE idle_until > now()) THEN
    PERFORM pg_notify('keiyaku_outbox', '');
  END IF;
  RETURN NULL;
END
$$;
CREATE OR REPLACE TRIGGER keiyaku_outbox_notify AFTER INSERT ON keiyaku_outbox
  FOR EACH STATEMENT EXECUTE FUNCTION keiyaku_outbox_notify();`;

/**
 * The inbox table (schema version 1): one row per message a group handled, written in the
 * handler's own transaction; `received_at` (ms since the epoch, as the outbox's times) is what
 * retention purges by.
 */
export const POSTGRES_INBOX_V1 = `CREATE TABLE IF NOT EXISTS keiyaku_inbox (
  group_id text NOT NULL,
  message_id text NOT NULL,
  received_at bigint NOT NULL,
  PRIMARY KEY (group_id, message_id)
);
CREATE INDEX IF NOT EXISTS keiyaku_inbox_received ON keiyaku_inbox (received_at);`;

/** The store components, in the order they are applied: what `migratePostgres(pool)` creates when no component is named. */
export const POSTGRES_MIGRATIONS: readonly Migration[] = [
  { component: 'event-store', steps: [POSTGRES_EVENTS_V1] },
  { component: 'checkpoints', steps: [POSTGRES_CHECKPOINTS_V1] },
  { component: 'dead-letters', steps: [POSTGRES_DEAD_LETTERS_V1, POSTGRES_DEAD_LETTERS_V2] },
];

/**
 * The outbox component. `PostgresOutbox.migrate()` applies it; `migratePostgres(pool, {
 * components: ['outbox'] })` and `postgresMigrationSql(['outbox'])` name it explicitly (a service
 * without an outbox gets no outbox tables from a plain `migratePostgres(pool)`).
 */
export const POSTGRES_OUTBOX_MIGRATION: Migration = { component: 'outbox', steps: [POSTGRES_OUTBOX_V1] };

/**
 * The inbox component. `PostgresInboxStore.migrate()` applies it; `migratePostgres(pool, {
 * components: ['inbox'] })` and `postgresMigrationSql(['inbox'])` name it explicitly (like the
 * outbox, it is not part of a plain `migratePostgres(pool)`).
 */
export const POSTGRES_INBOX_MIGRATION: Migration = { component: 'inbox', steps: [POSTGRES_INBOX_V1] };

/**
 * Where outbox releases before `keiyaku_schema_versions` recorded their version (one row, id 1).
 * Migrating the `outbox` component carries that version over (once, under the migration's
 * advisory lock) and leaves the table in place, so a process of the previous release still
 * running during a rolling upgrade keeps reading it; keiyaku no longer writes it. Drop it once no
 * older process runs: `DROP TABLE IF EXISTS keiyaku_outbox_schema;`.
 */
export const POSTGRES_LEGACY_OUTBOX_VERSION_TABLE = 'keiyaku_outbox_schema';

/** The advisory lock earlier releases' `PostgresOutbox.migrate()` took; held too, so a process of each release never migrates at once. */
const LEGACY_OUTBOX_LOCK = "SELECT pg_advisory_xact_lock(hashtext('keiyaku_outbox_migrate'))";

const KNOWN_MIGRATIONS: readonly Migration[] = [...POSTGRES_MIGRATIONS, POSTGRES_OUTBOX_MIGRATION, POSTGRES_INBOX_MIGRATION];

/** The migrations to run: the named components among all known ones, or the default set. */
function chooseMigrations(components: readonly string[] | undefined, migrations: readonly Migration[] | undefined): readonly Migration[] {
  if (components === undefined) return migrations ?? POSTGRES_MIGRATIONS;
  return selectMigrations(components, migrations ?? KNOWN_MIGRATIONS);
}

/**
 * The outbox schema version: the `outbox` row of `keiyaku_schema_versions`, else the legacy
 * table's (a database an earlier release migrated), else undefined (no outbox tables).
 */
export async function postgresOutboxSchemaVersion(db: PostgresQueryable): Promise<number | undefined> {
  const { rows } = await db.query<{ versions: boolean; legacy: boolean }>(
    `SELECT to_regclass('keiyaku_schema_versions') IS NOT NULL AS versions, to_regclass('${POSTGRES_LEGACY_OUTBOX_VERSION_TABLE}') IS NOT NULL AS legacy`,
  );
  const present = rows[0]!;
  if (present.versions) {
    const recorded = await db.query<{ version: number }>("SELECT version FROM keiyaku_schema_versions WHERE component = 'outbox'");
    if (recorded.rows[0] !== undefined) return recorded.rows[0].version;
  }
  if (!present.legacy) return undefined;
  const legacy = await db.query<{ version: number }>(`SELECT version FROM ${POSTGRES_LEGACY_OUTBOX_VERSION_TABLE} WHERE id = 1`);
  return legacy.rows[0]?.version;
}

/**
 * Applies `chosen` in one transaction under the advisory lock, raw `pg` errors and all (the
 * outbox's `migrate()` reports them as they are; {@link migratePostgres} maps them).
 */
export async function applyPostgresMigrations(db: PostgresQueryable, chosen: readonly Migration[]): Promise<MigrationResult> {
  const outbox = chosen.some((m) => m.component === POSTGRES_OUTBOX_MIGRATION.component);
  return inTransaction(db, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
    if (outbox) await client.query(LEGACY_OUTBOX_LOCK);
    await client.query(POSTGRES_VERSIONS_TABLE);
    if (outbox) {
      const { rows } = await client.query<{ legacy: boolean }>(
        `SELECT to_regclass('${POSTGRES_LEGACY_OUTBOX_VERSION_TABLE}') IS NOT NULL AS legacy`,
      );
      if (rows[0]!.legacy)
        await client.query(
          `INSERT INTO keiyaku_schema_versions (component, version, applied_at)
           SELECT 'outbox', version, now() FROM ${POSTGRES_LEGACY_OUTBOX_VERSION_TABLE} WHERE id = 1
           ON CONFLICT (component) DO NOTHING`,
        );
    }
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
}

/**
 * Creates or upgrades keiyaku's tables (the store components, or those named — the `outbox`
 * component only when named) in one transaction;
 * running it again changes nothing. Safe to call from several processes at once.
 */
export async function migratePostgres(
  db: PostgresQueryable,
  options: MigrateOptions & { readonly migrations?: readonly Migration[] } = {},
): Promise<MigrationResult> {
  const chosen = chooseMigrations(options.components, options.migrations);
  try {
    return await applyPostgresMigrations(db, chosen);
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

/**
 * The SQL `migratePostgres` runs on an empty database, as one script, for teams that run their
 * own migrations (the store components, or those named: `['outbox']` for the outbox).
 */
export function postgresMigrationSql(components?: readonly string[]): string {
  const chosen = chooseMigrations(components, undefined);
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
