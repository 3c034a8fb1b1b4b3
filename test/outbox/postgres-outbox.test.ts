// The PostgreSQL outbox against a real server: the conformance suite, plus what only PostgreSQL has
// (several dispatchers sharing one database, LISTEN/NOTIFY wake-ups, migrations from several processes).
import { POSTGRES_OUTBOX_SCHEMA, PostgresOutbox, postgresSchemaVersions } from '@keiyaku/postgres';
import { OutboxPing, outboxConformanceChannel, runOutboxConformance } from '@keiyaku/runtime/testing';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FreshDatabase, freshDatabase, postgresSkipNote, postgresUrl } from '../postgres/postgres-env.js';

const run = postgresUrl !== '';

(run ? describe : describe.skip)(`PostgreSQL outbox${postgresSkipNote}`, () => {
  const databases: FreshDatabase[] = [];
  afterAll(async () => {
    for (const db of databases) await db.drop();
  });

  void runOutboxConformance(
    {
      name: 'postgres',
      exclusive: false,
      create: async ({ channel }) => {
        const db = await freshDatabase('outbox');
        databases.push(db);
        const outbox = new PostgresOutbox(db.pool);
        await outbox.migrate();
        const writer = outbox.channel(channel);
        const others: PostgresOutbox[] = [];
        return {
          store: outbox,
          async write(items, options = {}) {
            const client = await db.pool.connect();
            try {
              await client.query('BEGIN');
              await writer.writeMany(client, items);
              if (options.rollback) throw new Error('rolled back on purpose');
              await client.query('COMMIT');
            } catch (error) {
              await client.query('ROLLBACK');
              throw error;
            } finally {
              client.release();
            }
          },
          async another() {
            const other = new PostgresOutbox(db.url);
            others.push(other);
            return other;
          },
          async cleanup() {
            for (const other of others) await other.close();
            await outbox.close();
          },
        };
      },
    },
    { describe, it, afterEach, expect },
  );

  describe('PostgresOutbox', () => {
    let db: FreshDatabase;
    beforeAll(async () => {
      db = await freshDatabase('outbox_pg');
      databases.push(db);
    });

    it('migrate() is idempotent and safe from several processes at once; the exported SQL is what it runs', async () => {
      const outboxes = [new PostgresOutbox(db.url), new PostgresOutbox(db.url), new PostgresOutbox(db.url)];
      expect(await outboxes[0]!.schemaVersion()).toBeUndefined();
      await Promise.all(outboxes.map((o) => o.migrate()));
      await outboxes[0]!.migrate();
      expect(await outboxes[0]!.schemaVersion()).toBe(1);
      const { rows } = await db.pool.query<{ tablename: string }>(
        "SELECT tablename FROM pg_tables WHERE tablename LIKE 'keiyaku_outbox%' ORDER BY tablename",
      );
      expect(rows.map((r) => r.tablename)).toEqual(['keiyaku_outbox', 'keiyaku_outbox_lanes', 'keiyaku_outbox_listeners']);
      expect(await postgresSchemaVersions(db.pool)).toEqual({ outbox: 1 });
      const lanes = await db.pool.query<{ n: string }>('SELECT count(*) AS n FROM keiyaku_outbox_lanes');
      expect(lanes.rows[0]!.n).toBe('64');
      await db.pool.query(POSTGRES_OUTBOX_SCHEMA);
      for (const o of outboxes) await o.close();
    });

    it('a claim reads every field of a row back as written, with bytea_output hex (the default) and escape', async () => {
      const fresh = await freshDatabase('outbox_claim_fields');
      databases.push(fresh);
      const writer = new PostgresOutbox(fresh.pool);
      await writer.migrate();
      const channel = writer.channel(outboxConformanceChannel('fields'));
      const bytes = Uint8Array.from([0, 1, 0x5c, 0x78, 0x7f, 0x80, 0xfe, 0xff, ...new TextEncoder().encode('é\\x00')]);
      const keyed = { ...channel.encoder.encode(OutboxPing.create({ seq: 1, key: 'k' })), payload: bytes };
      const { key: _key, ...unkeyed } = channel.encoder.encode(OutboxPing.create({ seq: 2, key: 'k' }));
      const client = await fresh.pool.connect();
      await client.query('BEGIN');
      await channel.insert(client, [keyed, unkeyed]);
      await client.query('COMMIT');
      client.release();
      const [first, second] = await writer.list({ state: 'pending' });
      await writer.failed(second!.id, { attempts: 1, error: 'refused: "x"', next: 1, now: 1 });
      for (const output of ['hex', 'escape']) {
        const reader = new PostgresOutbox(new pg.Pool({ connectionString: fresh.url, options: `-c bytea_output=${output}` }));
        const claimed = await reader.claimNext(`reader-${output}`, {
          limit: 10,
          maxBytes: 1 << 20,
          now: Date.now(),
          inFlight: [],
          published: [],
          keep: false,
        });
        expect(claimed.map((row) => row.id)).toEqual([first!.id, second!.id]);
        expect(claimed[0]).toEqual({ ...first, payload: bytes });
        expect([...claimed[0]!.payload]).toEqual([...bytes]);
        expect(claimed[1]).toEqual({ ...second, attempts: 1, lastError: 'refused: "x"', nextAttemptAt: 1 });
        expect(claimed[1]!.key).toBeUndefined();
        await reader.release(`reader-${output}`);
        await reader.pool.end();
      }
      await writer.close();
    });

    it('a write before migrate() is a typed error; the write uses only the caller’s client', async () => {
      const fresh = await freshDatabase('outbox_unmigrated');
      databases.push(fresh);
      const outbox = new PostgresOutbox(fresh.pool);
      const writer = outbox.channel(outboxConformanceChannel('a'));
      const client = new pg.Client({ connectionString: fresh.url });
      await client.connect();
      await client.query('BEGIN');
      await expect(writer.write(client, OutboxPing.create({ seq: 1, key: 'k' }))).rejects.toMatchObject({ code: 'outbox_not_migrated' });
      await client.query('ROLLBACK');
      await client.end();
      expect(fresh.pool.totalCount).toBe(0);
    });

    it('a NOTIFY at commit wakes an idle dispatcher well before its polling interval; a busy one is not notified', async () => {
      const outbox = new PostgresOutbox(db.pool);
      await outbox.migrate();
      await outbox.open('test');
      const waiting = outbox.wait(30_000, AbortSignal.timeout(30_000));
      // The trigger notifies only while a dispatcher has marked itself idle.
      while ((await db.pool.query("SELECT 1 FROM keiyaku_outbox_listeners WHERE owner = 'test' AND idle_until > now()")).rows.length === 0)
        await new Promise((resolve) => setTimeout(resolve, 10));
      const started = Date.now();
      const client = await db.pool.connect();
      await client.query('BEGIN');
      await outbox.channel(outboxConformanceChannel('notify')).write(client, OutboxPing.create({ seq: 1, key: 'k' }));
      await client.query('COMMIT');
      client.release();
      await waiting;
      expect(Date.now() - started).toBeLessThan(5_000);
      // Busy (not marked idle), the trigger does not notify: nothing wakes the dispatcher before its timeout.
      const busyWait = outbox.wait(1_500, AbortSignal.timeout(30_000));
      while ((await db.pool.query("SELECT 1 FROM keiyaku_outbox_listeners WHERE owner = 'test' AND idle_until > now()")).rows.length === 0)
        await new Promise((resolve) => setTimeout(resolve, 10));
      await db.pool.query("UPDATE keiyaku_outbox_listeners SET idle_until = '-infinity'");
      const busyStarted = Date.now();
      const busyClient = await db.pool.connect();
      await busyClient.query('BEGIN');
      await outbox.channel(outboxConformanceChannel('notify')).write(busyClient, OutboxPing.create({ seq: 2, key: 'k' }));
      await busyClient.query('COMMIT');
      busyClient.release();
      await busyWait;
      expect(Date.now() - busyStarted).toBeGreaterThan(1_000);
      await outbox.close();
    });
  });
});
