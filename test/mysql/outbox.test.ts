// The MySQL / MariaDB outbox against a real server: the conformance suite, plus what only this store
// has (its migration and exported SQL, the server version check, the in-process wake-up and the
// polling of other processes' rows, lane leases that expire, binary payloads, transactional dispatch).
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { MYSQL_OUTBOX_SCHEMA, MysqlOutbox, mysqlMigrationSql, mysqlSchemaVersions, mysqlServerSupport } from '@keiyaku/mysql';
import { OutboxDispatcher } from '@keiyaku/runtime';
import { InMemoryTransport } from '@keiyaku/runtime/memory';
import { OutboxPing, outboxConformanceChannel, runOutboxConformance } from '@keiyaku/runtime/testing';
import mysql from 'mysql2/promise';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, waitFor } from '../helpers.js';
import { type FreshMysqlDatabase, freshMysqlDatabase, mysqlSkipNote, mysqlUrl } from './mysql-env.js';

const run = mysqlUrl !== '';

/** Runs `fn` on one connection of `pool` inside START TRANSACTION … COMMIT (ROLLBACK when it throws). */
async function inTransaction(pool: mysql.Pool, fn: (connection: mysql.PoolConnection) => Promise<unknown>): Promise<void> {
  const connection = await pool.getConnection();
  try {
    await connection.beginTransaction();
    await fn(connection);
    await connection.commit();
  } catch (error) {
    await connection.rollback();
    throw error;
  } finally {
    connection.release();
  }
}

/** `keiyaku dead-letters …` from the sources, as operators run it. */
function deadLetters(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('KEIYAKU_')));
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      ['--import', 'tsx/esm', '--conditions=keiyaku-source', join(repoRoot, 'generator', 'cli', 'run.ts'), 'dead-letters', ...args],
      { cwd: repoRoot, env, timeout: 90_000 },
      (error, stdout, stderr) => resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr }),
    );
    child.stdin!.end('');
  });
}

describe('mysqlServerSupport', () => {
  it('accepts MySQL 8.0.1+ and MariaDB 10.6+, refuses older servers', () => {
    expect(mysqlServerSupport('8.0.36')).toEqual({ server: 'MySQL 8.0.36', supported: true });
    expect(mysqlServerSupport('8.4.3-commercial').supported).toBe(true);
    expect(mysqlServerSupport('5.7.44-log')).toEqual({ server: 'MySQL 5.7.44', supported: false });
    expect(mysqlServerSupport('8.0.0-dmr').supported).toBe(false);
    expect(mysqlServerSupport('10.11.6-MariaDB-0+deb12u1')).toEqual({ server: 'MariaDB 10.11.6', supported: true });
    expect(mysqlServerSupport('5.5.5-10.6.18-MariaDB-log')).toEqual({ server: 'MariaDB 10.6.18', supported: true });
    expect(mysqlServerSupport('10.5.23-MariaDB')).toEqual({ server: 'MariaDB 10.5.23', supported: false });
    expect(mysqlServerSupport('11.4.2-MariaDB').supported).toBe(true);
  });
});

