// The MySQL inbox against a real server (MariaDB in CI): the inbox conformance suite, plus the
// explicit migration and its errors, two consumers racing for one message, a single connection
// instead of a pool, and a store opened from a URL.

import { MysqlInboxStore, type MysqlInboxTransaction, mysqlSchemaVersions } from '@keiyaku/mysql';
import { INBOX_SCHEMA_VERSION, InboxError } from '@keiyaku/runtime';
import { runInboxConformance } from '@keiyaku/runtime/testing';
import mysql from 'mysql2/promise';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FreshMysqlDatabase, freshMysqlDatabase, mysqlSkipNote, mysqlUrl } from './mysql-env.js';

(mysqlUrl !== '' ? describe : describe.skip)(`MySQL inbox${mysqlSkipNote}`, () => {
  let db: FreshMysqlDatabase;
  beforeAll(async () => {
    db = await freshMysqlDatabase('inbox');
    await db.pool.query('CREATE TABLE effects (value VARCHAR(255) NOT NULL) ENGINE=InnoDB');
  });
  afterAll(async () => {
    await db?.drop();
  });

  const readEffects = async (): Promise<string[]> => {
    const [rows] = await db.pool.query('SELECT value FROM effects ORDER BY value');
    return (rows as { value: string }[]).map((r) => r.value);
  };
  const truncate = async (): Promise<void> => {
    await db.pool.query('TRUNCATE TABLE keiyaku_inbox');
    await db.pool.query('TRUNCATE TABLE effects');
  };

  void runInboxConformance<MysqlInboxTransaction>(
    {
      name: 'mysql',
      create: async ({ clock }) => {
        const store = new MysqlInboxStore(db.pool, { clock });
        await store.migrate();
        await truncate();
        return {
          store,
          write: (tx, value) => tx.query('INSERT INTO effects (value) VALUES (?)', [value]),
          read: readEffects,
        };
      },
      // A second store opened from the URL: a pool of its own, like another instance of the service.
      rival: async () => {
        const store = new MysqlInboxStore(db.url);
        return { store, close: () => store.close() };
      },
    },
    { describe, it, afterEach, expect },
  );

  describe('MysqlInboxStore', () => {
    it('creates its table only in migrate(): before it a typed error names the database and the fix', async () => {
      const fresh = await freshMysqlDatabase('inbox_unmigrated');
      try {
        const inbox = new MysqlInboxStore(fresh.pool);
        expect(inbox.description).toBe(`mysql:${new URL(fresh.url).host}/${fresh.name}`);
        expect(await inbox.schemaVersion()).toBeUndefined();
        const failure = await inbox.process('g', 'm', () => undefined).catch((error: unknown) => error);
        expect(failure).toBeInstanceOf(InboxError);
        expect((failure as InboxError).code).toBe('inbox_not_migrated');
        expect((failure as Error).message).toContain(fresh.name);
        expect((failure as Error).message).toContain('inbox.migrate()');
        await expect(inbox.count()).rejects.toMatchObject({ code: 'inbox_not_migrated' });
        await inbox.migrate();
        await inbox.migrate();
        expect(await mysqlSchemaVersions(fresh.pool)).toEqual({ inbox: INBOX_SCHEMA_VERSION });
        expect(await inbox.process('g', 'm', () => undefined)).toBe('processed');
        await fresh.pool.query("UPDATE keiyaku_schema_versions SET version = 2 WHERE component = 'inbox'");
        await expect(new MysqlInboxStore(fresh.pool).has('g', 'm')).rejects.toMatchObject({ code: 'inbox_schema_version' });
      } finally {
        await fresh.drop();
      }
    });

    it('records ids and groups with quotes, backslashes and non-ASCII as they are, case-sensitively (they come from headers)', async () => {
      const inbox = new MysqlInboxStore(db.pool);
      await inbox.migrate();
      await truncate();
      const hostile = ["it's", 'back\\slash \\', "'); DROP TABLE effects; --", 'x\u0000y', '契約-ü', '😀', 'Case', 'case'];
      for (const id of hostile)
        expect(await inbox.process(`group '${id}'`, id, (tx) => tx.query('INSERT INTO effects (value) VALUES (?)', [id]))).toBe(
          'processed',
        );
      for (const id of hostile) expect(await inbox.process(`group '${id}'`, id, () => undefined)).toBe('duplicate');
      const [rows] = await db.pool.query('SELECT group_id, message_id FROM keiyaku_inbox');
      const recorded = rows as { group_id: string; message_id: string }[];
      expect(recorded.map((r) => r.message_id).sort()).toEqual([...hostile].sort());
      expect(recorded.every((r) => r.group_id === `group '${r.message_id}'`)).toBe(true);
      expect((await readEffects()).sort()).toEqual([...hostile].sort());
    });

    it('takes turns on one connection, and gives every pooled connection back: processed, duplicate and failed alike', async () => {
      await truncate();
      const connection = await mysql.createConnection({ uri: db.url, charset: 'utf8mb4_bin' });
      try {
        const single = new MysqlInboxStore(connection);
        const outcomes = await Promise.all(
          Array.from({ length: 12 }, (_, i) =>
            single
              .process('single', `m-${i % 4}`, async (tx) => {
                await tx.query('INSERT INTO effects (value) VALUES (?)', [`s-${i}`]);
                if (i % 4 === 3) throw new Error('fails');
              })
              .catch(() => 'failed'),
          ),
        );
        expect(outcomes.filter((o) => o === 'processed')).toHaveLength(3);
        expect(outcomes.filter((o) => o === 'failed')).toHaveLength(3);
        expect(await single.count()).toBe(3);
      } finally {
        await connection.end();
      }
      const pooled = new MysqlInboxStore(db.pool);
      const runs = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          pooled
            .process('pool', `m-${i % 10}`, async (tx) => {
              await tx.query('INSERT INTO effects (value) VALUES (?)', [`m-${i}`]);
              if (i % 10 === 3) throw new Error('fails');
            })
            .catch(() => 'failed'),
        ),
      );
      expect(runs.filter((o) => o === 'processed')).toHaveLength(9);
      expect(runs.filter((o) => o === 'failed')).toHaveLength(3);
      const internal = (db.pool as unknown as { pool: { _allConnections: { length: number }; _freeConnections: { length: number } } }).pool;
      expect(internal._freeConnections.length).toBe(internal._allConnections.length);
    });
  });
});
