// A dead-letter table of version 1 (before the topic, the escaped flag and claims) with rows parked
// by an older keiyaku: the store names the migration to run, migrate() brings it to version 2, the
// old rows read back as they were parked, and new rows (hostile ones too) park beside them.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { migratePostgres, POSTGRES_MIGRATIONS, PostgresDeadLetterStore, postgresSchemaVersions } from '@keiyaku/postgres';
import { StoreNotMigratedError } from '@keiyaku/runtime';
import { hostileParkRequest } from '@keiyaku/runtime/testing';
import { type Migration, migrateSqlite, openSqlite, SQLITE_MIGRATIONS, SqliteDeadLetterStore, sqliteSchemaVersions } from '@keiyaku/sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scratch } from '../helpers.js';
import { type FreshDatabase, freshDatabase, postgresSkipNote, postgresUrl } from '../postgres/postgres-env.js';

/** The migrations as an older keiyaku shipped them: dead-letters at version 1. */
function versionOne(migrations: readonly Migration[]): Migration[] {
  const deadLetters = migrations.find((m) => m.component === 'dead-letters')!;
  expect(deadLetters.steps.length).toBe(2);
  return [{ component: 'dead-letters', steps: deadLetters.steps.slice(0, 1) }];
}

/** What an older store wrote for one message (no topic, no escaped flag, no claim). */
const OLD_ROW = {
  id: 'old-1',
  channel: 'bookIntegrationEvents',
  address: 'library.books',
  group_id: 'library.notices',
  type: 'BookBorrowed',
  headers: '{"ce_type":"BookBorrowed","ce_id":"e-1","__proto__":"kept"}',
  record_key: 'book-1',
  partition: 2,
  record_offset: '41',
  error_name: 'Error',
  error_message: 'handler failed: "quoted" \\ é',
  error_stack: 'Error: handler failed\n    at handle',
  attempts: 5,
};
const FIRST = Date.UTC(2026, 0, 2, 3, 4, 5);

function expectOldRow(parked: unknown): void {
  expect(parked).toEqual({
    id: 'old-1',
    channel: 'bookIntegrationEvents',
    address: 'library.books',
    groupId: 'library.notices',
    type: 'BookBorrowed',
    payload: new Uint8Array([0x7b, 0x00, 0xff, 0x7d]),
    headers: expect.objectContaining({ ce_type: 'BookBorrowed', ce_id: 'e-1' }),
    key: 'book-1',
    partition: 2,
    offset: '41',
    error: { name: 'Error', message: 'handler failed: "quoted" \\ é', stack: 'Error: handler failed\n    at handle' },
    attempts: 5,
    firstFailureAt: new Date(FIRST),
    lastFailureAt: new Date(FIRST + 1000),
    parkedAt: new Date(FIRST + 2000),
  });
  expect(Object.getOwnPropertyDescriptor((parked as { headers: object }).headers, '__proto__')?.value).toBe('kept');
  expect('topic' in (parked as object)).toBe(false);
}

