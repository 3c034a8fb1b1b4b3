// The SQLite stores on real database files run the store conformance suites, including
// durability (a second connection on the same file, as a restarted process opens it).
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import {
  type ConformanceEvent,
  runCheckpointStoreConformance,
  runDeadLetterStoreConformance,
  runEventStoreConformance,
} from '@keiyaku/runtime/testing';
import { migrateSqlite, openSqlite, SqliteCheckpointStore, SqliteDeadLetterStore, SqliteEventStore } from '@keiyaku/sqlite';
import Database from 'better-sqlite3';
import { afterAll } from 'vitest';
import { scratch } from '../helpers.js';

const dir = scratch('sqlite-stores');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
/** A fresh migrated database file per case; returns it with a closer. */
function database(): { file: string; db: Database.Database } {
  const file = join(dir, `store-${++n}.db`);
  const db = openSqlite(file);
  migrateSqlite(db);
  return { file, db };
}
const files = new WeakMap<object, string>();
const opened = <S extends object>(store: S, db: Database.Database, file: string) => {
  files.set(store, file);
  return {
    store,
    cleanup: async () => {
      db.close();
    },
  };
};
const reopenWith =
  <S extends object>(make: (db: Database.Database) => S) =>
  async (store: object) => {
    const file = files.get(store)!;
    const db = new Database(file);
    return opened(make(db), db, file);
  };

const events = (db: Database.Database) => new SqliteEventStore<ConformanceEvent>(db, { pollIntervalMs: 20 });
await runEventStoreConformance({
  name: 'sqlite',
  create: async () => {
    const { file, db } = database();
    return opened(events(db), db, file);
  },
  reopen: reopenWith(events),
});

const checkpoints = (db: Database.Database) => new SqliteCheckpointStore(db);
await runCheckpointStoreConformance({
  name: 'sqlite',
  create: async () => {
    const { file, db } = database();
    return opened(checkpoints(db), db, file);
  },
  reopen: reopenWith(checkpoints),
});

const deadLetters = (db: Database.Database) => new SqliteDeadLetterStore(db);
await runDeadLetterStoreConformance({
  name: 'sqlite',
  create: async () => {
    const { file, db } = database();
    return opened(deadLetters(db), db, file);
  },
  reopen: reopenWith(deadLetters),
});
