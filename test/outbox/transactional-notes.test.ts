// The transactional dispatcher's notes on the in-memory transport: each transaction notes the ids
// of the rows it publishes, and rows committed to the transport but not marked published (the
// marking failed, or the dispatcher stopped between the two) are marked from the last committed
// note instead of being sent again.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Logger, OutboxDispatcher, type OutboxDispatchStore, type Transport, type TransportTransaction } from '@keiyaku/runtime';
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

function setUp(rows: number) {
  const dir = mkdtempSync(join(tmpdir(), 'keiyaku-outbox-notes-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const db = new Database(join(dir, 'service.db'));
  cleanups.push(() => db.close());
  const outbox = new SqliteOutbox(db, { leaseMs: 200 });
  outbox.migrate();
  const address = 'notes.out';
  const pings = Array.from({ length: rows }, (_, i) => OutboxPing.create({ seq: i + 1, key: `k${i % 3}` }));
  db.transaction(() => outbox.channel(outboxConformanceChannel(address)).writeMany(db, pings))();
  const pending = (): number => (db.prepare("SELECT count(*) AS n FROM keiyaku_outbox WHERE state = 'pending'").get() as { n: number }).n;
  const transport = new InMemoryTransport({ defaultPartitions: 1 });
  const seqs = (): number[] =>
    transport.published(address).map((r) => (JSON.parse(new TextDecoder().decode(r.value)) as { seq: number }).seq);
  return { outbox, transport, pending, seqs };
}

/** The outbox as the dispatcher's store, with `published` replaced. */
function withPublished(outbox: SqliteOutbox, published: OutboxDispatchStore['published']): OutboxDispatchStore {
  return new Proxy(outbox as OutboxDispatchStore, {
    get(target, key) {
      if (key === 'published') return published;
      const value = Reflect.get(target, key, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

const collect = (): { logger: Logger; lines: string[] } => {
  const lines: string[] = [];
  const push = (level: string) => (message: string, fields?: Readonly<Record<string, unknown>>) =>
    void lines.push(`${level} ${message} ${JSON.stringify(fields ?? {})}`);
  return { lines, logger: { debug: () => {}, info: push('info'), warn: push('warn'), error: push('error') } };
};
const range = (count: number) => Array.from({ length: count }, (_, i) => i + 1);
const options = { batchSize: 10, pollIntervalMs: 10, renewIntervalMs: 50, transactional: { transactionalId: 'notes-0' } } as const;

describe('transactional outbox dispatcher notes (in-memory transport)', () => {
  it('marks the rows of a committed transaction from its note when marking them failed, and sends none twice', async () => {
    const { outbox, transport, pending, seqs } = setUp(30);
    let failures = 1;
    const store = withPublished(outbox, async (ids, now, keep) => {
      if (failures-- > 0) throw new Error('database unreachable');
      return outbox.published(ids, now, keep);
    });
    const { logger, lines } = collect();
    const dispatcher = new OutboxDispatcher({ store, transport, logger }, options);
    await dispatcher.start();
    await waitFor(() => pending() === 0, 'every row was published', 10_000);
    await dispatcher.stop();
    expect(seqs()).toEqual(range(30));
    expect(lines).toContainEqual(expect.stringContaining('marked published the rows its last committed transaction sent'));
    expect(lines.find((line) => line.includes('last committed transaction'))).toContain('"rows":10');
  });

  it('a dispatcher stopped between the commit and the marking: its successor (same id) marks the rows from the note', async () => {
    const { outbox, transport, pending, seqs } = setUp(30);
    // The first dispatcher never marks anything: it commits one transaction, then its database is gone.
    const first = new OutboxDispatcher(
      {
        store: withPublished(outbox, async () => {
          throw new Error('database unreachable');
        }),
        transport,
      },
      options,
    );
    await first.start();
    await waitFor(() => seqs().length === 10, 'the first dispatcher committed a batch', 10_000);
    await first.stop();
    expect(pending()).toBe(30);

    const { logger, lines } = collect();
    const successor = new OutboxDispatcher({ store: outbox, transport, logger }, options);
    await successor.start();
    await waitFor(() => pending() === 0, 'the successor published every row', 10_000);
    await successor.stop();
    expect(seqs()).toEqual(range(30));
    expect(lines.find((line) => line.includes('last committed transaction'))).toContain('"rows":10');
  });

  it('a commit that fails after committing sends nothing twice: the rows are marked from the note before the next claim', async () => {
    const { outbox, transport, pending, seqs } = setUp(30);
    let lies = 2;
    // A transport whose commits answer with an error twice after committing (a lost answer).
    const lying: Transport = {
      name: transport.name,
      capabilities: transport.capabilities,
      producer: () => transport.producer(),
      consumer: (o) => transport.consumer(o),
      close: () => transport.close(),
      transactionalProducer(id) {
        const producer = transport.transactionalProducer(id);
        return {
          transactionalId: id,
          close: () => producer.close(),
          lastNote: () => producer.lastNote!(),
          async begin(): Promise<TransportTransaction> {
            const tx = await producer.begin();
            return {
              send: (records) => tx.send(records),
              sendOffsets: (group, offsets) => tx.sendOffsets(group, offsets),
              note: (value) => tx.note!(value),
              abort: () => tx.abort(),
              async commit() {
                await tx.commit();
                if (lies-- > 0) throw new Error('the commit answer was lost');
              },
            };
          },
        };
      },
    };
    const { logger, lines } = collect();
    const dispatcher = new OutboxDispatcher({ store: outbox, transport: lying, logger }, options);
    await dispatcher.start();
    await waitFor(() => pending() === 0, 'every row was published', 10_000);
    await dispatcher.stop();
    expect(seqs()).toEqual(range(30));
    expect(lines.filter((line) => line.includes('last committed transaction'))).toHaveLength(2);
    expect(dispatcher.status().failedAttempts).toBe(0);
  });
});
