// The PostgreSQL inbox against a real server: the inbox conformance suite, plus what only
// PostgreSQL has (the explicit migration and its errors, two consumers racing for one message,
// the outbox writing with the inbox's client, a single client instead of a pool).

import {
  PostgresInboxStore,
  type PostgresInboxTransaction,
  PostgresOutbox,
  postgresMigrationSql,
  postgresSchemaVersions,
} from '@keiyaku/postgres';
import { INBOX_SCHEMA_VERSION, InboxError } from '@keiyaku/runtime';
import { OutboxPing, outboxConformanceChannel, runInboxConformance } from '@keiyaku/runtime/testing';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FreshDatabase, freshDatabase, postgresSkipNote, postgresUrl } from '../postgres/postgres-env.js';

const run = postgresUrl !== '';

(run ? describe : describe.skip)(`PostgreSQL inbox${postgresSkipNote}`, () => {
  let db: FreshDatabase;
  beforeAll(async () => {
    db = await freshDatabase('inbox');
    await db.pool.query('CREATE TABLE effects (value text NOT NULL)');
  });
  afterAll(async () => {
    await db?.drop();
  });

  const readEffects = async (): Promise<string[]> =>
    (await db.pool.query<{ value: string }>('SELECT value FROM effects ORDER BY value')).rows.map((r) => r.value);

  void runInboxConformance<PostgresInboxTransaction>(
    {
      name: 'postgres',
      create: async ({ clock }) => {
        const store = new PostgresInboxStore(db.pool, { clock });
        await store.migrate();
        await db.pool.query('TRUNCATE keiyaku_inbox, effects');
        return {
          store,
          write: (tx, value) => tx.query('INSERT INTO effects (value) VALUES ($1)', [value]),
          read: readEffects,
        };
      },
      // A second store opened from the URL: a pool of its own, like another instance of the service.
      rival: async () => {
        const store = new PostgresInboxStore(db.url);
        return { store, close: () => store.close() };
      },
    },
    { describe, it, afterEach, expect },
  );

  describe('PostgresInboxStore', () => {
    it('creates its table only in migrate(): before it a typed error names the database and the fix', async () => {
      const fresh = await freshDatabase('inbox_unmigrated');
      try {
        const inbox = new PostgresInboxStore(fresh.pool);
        expect(inbox.description).toBe(`postgres:${new URL(fresh.url).host}/${fresh.name}`);
        expect(await inbox.schemaVersion()).toBeUndefined();
        const failure = await Promise.resolve(inbox.process('g', 'm', () => undefined)).catch((error: unknown) => error);
        expect(failure).toBeInstanceOf(InboxError);
        expect((failure as InboxError).code).toBe('inbox_not_migrated');
        expect((failure as Error).message).toContain(fresh.name);
        expect((failure as Error).message).toContain('inbox.migrate()');
        await expect(inbox.count()).rejects.toMatchObject({ code: 'inbox_not_migrated' });
        const { rows } = await fresh.pool.query("SELECT to_regclass('keiyaku_inbox') IS NULL AS missing");
        expect(rows[0].missing).toBe(true);
        await inbox.migrate();
        await inbox.migrate();
        expect(await postgresSchemaVersions(fresh.pool)).toEqual({ inbox: INBOX_SCHEMA_VERSION });
        expect(await inbox.process('g', 'm', () => undefined)).toBe('processed');
        // Another version in the database: a new store refuses it.
        await fresh.pool.query("UPDATE keiyaku_schema_versions SET version = 2 WHERE component = 'inbox'");
        await expect(new PostgresInboxStore(fresh.pool).has('g', 'm')).rejects.toMatchObject({ code: 'inbox_schema_version' });
      } finally {
        await fresh.drop();
      }
    });

    it('runs exactly the SQL postgresMigrationSql([inbox]) gives', async () => {
      const scripted = await freshDatabase('inbox_scripted');
      try {
        await scripted.pool.query(postgresMigrationSql(['inbox']));
        const indexes = async (pool: pg.Pool) =>
          (
            await pool.query<{ d: string }>("SELECT indexdef AS d FROM pg_indexes WHERE tablename = 'keiyaku_inbox' ORDER BY indexname")
          ).rows.map((r) => r.d);
        expect(await indexes(scripted.pool)).toEqual(await indexes(db.pool));
        expect((await indexes(db.pool)).join('\n')).toMatch(/keiyaku_inbox_received ON public\.keiyaku_inbox USING btree \(received_at\)/);
        expect(await postgresSchemaVersions(scripted.pool)).toEqual({ inbox: 1 });
      } finally {
        await scripted.drop();
      }
    });

    it('records ids and groups with quotes, backslashes and non-ASCII as they are (they come from headers)', async () => {
      const inbox = new PostgresInboxStore(db.pool);
      await inbox.migrate();
      await db.pool.query('TRUNCATE keiyaku_inbox, effects');
      const hostile = ["it's", 'back\\slash \\', "'); DROP TABLE effects; --", "E'x'", '契約-ü'];
      for (const id of hostile)
        expect(await inbox.process(`group '${id}'`, id, (tx) => tx.query('INSERT INTO effects (value) VALUES ($1)', [id]))).toBe(
          'processed',
        );
      for (const id of hostile) expect(await inbox.process(`group '${id}'`, id, () => undefined)).toBe('duplicate');
      const { rows } = await db.pool.query<{ group_id: string; message_id: string }>(
        'SELECT group_id, message_id FROM keiyaku_inbox ORDER BY message_id',
      );
      expect(rows.map((r) => r.message_id)).toEqual([...hostile].sort());
      expect(rows.every((r) => r.group_id === `group '${r.message_id}'`)).toBe(true);
      expect((await readEffects()).sort()).toEqual([...hostile].sort());
    });

    it('gives every client back to the pool: processed, duplicate, and failed alike', async () => {
      await db.pool.query('TRUNCATE keiyaku_inbox, effects');
      const inbox = new PostgresInboxStore(db.pool);
      const runs = Array.from({ length: 30 }, (_, i) =>
        Promise.resolve(
          inbox.process('pool', `m-${i % 10}`, async (tx) => {
            await tx.query('INSERT INTO effects (value) VALUES ($1)', [`m-${i}`]);
            if (i % 10 === 3) throw new Error('fails');
          }),
        ).catch(() => 'failed'),
      );
      const outcomes = await Promise.all(runs);
      expect(outcomes.filter((o) => o === 'processed')).toHaveLength(9);
      expect(outcomes.filter((o) => o === 'failed')).toHaveLength(3);
      expect(await inbox.count()).toBe(9);
      expect(db.pool.waitingCount).toBe(0);
      expect(db.pool.idleCount).toBe(db.pool.totalCount);
    });

    it("commits the handler's outbox rows with the inbox row, and rolls them back with it", async () => {
      await db.pool.query('TRUNCATE keiyaku_inbox, effects');
      const inbox = new PostgresInboxStore(db.pool);
      const outbox = new PostgresOutbox(db.pool);
      await outbox.migrate();
      const writer = outbox.channel(outboxConformanceChannel('inbox-outbox'));
      try {
        await expect(
          inbox.process('g', 'm-1', async (tx) => {
            await writer.write(tx, OutboxPing.create({ seq: 1, key: 'k' }));
            throw new Error('after the outbox write');
          }),
        ).rejects.toThrow('after the outbox write');
        expect((await outbox.counts()).pending).toBe(0);
        expect(await inbox.process('g', 'm-1', (tx) => writer.write(tx, OutboxPing.create({ seq: 2, key: 'k' })))).toBe('processed');
        expect((await outbox.counts()).pending).toBe(1);
        expect(await inbox.has('g', 'm-1')).toBe(true);
      } finally {
        await outbox.close();
      }
    });

    it('on one client, transactions take turns; closing leaves the caller’s client open', async () => {
      await db.pool.query('TRUNCATE keiyaku_inbox, effects');
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      try {
        const inbox = new PostgresInboxStore(client, { retentionMs: 60_000 });
        expect(inbox.retentionMs).toBe(60_000);
        const outcomes = await Promise.all(
          ['a', 'b', 'a', 'c'].map((id) =>
            inbox.process('g', id, async (tx) => {
              await new Promise((resolve) => setTimeout(resolve, 5));
              await tx.query('INSERT INTO effects (value) VALUES ($1)', [id]);
            }),
          ),
        );
        expect(outcomes).toEqual(['processed', 'processed', 'duplicate', 'processed']);
        expect(await readEffects()).toEqual(['a', 'b', 'c']);
        await inbox.close();
        expect((await client.query('SELECT 1 AS one')).rows[0].one).toBe(1);
      } finally {
        await client.end();
      }
    });
  });
});
