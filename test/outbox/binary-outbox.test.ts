// Binary payloads (Avro and Protobuf) through the outbox, on real SQLite and real PostgreSQL: the row holds the
// codec's bytes exactly (0x00, invalid UTF-8), the dispatcher publishes them byte-exact in per-key
// order to the memory transport, and a row that went dead and is reset (the outbox's redrive)
// is published again with the same bytes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PostgresOutbox } from '@keiyaku/postgres';
import { createMessaging, type Messaging, silentLogger } from '@keiyaku/runtime';
import type { OutgoingRecord, TransportProducer } from '@keiyaku/runtime/adapter';
import { InMemoryTransport } from '@keiyaku/runtime/memory';
import { SqliteOutbox } from '@keiyaku/sqlite';
import Database from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { HOSTILE_BYTES, hex, type ReadingMessage, readingChannel, type ScanMessage, sample } from '../binary/binary-contract.js';
import { waitFor } from '../helpers.js';
import { type FreshDatabase, freshDatabase, postgresSkipNote, postgresUrl } from '../postgres/postgres-env.js';

/** The memory transport, refusing the records of `refused` keys while they are in the set. */
class RefusingTransport extends InMemoryTransport {
  readonly refused = new Set<string>();
  override producer(): TransportProducer {
    const inner = super.producer();
    return {
      send: async (records: readonly OutgoingRecord[]) => {
        const bad = records.find((r) => r.key !== undefined && this.refused.has(r.key));
        if (bad !== undefined) throw new Error(`refused key ${bad.key}`);
        await inner.send(records);
      },
      close: () => inner.close(),
    };
  }
}

interface Engine {
  readonly outbox: SqliteOutbox | PostgresOutbox;
  write(items: readonly Sample[]): Promise<void>;
}

type Sample = ReadingMessage | ScanMessage;

/** Each sample with its sensor as the partition key. */
const keyed = (items: readonly Sample[]) => items.map((m) => [m, { key: m.sensor }] as const);

const cleanups: (() => Promise<void>)[] = [];
const hosts: Messaging[] = [];
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.stop();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function sqlite(channel: ReturnType<typeof readingChannel>): Engine {
  const dir = mkdtempSync(join(tmpdir(), 'keiyaku-binary-outbox-'));
  const db = new Database(join(dir, 'service.db'));
  db.pragma('journal_mode = WAL');
  const outbox = new SqliteOutbox(db);
  outbox.migrate();
  const writer = outbox.channel(channel);
  cleanups.push(async () => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    outbox,
    async write(items) {
      db.transaction(() => writer.writeMany(db, keyed(items)))();
    },
  };
}

const databases: FreshDatabase[] = [];
afterAll(async () => {
  for (const db of databases) await db.drop();
});

async function postgres(channel: ReturnType<typeof readingChannel>): Promise<Engine> {
  const db = await freshDatabase('binary_outbox');
  databases.push(db);
  const outbox = new PostgresOutbox(db.pool);
  await outbox.migrate();
  const writer = outbox.channel(channel);
  cleanups.push(() => outbox.close());
  return {
    outbox,
    async write(items) {
      const client = await db.pool.connect();
      try {
        await client.query('BEGIN');
        await writer.writeMany(client, keyed(items));
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      } finally {
        client.release();
      }
    },
  };
}

const engines: readonly [string, (channel: ReturnType<typeof readingChannel>) => Engine | Promise<Engine>, boolean][] = [
  ['SQLite', sqlite, true],
  [`PostgreSQL${postgresSkipNote}`, postgres, postgresUrl !== ''],
];

for (const [name, make, runs] of engines) {
  (runs ? describe : describe.skip)(`binary payloads through the ${name} outbox`, () => {
    it('stores the bytes exactly and publishes them byte-exact in per-key order; a dead row reset is published with the same bytes', async () => {
      const channel = readingChannel();
      const engine = await make(channel);
      const transport = new RefusingTransport({ defaultPartitions: 3, idleWaitMs: 5 });
      const host = createMessaging({ logger: silentLogger, transport });
      hosts.push(host);
      const got: Sample[] = [];
      host.subscribe(channel, { groupId: 'readers', handle: (message) => void got.push(message) });
      const items = Array.from({ length: 15 }, (_, i) => sample(i));
      const encoded = new Map(items.map((m) => [m.seq, hex(channel.message(m.seq % 2 === 0 ? 'Reading' : 'Scan')!.encode(m))]));
      await engine.write(items.slice(0, 12));
      const pending = await engine.outbox.list({ state: 'pending' });
      expect(pending.map((row) => hex(row.payload))).toEqual(items.slice(0, 12).map((m) => encoded.get(m.seq)));

      host.host(
        engine.outbox.dispatcher({ transport }, { pollIntervalMs: 20, maxAttempts: 1, retry: { initialMs: 10, maxMs: 10, jitter: 0 } }),
      );
      await host.start();
      await waitFor(() => got.length === 12, 'the 12 rows are published', 15_000);
      for (const message of got) expect(hex(message.blob)).toBe(hex(Uint8Array.from([...HOSTILE_BYTES, message.seq])));
      for (const sensor of ['s-0', 's-1', 's-2']) {
        const order = got.filter((m) => m.sensor === sensor).map((m) => m.seq);
        expect(order).toEqual([...order].sort((a, b) => a - b));
        expect(order).toHaveLength(4);
      }

      // The broker refuses the next rows: with one attempt each they go dead, their bytes kept.
      for (const sensor of ['s-0', 's-1', 's-2']) transport.refused.add(sensor);
      await engine.write(items.slice(12));
      await waitFor(async () => (await engine.outbox.counts()).dead === 3, 'the 3 refused rows are dead', 15_000);
      const dead = await engine.outbox.list({ state: 'dead' });
      expect(dead.map((row) => hex(row.payload))).toEqual([12, 13, 14].map((seq) => encoded.get(seq)));
      transport.refused.clear();
      for (const row of dead) expect(await engine.outbox.reset(row.id)).toBe(true);
      await waitFor(() => got.length === 15, 'the reset rows are published', 15_000);
      expect(
        got
          .slice(12)
          .map((m) => m.seq)
          .sort((a, b) => a - b),
      ).toEqual([12, 13, 14]);
      const sent = transport.published(channel).slice(12);
      // The last byte of each blob is its seq (and the last byte of the encoding in both formats).
      expect(
        sent.map((p) => hex(p.record.value)).sort((a, b) => Number.parseInt(a.slice(-2), 16) - Number.parseInt(b.slice(-2), 16)),
      ).toEqual([12, 13, 14].map((seq) => encoded.get(seq)));
    });
  });
}
