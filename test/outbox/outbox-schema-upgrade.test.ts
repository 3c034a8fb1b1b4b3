// Databases whose outbox an earlier release migrated (version in `keiyaku_outbox_schema`) open
// with this release: the version is carried into `keiyaku_schema_versions` once, even when
// several processes migrate at once, and the rows already in the outbox stay and are dispatched.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { POSTGRES_OUTBOX_V1, PostgresOutbox, postgresMigrationSql, postgresSchemaVersions } from '@keiyaku/postgres';
import { SQLITE_OUTBOX_V1, SqliteOutbox, sqliteMigrationSql, sqliteSchemaVersions } from '@keiyaku/sqlite';
import Database from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type FreshDatabase, freshDatabase, postgresSkipNote, postgresUrl } from '../postgres/postgres-env.js';

// The outbox DDL of the release before `keiyaku_schema_versions` held the outbox's version,
// verbatim; kept here so the upgrade is tested against exactly what is deployed.
const LEGACY_SQLITE_OUTBOX = `
CREATE TABLE IF NOT EXISTS keiyaku_outbox_schema (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  version INTEGER NOT NULL
);
INSERT OR IGNORE INTO keiyaku_outbox_schema (id, version) VALUES (1, 1);
CREATE TABLE IF NOT EXISTS keiyaku_outbox (
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
);
`;

const LEGACY_POSTGRES_OUTBOX = `
CREATE TABLE IF NOT EXISTS keiyaku_outbox_schema (
  id integer PRIMARY KEY CHECK (id = 1),
  version integer NOT NULL
);
INSERT INTO keiyaku_outbox_schema (id, version) VALUES (1, 1) ON CONFLICT (id) DO NOTHING;
CREATE TABLE IF NOT EXISTS keiyaku_outbox (
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
  FOR EACH STATEMENT EXECUTE FUNCTION keiyaku_outbox_notify();
`;

const ROWS = 5;

function legacyRow(i: number): unknown[] {
  return [`m-${i}`, 'ping', 'pings', `k-${i % 2}`, 'Ping', Buffer.from(`{"seq":${i}}`), JSON.stringify({ ce_id: `m-${i}` }), 1_000 + i];
}

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('SQLite outbox created by an earlier release', () => {
  function legacyDatabase(): Database.Database {
    const dir = mkdtempSync(join(tmpdir(), 'keiyaku-outbox-upgrade-'));
    dirs.push(dir);
    const db = new Database(join(dir, 'service.db'));
    db.exec(LEGACY_SQLITE_OUTBOX);
    const insert = db.prepare(
      'INSERT INTO keiyaku_outbox (message_id, channel, address, partition_key, type, payload, headers, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    );
    for (let i = 0; i < ROWS; i++) insert.run(...legacyRow(i));
    return db;
  }

  it('reads the legacy version before migrate(), then records it once in keiyaku_schema_versions and keeps the rows', async () => {
    const db = legacyDatabase();
    const outbox = new SqliteOutbox(db);
    expect(outbox.schemaVersion()).toBe(1);
    expect((await outbox.counts()).pending).toBe(ROWS);
    outbox.migrate();
    outbox.migrate();
    new SqliteOutbox(db).migrate();
    expect(sqliteSchemaVersions(db)).toEqual({ outbox: 1 });
    expect(db.prepare("SELECT count(*) AS n FROM keiyaku_schema_versions WHERE component = 'outbox'").get()).toEqual({ n: 1 });
    expect(outbox.schemaVersion()).toBe(1);
    const rows = await outbox.list({ state: 'pending' });
    expect(rows.map((r) => r.messageId)).toEqual(['m-0', 'm-1', 'm-2', 'm-3', 'm-4']);
    expect(new TextDecoder().decode(rows[2]!.payload)).toBe('{"seq":2}');
    expect(rows[2]!.headers).toEqual({ ce_id: 'm-2' });
    // Left in place for processes of the earlier release during a rolling upgrade.
    expect(db.prepare('SELECT version FROM keiyaku_outbox_schema').all()).toEqual([{ version: 1 }]);
    db.close();
  });

  it('a later migration of the stores leaves the carried version alone; an already recorded version wins over the legacy one', () => {
    const db = legacyDatabase();
    db.exec(sqliteMigrationSql());
    new SqliteOutbox(db).migrate();
    expect(sqliteSchemaVersions(db)).toEqual({ 'event-store': 1, checkpoints: 1, 'dead-letters': 2, outbox: 1 });
    db.prepare('UPDATE keiyaku_outbox_schema SET version = 7').run();
    expect(new SqliteOutbox(db).schemaVersion()).toBe(1);
    db.close();
  });

  it('the migration SQL printer prints the outbox steps when asked for the outbox, and only then', () => {
    expect(sqliteMigrationSql(['outbox'])).toContain(SQLITE_OUTBOX_V1);
    expect(sqliteMigrationSql(['outbox'])).toContain("VALUES ('outbox', 1,");
    expect(sqliteMigrationSql()).not.toContain('keiyaku_outbox');
  });
});

const run = postgresUrl !== '';

(run ? describe : describe.skip)(`PostgreSQL outbox created by an earlier release${postgresSkipNote}`, () => {
  const databases: FreshDatabase[] = [];
  afterAll(async () => {
    for (const db of databases) await db.drop();
  });

  async function legacyDatabase(): Promise<FreshDatabase> {
    const db = await freshDatabase('outbox_upgrade');
    databases.push(db);
    await db.pool.query(LEGACY_POSTGRES_OUTBOX);
    for (let i = 0; i < ROWS; i++)
      await db.pool.query(
        `INSERT INTO keiyaku_outbox (message_id, channel, address, partition_key, lane, type, payload, headers, created_at)
         VALUES ($1, $2, $3, $4, ${i % 64}, $5, $6, $7, $8)`,
        legacyRow(i),
      );
    return db;
  }

  it('several processes migrating at once record the legacy version once and keep the rows', async () => {
    const db = await legacyDatabase();
    const outboxes = [0, 1, 2].map(() => new PostgresOutbox(db.url));
    try {
      expect(await outboxes[0]!.schemaVersion()).toBe(1);
      await Promise.all(outboxes.map((o) => o.migrate()));
      await outboxes[0]!.migrate();
      expect(await postgresSchemaVersions(db.pool)).toEqual({ outbox: 1 });
      const { rows: versions } = await db.pool.query("SELECT count(*)::int AS n FROM keiyaku_schema_versions WHERE component = 'outbox'");
      expect(versions).toEqual([{ n: 1 }]);
      const rows = await outboxes[1]!.list({ state: 'pending' });
      expect(rows.map((r) => r.messageId)).toEqual(['m-0', 'm-1', 'm-2', 'm-3', 'm-4']);
      expect(new TextDecoder().decode(rows[3]!.payload)).toBe('{"seq":3}');
      expect(rows[3]!.headers).toEqual({ ce_id: 'm-3' });
      expect((await outboxes[2]!.counts()).pending).toBe(ROWS);
      const { rows: legacy } = await db.pool.query('SELECT version FROM keiyaku_outbox_schema');
      expect(legacy).toEqual([{ version: 1 }]);
    } finally {
      for (const o of outboxes) await o.close();
    }
  });

  it('the migration SQL printer prints the outbox steps when asked for the outbox, and only then', () => {
    expect(postgresMigrationSql(['outbox'])).toContain(POSTGRES_OUTBOX_V1);
    expect(postgresMigrationSql(['outbox'])).toContain("VALUES ('outbox', 1)");
    expect(postgresMigrationSql()).not.toContain('keiyaku_outbox');
  });
});
