import { createMysqlPool, isConnectionError, MYSQL_MIGRATIONS, migrateMysql, mysqlMigrationSql, mysqlSchemaVersions } from '@keiyaku/mysql';
import { StoreError, StoreNotMigratedError } from '@keiyaku/runtime/adapter';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FreshMysqlDatabase, freshMysqlDatabase, mysqlSkipNote, mysqlUrl } from './mysql-env.js';

(mysqlUrl === '' ? describe.skip : describe)(`migrateMysql${mysqlSkipNote}`, () => {
  let db: FreshMysqlDatabase;
  beforeAll(async () => {
    db = await freshMysqlDatabase('migrate');
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('a store used before its tables exist says which migration to run', async () => {
    const error = await db.pool.query('SELECT * FROM keiyaku_events').then(
      () => undefined,
      (e: unknown) => e,
    );
    const { storeError } = await import('../../runtime/mysql/client.js');
    const mapped = storeError(error, 'reading');
    expect(mapped).toBeInstanceOf(StoreNotMigratedError);
    expect(mapped.message).toContain('keiyaku_events');
    expect(mapped.message).toContain('migrateMysql');
  });

  it('creates the store tables once; concurrent and repeated runs change nothing', async () => {
    expect(await mysqlSchemaVersions(db.pool)).toEqual({});
    const results = await Promise.all([migrateMysql(db.pool), migrateMysql(db.pool), migrateMysql(db.pool)]);
    // Exactly one of the concurrent migrators applied each component (the named lock serialises them).
    const applied = results.flatMap((r) => r.applied.map((a) => `${a.component} ${a.from}->${a.to}`)).sort();
    expect(applied).toEqual(['checkpoints 0->1', 'dead-letters 0->1', 'event-store 0->1']);
    expect(await mysqlSchemaVersions(db.pool)).toEqual({ 'event-store': 1, checkpoints: 1, 'dead-letters': 1 });
    expect((await migrateMysql(db.pool)).applied).toEqual([]);
    const [head] = await db.pool.query('SELECT id, position FROM keiyaku_event_head');
    expect(head).toEqual([{ id: 1, position: 0 }]);
  });

  it('applies the outbox and inbox only when named, and an unknown component is a RangeError', async () => {
    const result = await migrateMysql(db.pool, { components: ['outbox', 'inbox'] });
    expect(result.applied.map((a) => a.component)).toEqual(['outbox', 'inbox']);
    const [lanes] = await db.pool.query('SELECT COUNT(*) AS n FROM keiyaku_outbox_lanes');
    expect(lanes).toEqual([{ n: 64 }]);
    await expect(migrateMysql(db.pool, { components: ['nope'] })).rejects.toThrow(RangeError);
  });

  it('mysqlMigrationSql() is the same tables, and running it twice is harmless', async () => {
    const other = await freshMysqlDatabase('migrate_sql');
    try {
      const { mysqlStatements } = await import('../../runtime/mysql/migrations.js');
      const script = mysqlMigrationSql(['event-store', 'checkpoints', 'dead-letters', 'outbox', 'inbox']);
      for (let run = 0; run < 2; run++) {
        for (const statement of mysqlStatements(script.replace(/^--.*$/gm, ''))) await other.pool.query(statement);
      }
      expect(await mysqlSchemaVersions(other.pool)).toEqual({ 'event-store': 1, checkpoints: 1, 'dead-letters': 1, outbox: 1, inbox: 1 });
      expect((await migrateMysql(other.pool)).applied).toEqual([]);
      expect(MYSQL_MIGRATIONS.map((m) => m.component)).toEqual(['event-store', 'checkpoints', 'dead-letters']);
    } finally {
      await other.drop();
    }
  });

  it('a server that does not answer is a retriable StoreError, without the password in it', async () => {
    const pool = createMysqlPool('mysql://keiyaku:s3cret-pw@127.0.0.1:9/none', { connectTimeout: 2_000 });
    try {
      const error = await migrateMysql(pool).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(StoreError);
      expect((error as StoreError).retriable).toBe(true);
      expect(isConnectionError((error as Error).cause)).toBe(true);
      expect(String((error as Error).message)).not.toContain('s3cret-pw');
    } finally {
      await pool.end();
    }
  });
});