(run ? describe : describe.skip)(`MySQL outbox${mysqlSkipNote}`, () => {
  const databases: FreshMysqlDatabase[] = [];
  afterAll(async () => {
    for (const db of databases) await db.drop();
  });

  void runOutboxConformance(
    {
      name: 'mysql',
      exclusive: false,
      create: async ({ channel }) => {
        const db = await freshMysqlDatabase('outbox');
        databases.push(db);
        const outbox = new MysqlOutbox(db.pool);
        await outbox.migrate();
        const writer = outbox.channel(channel);
        const others: MysqlOutbox[] = [];
        return {
          store: outbox,
          async write(items, options = {}) {
            await inTransaction(db.pool, async (connection) => {
              await writer.writeMany(connection, items);
              if (options.rollback) throw new Error('rolled back on purpose');
            });
          },
          async another() {
            const other = new MysqlOutbox(db.url);
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

  describe('MysqlOutbox', () => {
    let db: FreshMysqlDatabase;
    beforeAll(async () => {
      db = await freshMysqlDatabase('outbox_my');
      databases.push(db);
    });

    it('migrate() is idempotent and safe from several processes at once; the exported SQL is what it runs', async () => {
      const outboxes = [new MysqlOutbox(db.url), new MysqlOutbox(db.url), new MysqlOutbox(db.url)];
      expect(await outboxes[0]!.schemaVersion()).toBeUndefined();
      await Promise.all(outboxes.map((o) => o.migrate()));
      await outboxes[0]!.migrate();
      expect(await outboxes[0]!.schemaVersion()).toBe(1);
      const [tables] = await db.pool.query<mysql.RowDataPacket[]>(
        "SELECT table_name AS t FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name LIKE 'keiyaku_outbox%' ORDER BY table_name",
      );
      expect(tables.map((r) => r['t'])).toEqual(['keiyaku_outbox', 'keiyaku_outbox_lanes']);
      expect(await mysqlSchemaVersions(db.pool)).toEqual({ outbox: 1 });
      const [lanes] = await db.pool.query<mysql.RowDataPacket[]>('SELECT count(*) AS n FROM keiyaku_outbox_lanes');
      expect(Number(lanes[0]!['n'])).toBe(64);
      expect(MYSQL_OUTBOX_SCHEMA).toBe(mysqlMigrationSql(['outbox']));
      // The exported script runs again on the migrated database, statement by statement, changing nothing.
      const connection = await mysql.createConnection({ uri: db.url, multipleStatements: true });
      await connection.query(MYSQL_OUTBOX_SCHEMA);
      await connection.end();
      expect(await mysqlSchemaVersions(db.pool)).toEqual({ outbox: 1 });
      for (const o of outboxes) await o.close();
    });

    it('a write before migrate() is a typed error; the write uses only the caller’s connection', async () => {
      const fresh = await freshMysqlDatabase('outbox_unmigrated');
      databases.push(fresh);
      const outbox = new MysqlOutbox(fresh.pool);
      const writer = outbox.channel(outboxConformanceChannel('a'));
      const connection = await mysql.createConnection(fresh.url);
      await connection.beginTransaction();
      await expect(writer.write(connection, OutboxPing.create({ seq: 1, key: 'k' }))).rejects.toMatchObject({
        code: 'outbox_not_migrated',
      });
      await connection.rollback();
      await connection.end();
      // The outbox's pool opened no connection for the write.
      expect((fresh.pool as unknown as { pool: { _allConnections: { length: number } } }).pool._allConnections.length).toBe(0);
      await expect(outbox.counts()).rejects.toMatchObject({ code: 'outbox_not_migrated' });
    });

    it('stores payload bytes and headers exactly (every byte value, utf8mb4 text) and publishes them byte-exact', async () => {
      const outbox = new MysqlOutbox(db.pool);
      await outbox.migrate();
      const channel = outboxConformanceChannel('binary');
      const writer = outbox.channel(channel);
      const bytes = Uint8Array.from({ length: 512 }, (_, i) => i % 256);
      const record = {
        ...writer.encoder.encode(OutboxPing.create({ seq: 1, key: 'k' }), { key: 'k', headers: { note: 'größe 😀 \u0000 end' } }),
        payload: bytes,
      };
      await inTransaction(db.pool, async (connection) => {
        await writer.insert(connection, [record]);
        await writer.insert(connection, [record, { ...record, messageId: `${record.messageId}-2` }]);
      });
      const rows = await outbox.list({ state: 'pending', channel: channel.id });
      expect(rows).toHaveLength(3);
      for (const row of rows) {
        expect([...row.payload]).toEqual([...bytes]);
        expect(row.headers['note']).toBe('größe 😀 \u0000 end');
      }
      const transport = new InMemoryTransport();
      const dispatcher = new OutboxDispatcher({ store: outbox, transport }, { pollIntervalMs: 20 });
      await dispatcher.start();
      await waitFor(() => transport.published('binary').length === 3, 'the three rows are published', 10_000);
      await dispatcher.stop();
      for (const sent of transport.published('binary')) expect([...sent.value]).toEqual([...bytes]);
      await outbox.close();
    });

    it('a write in the same process wakes an idle dispatcher at once; another process finds the row by polling', async () => {
      const outbox = new MysqlOutbox(db.pool, { pollIntervalMs: 2_000 });
      await outbox.migrate();
      const writer = outbox.channel(outboxConformanceChannel('wake'));
      const transport = new InMemoryTransport();
      const dispatcher = new OutboxDispatcher({ store: outbox, transport }, { pollIntervalMs: 30_000 });
      await dispatcher.start();
      await waitFor(async () => (await outbox.counts()).pending === 0, 'the outbox is empty', 10_000);
      // Idle long enough to be past the eager polls that follow a write.
      await new Promise((resolve) => setTimeout(resolve, 600));
      let committed = 0;
      await inTransaction(db.pool, async (connection) => {
        await writer.write(connection, OutboxPing.create({ seq: 1, key: 'k' }));
        // A transaction that stays open a while after the write: the row becomes visible only at commit.
        await new Promise((resolve) => setTimeout(resolve, 50));
      });
      committed = Date.now();
      await waitFor(() => transport.published('wake').length === 1, 'the row is published', 10_000);
      // Well before the 2 s polling interval.
      expect(Date.now() - committed).toBeLessThan(1_000);
      await dispatcher.stop();

      // A dispatcher of another store (as another process): nothing wakes it, it polls every 300 ms.
      const other = new MysqlOutbox(db.url, { pollIntervalMs: 300 });
      const seen = new InMemoryTransport();
      const polling = new OutboxDispatcher({ store: other, transport: seen }, { pollIntervalMs: 30_000 });
      await polling.start();
      await new Promise((resolve) => setTimeout(resolve, 400));
      await inTransaction(db.pool, (connection) => writer.write(connection, OutboxPing.create({ seq: 2, key: 'k' })));
      const started = Date.now();
      await waitFor(() => seen.published('wake').length === 1, 'the polling dispatcher publishes the row', 10_000);
      expect(Date.now() - started).toBeLessThan(2_000);
      await polling.stop();
      await other.close();
      await outbox.close();
    });

    it('a lane lease runs out: another dispatcher takes the lanes; renew() then says the lease was lost', async () => {
      const fresh = await freshMysqlDatabase('outbox_lease');
      databases.push(fresh);
      const first = new MysqlOutbox(fresh.pool, { leaseMs: 300, lanesPerClaim: 64 });
      await first.migrate();
      const writer = first.channel(outboxConformanceChannel('lease'));
      await inTransaction(fresh.pool, (connection) =>
        writer.writeMany(
          connection,
          Array.from({ length: 20 }, (_, i) => [OutboxPing.create({ seq: i, key: `k${i % 4}` }), { key: `k${i % 4}` }] as const),
        ),
      );
      await first.open('first');
      const claimed = await first.claim('first', 100, Date.now());
      expect(claimed).toHaveLength(20);
      expect(await first.renew('first')).toBe(true);
      // While the lease holds, a second dispatcher gets nothing.
      const second = new MysqlOutbox(fresh.url, { leaseMs: 5_000, lanesPerClaim: 64 });
      await second.open('second');
      expect(await second.claim('second', 100, Date.now())).toEqual([]);
      await new Promise((resolve) => setTimeout(resolve, 500));
      // The lease ran out: the second takes the lanes and the same rows (at least once); the first has lost them.
      const taken = await second.claim('second', 100, Date.now());
      expect(taken.map((r) => r.id)).toEqual(claimed.map((r) => r.id));
      expect(await first.renew('first')).toBe(false);
      await second.release('second');
      await first.release('first');
      await second.close();
      await first.close();
    });

    it('keiyaku dead-letters --store mysql://… lists a dead outbox row, redrives it to pending and removes it', async () => {
      const fresh = await freshMysqlDatabase('outbox_cli');
      databases.push(fresh);
      const outbox = new MysqlOutbox(fresh.pool);
      await outbox.migrate();
      await inTransaction(fresh.pool, (connection) =>
        outbox.channel(outboxConformanceChannel('cli')).write(connection, OutboxPing.create({ seq: 1, key: 'k' })),
      );
      const [row] = await outbox.list({ state: 'pending' });
      await outbox.failed(row!.id, { attempts: 10, error: 'broker refused: record too large', next: 'dead', now: Date.now() });
      const listed = JSON.parse((await deadLetters(['list', '--store', fresh.url, '--json'])).stdout) as {
        items: { id: string; kind: string }[];
      };
      expect(listed.items).toEqual([expect.objectContaining({ id: `outbox:${row!.id}`, kind: 'outbox' })]);
      const redriven = await deadLetters(['redrive', `outbox:${row!.id}`, '--store', fresh.url, '--yes']);
      expect(redriven.stdout).toContain(`outbox:${row!.id} is pending again`);
      expect(await outbox.get(row!.id)).toMatchObject({ state: 'pending', attempts: 0 });
      await outbox.failed(row!.id, { attempts: 10, error: 'again', next: 'dead', now: Date.now() });
      expect((await deadLetters(['remove', `outbox:${row!.id}`, '--store', fresh.url, '--yes'])).code).toBe(0);
      expect(await outbox.get(row!.id)).toBeUndefined();
      await outbox.close();
    }, 300_000);

    it('a transactional dispatcher publishes every row once, in order per key', async () => {
      const outbox = new MysqlOutbox(db.pool, { leaseMs: 2_000 });
      await outbox.migrate();
      const address = 'transactional';
      const writer = outbox.channel(outboxConformanceChannel(address));
      const pings = Array.from({ length: 60 }, (_, i) => [OutboxPing.create({ seq: i, key: `k${i % 3}` }), { key: `k${i % 3}` }] as const);
      await inTransaction(db.pool, (connection) => writer.writeMany(connection, pings));
      const transport = new InMemoryTransport({ defaultPartitions: 1 });
      const dispatcher = new OutboxDispatcher(
        { store: outbox, transport },
        { batchSize: 10, pollIntervalMs: 20, renewIntervalMs: 200, transactional: { transactionalId: 'mysql-tx-0' } },
      );
      await dispatcher.start();
      await waitFor(() => transport.published(address).length >= 60, 'every row is published', 15_000);
      await waitFor(async () => (await outbox.counts()).pending === 0, 'every row is marked published', 10_000);
      await dispatcher.stop();
      const seqs = transport.published(address).map((r) => (JSON.parse(new TextDecoder().decode(r.value)) as { seq: number }).seq);
      expect(seqs).toHaveLength(60);
      for (const key of ['k0', 'k1', 'k2']) {
        const ofKey = transport
          .published(address)
          .filter((r) => r.key === key)
          .map((r) => (JSON.parse(new TextDecoder().decode(r.value)) as { seq: number }).seq);
        expect(ofKey).toEqual([...ofKey].sort((a, b) => a - b));
      }
      await outbox.close();
    });
  });
});
