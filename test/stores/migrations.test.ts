// Tables come only from an explicit, idempotent migrate(); the SQL for teams that run their own
// migrations builds the same schema; a store on an unmigrated database says what to run.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import {
  migratePostgres,
  PostgresCheckpointStore,
  PostgresDeadLetterStore,
  PostgresEventStore,
  postgresMigrationSql,
  postgresSchemaVersions,
} from '@keiyaku/postgres';
import { StoreNotMigratedError } from '@keiyaku/runtime';
import {
  migrateSqlite,
  SqliteCheckpointStore,
  SqliteDeadLetterStore,
  SqliteEventStore,
  sqliteMigrationSql,
  sqliteSchemaVersions,
} from '@keiyaku/sqlite';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scratch } from '../helpers.js';
import { type FreshDatabase, freshDatabase, postgresSkipNote, postgresUrl } from '../postgres/postgres-env.js';

const dir = scratch('migrations');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sqliteSchema = (db: Database.Database) =>
  db.prepare<[], { name: string; sql: string }>("SELECT name, sql FROM sqlite_master WHERE name LIKE 'keiyaku_%' ORDER BY name").all();

describe('SQLite migrations', () => {
  it('creates nothing until migrateSqlite runs; stores on an unmigrated database name the fix', () => {
    const db = new Database(join(dir, 'empty.db'));
    for (const make of [() => new SqliteEventStore(db), () => new SqliteCheckpointStore(db), () => new SqliteDeadLetterStore(db)]) {
      let thrown: unknown;
      try {
        make();
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(StoreNotMigratedError);
      expect((thrown as Error).message).toMatch(/table keiyaku_\w+ does not exist; create keiyaku's tables first with migrateSqlite\(db\)/);
    }
    expect(sqliteSchema(db)).toEqual([]);
    db.close();
  });

  it('is idempotent and records a schema version per component', () => {
    const db = new Database(join(dir, 'twice.db'));
    const first = migrateSqlite(db);
    expect(first.applied).toEqual([
      { component: 'event-store', from: 0, to: 1 },
      { component: 'checkpoints', from: 0, to: 1 },
      { component: 'dead-letters', from: 0, to: 2 },
    ]);
    const schema = sqliteSchema(db);
    expect(schema.map((t) => t.name)).toEqual(
      expect.arrayContaining(['keiyaku_checkpoints', 'keiyaku_dead_letters', 'keiyaku_events', 'keiyaku_schema_versions']),
    );
    expect(migrateSqlite(db).applied).toEqual([]);
    expect(sqliteSchema(db)).toEqual(schema);
    expect(sqliteSchemaVersions(db)).toEqual({ 'event-store': 1, checkpoints: 1, 'dead-letters': 2 });
    expect(() => migrateSqlite(db, { components: ['outbox-typo'] })).toThrow(/unknown keiyaku component outbox-typo \(known: event-store/);
    db.close();
  });

  it('migrates only the components asked for', () => {
    const db = new Database(join(dir, 'some.db'));
    migrateSqlite(db, { components: ['checkpoints'] });
    expect(sqliteSchemaVersions(db)).toEqual({ checkpoints: 1 });
    expect(() => new SqliteEventStore(db)).toThrow(StoreNotMigratedError);
    expect(() => new SqliteCheckpointStore(db)).not.toThrow();
    db.close();
  });

  it('the published SQL builds the same schema and versions as migrateSqlite', () => {
    const viaApi = new Database(join(dir, 'api.db'));
    migrateSqlite(viaApi);
    const viaSql = new Database(join(dir, 'sql.db'));
    viaSql.exec(sqliteMigrationSql());
    expect(sqliteSchema(viaSql)).toEqual(sqliteSchema(viaApi));
    expect(sqliteSchemaVersions(viaSql)).toEqual(sqliteSchemaVersions(viaApi));
    // A database set up by hand is one migrate() leaves alone.
    expect(migrateSqlite(viaSql).applied).toEqual([]);
    viaApi.close();
    viaSql.close();
  });

  it('adopts a dead-letter table created by the deprecated file-path constructor', async () => {
    const file = join(dir, 'legacy.db');
    const legacy = new SqliteDeadLetterStore(file);
    await legacy.close();
    const db = new Database(file);
    expect(sqliteSchemaVersions(db)).toEqual({ 'dead-letters': 2 });
    expect(migrateSqlite(db).applied.map((a) => a.component)).toEqual(['event-store', 'checkpoints']);
    db.close();
  });
});

(postgresUrl === '' ? describe.skip : describe)(`PostgreSQL migrations${postgresSkipNote}`, () => {
  let a: FreshDatabase;
  let b: FreshDatabase;
  beforeAll(async () => {
    a = await freshDatabase('migrate_a');
    b = await freshDatabase('migrate_b');
  });
  afterAll(async () => {
    await a?.drop();
    await b?.drop();
  });

  const columns = async (pool: pg.Pool) =>
    (
      await pool.query(
        `SELECT table_name, column_name, data_type, is_nullable, column_default FROM information_schema.columns
         WHERE table_name LIKE 'keiyaku_%' ORDER BY table_name, column_name`,
      )
    ).rows;
  const indexes = async (pool: pg.Pool) =>
    (await pool.query("SELECT indexname, indexdef FROM pg_indexes WHERE tablename LIKE 'keiyaku_%' ORDER BY indexname")).rows;

  it('stores on an unmigrated database fail with StoreNotMigratedError naming migratePostgres', async () => {
    const attempts: (() => Promise<unknown>)[] = [
      () => new PostgresEventStore(a.pool).append('s', [{ n: 1 }]),
      () => new PostgresCheckpointStore(a.pool).load('x'),
      () => new PostgresDeadLetterStore(a.pool).list(),
    ];
    for (const attempt of attempts) {
      const error = await attempt().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(StoreNotMigratedError);
      expect((error as Error).message).toMatch(
        /table keiyaku_\w+ does not exist; create keiyaku's tables first with migratePostgres\(pool\)/,
      );
    }
    expect(await columns(a.pool)).toEqual([]);
  });

  it('is idempotent and safe when several processes migrate at once', async () => {
    const pools = [0, 1, 2].map(() => new pg.Pool({ connectionString: a.url, max: 1 }));
    try {
      const results = await Promise.all(pools.map((pool) => migratePostgres(pool)));
      expect(results.map((r) => r.applied.length).sort()).toEqual([0, 0, 3]);
    } finally {
      await Promise.all(pools.map((pool) => pool.end()));
    }
    const before = await columns(a.pool);
    expect(new Set(before.map((c) => c.table_name))).toEqual(
      new Set(['keiyaku_checkpoints', 'keiyaku_dead_letters', 'keiyaku_event_head', 'keiyaku_events', 'keiyaku_schema_versions']),
    );
    expect((await migratePostgres(a.pool)).applied).toEqual([]);
    expect(await columns(a.pool)).toEqual(before);
    expect(await postgresSchemaVersions(a.pool)).toEqual({ 'event-store': 1, checkpoints: 1, 'dead-letters': 2 });
  });

  it('the published SQL builds the same schema and versions as migratePostgres', async () => {
    await migratePostgres(a.pool);
    await b.pool.query(postgresMigrationSql());
    expect(await columns(b.pool)).toEqual(await columns(a.pool));
    expect(await indexes(b.pool)).toEqual(await indexes(a.pool));
    expect(await postgresSchemaVersions(b.pool)).toEqual(await postgresSchemaVersions(a.pool));
    expect((await migratePostgres(b.pool)).applied).toEqual([]);
  });
});
