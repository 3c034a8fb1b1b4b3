// The MySQL stores on a real server (MariaDB in CI) run the store conformance suites, including
// durability (a second pool on the same database, as a restarted process opens it).
import { createMysqlPool, MysqlCheckpointStore, MysqlDeadLetterStore, MysqlEventStore, type MysqlPool, migrateMysql } from '@keiyaku/mysql';
import { ConcurrencyError } from '@keiyaku/runtime';
import {
  type ConformanceEvent,
  runCheckpointStoreConformance,
  runDeadLetterStoreConformance,
  runEventStoreConformance,
} from '@keiyaku/runtime/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FreshMysqlDatabase, freshMysqlDatabase, mysqlSkipReason, mysqlUrl } from './mysql-env.js';

if (mysqlUrl === '') {
  describe('MySQL store conformance', () => {
    it.skip(`skipped: ${mysqlSkipReason}`, () => {});
  });
} else {
  let database: FreshMysqlDatabase;
  beforeAll(async () => {
    database = await freshMysqlDatabase('stores');
    await migrateMysql(database.pool);
  });
  afterAll(async () => {
    await database?.drop();
  });
  const reopen =
    <S>(make: (pool: MysqlPool) => S) =>
    async () => {
      const pool = createMysqlPool(database.url, { connectionLimit: 3 });
      return { store: make(pool), cleanup: () => pool.end() };
    };

  const events = (pool: MysqlPool) => new MysqlEventStore<ConformanceEvent>(pool, { pollIntervalMs: 200 });
  await runEventStoreConformance({ name: 'mysql', create: async () => ({ store: events(database.pool) }), reopen: reopen(events) });
  const checkpoints = (pool: MysqlPool) => new MysqlCheckpointStore(pool);
  await runCheckpointStoreConformance({
    name: 'mysql',
    create: async () => ({ store: checkpoints(database.pool) }),
    reopen: reopen(checkpoints),
  });
  describe('MysqlEventStore inside a transaction of yours', () => {
    it('sees appends committed after your transaction began, and rolls back with it', async () => {
      const store = events(database.pool);
      const stream = `joined-${Date.now()}`;
      const connection = await database.pool.getConnection();
      try {
        await connection.query('START TRANSACTION');
        // A plain read fixes this transaction's snapshot before the store's own append commits.
        await connection.query('SELECT COUNT(*) AS n FROM keiyaku_events');
        await store.append(stream, [{ type: 'Happened', n: 1 }]);
        await expect(store.append(stream, [{ type: 'Happened', n: 2 }], { connection, expectedVersion: 'no-stream' })).rejects.toThrow(
          ConcurrencyError,
        );
        await connection.query('ROLLBACK');
        await connection.query('START TRANSACTION');
        await connection.query('SELECT COUNT(*) AS n FROM keiyaku_events');
        await store.append(stream, [{ type: 'Happened', n: 2 }]);
        const joined = await store.append(stream, [{ type: 'Happened', n: 3 }], { connection, expectedVersion: 2 });
        expect(joined.map((e) => e.version)).toEqual([3]);
        await connection.query('ROLLBACK');
        expect((await store.readStream(stream)).map((e) => e.event.n)).toEqual([1, 2]);
        expect(await store.lastPosition()).toBe(joined[0]!.position - 1); // the head moved back with the rollback
        await connection.query('START TRANSACTION');
        const kept = await store.append(stream, [{ type: 'Happened', n: 3 }], { connection, expectedVersion: 2 });
        await connection.query('COMMIT');
        expect((await store.readAll(kept[0]!.position - 1)).map((e) => e.event.n)).toEqual([3]);
      } finally {
        connection.release();
      }
    });
  });

  const deadLetters = (pool: MysqlPool) => new MysqlDeadLetterStore(pool);
  await runDeadLetterStoreConformance({
    name: 'mysql',
    create: async () => ({ store: deadLetters(database.pool) }),
    reopen: reopen(deadLetters),
  });
}