describe('SQLite dead letters from version 1 to 2', () => {
  const dir = scratch('dead-letter-upgrade');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses an unmigrated version-1 table by name, then reads old rows after migrateSqlite', async () => {
    const db = openSqlite(join(dir, 'v1.db'));
    migrateSqlite(db, { migrations: versionOne(SQLITE_MIGRATIONS) });
    db.prepare(
      `INSERT INTO keiyaku_dead_letters (id, channel, address, group_id, type, payload, headers, record_key, partition, record_offset,
         error_name, error_message, error_stack, attempts, first_failure_at, last_failure_at, parked_at)
       VALUES (@id, @channel, @address, @group_id, @type, @payload, @headers, @record_key, @partition, @record_offset,
         @error_name, @error_message, @error_stack, @attempts, @first, @last, @parked)`,
    ).run({ ...OLD_ROW, payload: Buffer.from([0x7b, 0x00, 0xff, 0x7d]), first: FIRST, last: FIRST + 1000, parked: FIRST + 2000 });

    expect(() => new SqliteDeadLetterStore(db)).toThrow(StoreNotMigratedError);
    expect(() => new SqliteDeadLetterStore(db)).toThrow(/keiyaku_dead_letters at version 2 .* migrateSqlite\(db\)/);

    expect(migrateSqlite(db).applied).toContainEqual({ component: 'dead-letters', from: 1, to: 2 });
    expect(sqliteSchemaVersions(db)['dead-letters']).toBe(2);
    const store = new SqliteDeadLetterStore(db);
    expectOldRow(await store.get('old-1'));
    expect((await store.list({ channel: 'bookIntegrationEvents' })).map((p) => p.id)).toEqual(['old-1']);
    expect(await store.summaries({ channel: 'bookIntegrationEvents' })).toMatchObject([{ id: 'old-1', payloadBytes: 4 }]);
    expect((await store.claim('old-1', 60_000))?.id).toBe('old-1');
    expect(await store.claim('old-1', 60_000)).toBeUndefined();

    const hostile = await store.park(hostileParkRequest('bookIntegrationEvents', 7), new Date(FIRST + 3000));
    expect(await store.get(hostile.id)).toEqual(hostile);
    expect((await store.list({ channel: 'bookIntegrationEvents' })).map((p) => p.id)).toEqual(['old-1', hostile.id]);
    db.close();
  });

  it('upgrades the table the deprecated file-path constructor of an older keiyaku left at version 1', async () => {
    const file = join(dir, 'legacy-v1.db');
    const db = openSqlite(file);
    migrateSqlite(db, { migrations: versionOne(SQLITE_MIGRATIONS) });
    db.close();
    const store = new SqliteDeadLetterStore(file); // the deprecated form migrates its own table
    const parked = await store.park(hostileParkRequest('legacy', 1, { topic: 'legacy.topic' }), new Date(FIRST));
    expect(await store.get(parked.id)).toEqual(parked);
    await store.close();
  });
});

(postgresUrl === '' ? describe.skip : describe)(`PostgreSQL dead letters from version 1 to 2${postgresSkipNote}`, () => {
  let database: FreshDatabase;
  beforeAll(async () => {
    database = await freshDatabase('dl_upgrade');
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('names the migration for an unmigrated version-1 table, then reads old rows after migratePostgres', async () => {
    const { pool } = database;
    await migratePostgres(pool, { migrations: versionOne(POSTGRES_MIGRATIONS) });
    await pool.query(
      `INSERT INTO keiyaku_dead_letters (id, channel, address, group_id, type, payload, headers, record_key, partition, record_offset,
         error_name, error_message, error_stack, attempts, first_failure_at, last_failure_at, parked_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)`,
      [
        OLD_ROW.id,
        OLD_ROW.channel,
        OLD_ROW.address,
        OLD_ROW.group_id,
        OLD_ROW.type,
        Buffer.from([0x7b, 0x00, 0xff, 0x7d]),
        OLD_ROW.headers,
        OLD_ROW.record_key,
        OLD_ROW.partition,
        OLD_ROW.record_offset,
        OLD_ROW.error_name,
        OLD_ROW.error_message,
        OLD_ROW.error_stack,
        OLD_ROW.attempts,
        new Date(FIRST),
        new Date(FIRST + 1000),
        new Date(FIRST + 2000),
      ],
    );
    const store = new PostgresDeadLetterStore(pool);
    for (const attempt of [
      () => store.list(),
      () => store.park(hostileParkRequest('c', 1), new Date()),
      () => store.claim('old-1', 1000),
      () => store.summaries(),
    ]) {
      const error = await attempt().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(StoreNotMigratedError);
      expect((error as Error).message).toMatch(/keiyaku_dead_letters at version 2 .* migratePostgres\(pool\)/);
    }

    expect((await migratePostgres(pool)).applied).toContainEqual({ component: 'dead-letters', from: 1, to: 2 });
    expect((await postgresSchemaVersions(pool))['dead-letters']).toBe(2);
    expectOldRow(await store.get('old-1'));
    expect(await store.summaries({ channel: 'bookIntegrationEvents' })).toMatchObject([{ id: 'old-1', payloadBytes: 4 }]);
    expect((await store.claim('old-1', 60_000))?.id).toBe('old-1');
    expect(await store.claim('old-1', 60_000)).toBeUndefined();
    const hostile = await store.park(hostileParkRequest('bookIntegrationEvents', 7), new Date(FIRST + 3000));
    expect(await store.get(hostile.id)).toEqual(hostile);
    expect((await store.list({ channel: 'bookIntegrationEvents' })).map((p) => p.id)).toEqual(['old-1', hostile.id]);
  });
});
