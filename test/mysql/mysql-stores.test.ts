// The MySQL stores on a real server (MariaDB in CI) run the store conformance suites, including
// durability (a second pool on the same database, as a restarted process opens it).
import { createMysqlPool, MysqlCheckpointStore, MysqlDeadLetterStore, MysqlEventStore, type MysqlPool, migrateMysql } from '@keiyaku/mysql';
import {
  type ConformanceEvent,
  runCheckpointStoreConformance,
  runDeadLetterStoreConformance,
  runEventStoreConformance,
} from '@keiyaku/runtime/testing';
import { afterAll, beforeAll, describe, it } from 'vitest';
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
  const deadLetters = (pool: MysqlPool) => new MysqlDeadLetterStore(pool);
  await runDeadLetterStoreConformance({
    name: 'mysql',
    create: async () => ({ store: deadLetters(database.pool) }),
    reopen: reopen(deadLetters),
  });
}
