// The PostgreSQL stores on a real server run the store conformance suites, including
// durability (a second pool on the same database, as a restarted process opens it).
import { migratePostgres, PostgresCheckpointStore, PostgresDeadLetterStore, PostgresEventStore } from '@keiyaku/postgres';
import {
  type ConformanceEvent,
  runCheckpointStoreConformance,
  runDeadLetterStoreConformance,
  runEventStoreConformance,
} from '@keiyaku/runtime/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { type FreshDatabase, freshDatabase, postgresSkipReason, postgresUrl } from '../postgres/postgres-env.js';

if (postgresUrl === '') {
  describe('PostgreSQL store conformance', () => {
    it.skip(`skipped: ${postgresSkipReason}`, () => {});
  });
} else {
  let database: FreshDatabase;
  beforeAll(async () => {
    database = await freshDatabase('stores');
    await migratePostgres(database.pool);
  });
  afterAll(async () => {
    await database?.drop();
  });
  const reopen =
    <S>(make: (pool: pg.Pool) => S) =>
    async () => {
      const pool = new pg.Pool({ connectionString: database.url, max: 3 });
      return { store: make(pool), cleanup: () => pool.end() };
    };

  const events = (pool: pg.Pool) => new PostgresEventStore<ConformanceEvent>(pool, { pollIntervalMs: 200 });
  await runEventStoreConformance({ name: 'postgres', create: async () => ({ store: events(database.pool) }), reopen: reopen(events) });
  const checkpoints = (pool: pg.Pool) => new PostgresCheckpointStore(pool);
  await runCheckpointStoreConformance({
    name: 'postgres',
    create: async () => ({ store: checkpoints(database.pool) }),
    reopen: reopen(checkpoints),
  });
  const deadLetters = (pool: pg.Pool) => new PostgresDeadLetterStore(pool);
  await runDeadLetterStoreConformance({
    name: 'postgres',
    create: async () => ({ store: deadLetters(database.pool) }),
    reopen: reopen(deadLetters),
  });
}
