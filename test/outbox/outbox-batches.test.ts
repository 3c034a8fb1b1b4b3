// The dispatcher's batches on a real SQLite file: capped by bytes, and, while the next batch is
// claimed during a send, a key whose row the transport refused keeps its later rows behind it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OutboxDispatcher, type OutgoingRecord, type Transport } from '@keiyaku/runtime';
import { InMemoryTransport } from '@keiyaku/runtime/memory';
import { OutboxPing, outboxConformanceChannel } from '@keiyaku/runtime/testing';
import { SqliteOutbox } from '@keiyaku/sqlite';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

const address = 'batches.out';
const ping = (record: OutgoingRecord) => JSON.parse(new TextDecoder().decode(record.value)) as { seq: number; key: string };
const seqOf = (record: OutgoingRecord): number => ping(record).seq;

function setUp(rows: number) {
  const dir = mkdtempSync(join(tmpdir(), 'keiyaku-outbox-batches-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const db = new Database(join(dir, 'service.db'));
  cleanups.push(() => db.close());
  const outbox = new SqliteOutbox(db);
  outbox.migrate();
  const pings = Array.from({ length: rows }, (_, i) => OutboxPing.create({ seq: i + 1, key: `k${i % 3}` }));
  db.transaction(() => outbox.channel(outboxConformanceChannel(address), { key: (m) => m.key }).writeMany(db, pings))();
  const pending = (): number => (db.prepare("SELECT count(*) AS n FROM keiyaku_outbox WHERE state = 'pending'").get() as { n: number }).n;
  return { outbox, pending };
}

/** The memory transport, recording each send's records; `refuse(record)` true fails that send. */
function recording(refuse: (record: OutgoingRecord) => boolean = () => false) {
  const inner = new InMemoryTransport({ defaultPartitions: 1 });
  const sends: OutgoingRecord[][] = [];
  const transport: Transport = {
    name: inner.name,
    capabilities: inner.capabilities,
    consumer: (o) => inner.consumer(o),
    close: () => inner.close(),
    producer() {
      const producer = inner.producer();
      return {
        async send(records) {
          if (records.some(refuse)) throw new Error('refused');
          sends.push([...records]);
          await producer.send(records);
        },
        close: () => producer.close(),
      };
    },
  };
  return { transport, sends };
}

describe('outbox dispatcher batches (SQLite)', () => {
  it('caps a batch by bytes, never below one row', async () => {
    const { outbox, pending } = setUp(12);
    const { transport, sends } = recording();
    const dispatcher = new OutboxDispatcher({ store: outbox, transport }, { batchBytes: 1, pollIntervalMs: 10 });
    await dispatcher.start();
    await waitFor(() => pending() === 0, 'every row was published', 10_000);
    await dispatcher.stop();
    expect(sends.map((batch) => batch.length)).toEqual(Array(12).fill(1));
    expect(sends.flat().map(seqOf)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
  });

  it('a refused row holds the later rows of its key, also those of the batch claimed meanwhile', async () => {
    const { outbox, pending } = setUp(30);
    let refusals = 2;
    const { transport, sends } = recording((record) => seqOf(record) === 4 && refusals-- > 0);
    const dispatcher = new OutboxDispatcher(
      { store: outbox, transport },
      { batchSize: 4, pollIntervalMs: 10, retry: { initialMs: 30, maxMs: 30, jitter: 0 } },
    );
    await dispatcher.start();
    await waitFor(() => pending() === 0, 'every row was published', 10_000);
    await dispatcher.stop();
    const sent = sends.flat();
    expect(new Set(sent.map(seqOf)).size).toBe(30);
    for (const key of ['k0', 'k1', 'k2']) {
      const seqs = sent.filter((r) => r.key === key).map(seqOf);
      expect(seqs.length).toBe(10);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    }
  });
});
