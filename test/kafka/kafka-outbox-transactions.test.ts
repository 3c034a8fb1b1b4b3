// The transactional outbox dispatcher against the real broker: a batch in one Kafka transaction,
// marked published after the commit; a dispatcher that lost its lease before the commit aborts;
// a dispatcher SIGKILLed mid-transaction leaves nothing read_committed readers see, and its
// restarted successor (same transactional id) publishes every row once.

import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KafkaDriverTransport as KafkaTransport } from '@keiyaku/kafka';
import { PostgresOutbox } from '@keiyaku/postgres';
import type { OutboxDispatcher, Transport, TransportTransaction } from '@keiyaku/runtime';
import { OutboxPing, outboxConformanceChannel } from '@keiyaku/runtime/testing';
import { SqliteOutbox } from '@keiyaku/sqlite';
import Database from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers.js';
import { type FreshDatabase, freshDatabase, postgresSkipNote, postgresUrl } from '../postgres/postgres-env.js';
import { kafkaBrokers, kafkaSkipReason, testTransport } from './kafka-env.js';
import { readUntil, record } from './kafka-env-read.js';

const run = kafkaBrokers === '' ? describe.skip : describe;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A topic of one partition (so a marker written last is read last) and a transport on its namespace. */
async function kafkaSetUp(): Promise<{ transport: KafkaTransport; address: string }> {
  const transport = testTransport();
  cleanups.push(() => transport.close());
  const address = `outbox-tx.${randomUUID().slice(0, 8)}`;
  await transport.provision(address, { kafka: { partitions: 1 } });
  return { transport, address };
}

/** What a reader sees before the marker `end`: the `seq` of every outbox ping. */
async function seen(transport: KafkaTransport, address: string, isolation?: 'read_committed' | 'read_uncommitted'): Promise<number[]> {
  const values = await readUntil(transport, address, 'end', isolation);
  return values.map((v) => (JSON.parse(v) as { seq: number }).seq);
}

async function writeMarker(transport: KafkaTransport, address: string): Promise<void> {
  const producer = transport.producer();
  await producer.send([record(address, 'end')]);
  await producer.close();
}

const pings = (from: number, count: number) =>
  Array.from({ length: count }, (_, i) => OutboxPing.create({ seq: from + i, key: `k${(from + i) % 7}` }));
const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i);

/** A transport whose transactions run `afterSend` once, after the records of the first transaction went out. */
function stealingTransport(kafka: KafkaTransport, afterSend: () => Promise<void> | void): Transport & { aborted: number } {
  let fired = false;
  const wrapped = {
    aborted: 0,
    name: kafka.name,
    capabilities: kafka.capabilities,
    provision: kafka.provision.bind(kafka),
    producer: () => kafka.producer(),
    consumer: kafka.consumer.bind(kafka),
    close: () => kafka.close(),
    transactionalProducer(id: string) {
      const producer = kafka.transactionalProducer(id);
      return {
        transactionalId: producer.transactionalId,
        close: () => producer.close(),
        async begin(): Promise<TransportTransaction> {
          const transaction = await producer.begin();
          return {
            sendOffsets: (group, offsets) => transaction.sendOffsets(group, offsets),
            commit: () => transaction.commit(),
            async abort() {
              wrapped.aborted++;
              await transaction.abort();
            },
            async send(records) {
              await transaction.send(records);
              if (!fired) {
                fired = true;
                await afterSend();
              }
            },
          };
        },
      };
    },
  };
  return wrapped;
}

interface StoreCase {
  readonly name: string;
  readonly enabled: boolean;
  /** A migrated outbox, a function writing pings in one transaction, and a way to steal the dispatcher's lease. */
  make(): Promise<{
    outbox: SqliteOutbox | PostgresOutbox;
    write(address: string, from: number, count: number): Promise<void>;
    steal(owner: string): Promise<void>;
  }>;
}

const databases: FreshDatabase[] = [];
afterAll(async () => {
  for (const db of databases) await db.drop();
});

const stores: StoreCase[] = [
  {
    name: 'SQLite',
    enabled: true,
    async make() {
      const dir = mkdtempSync(join(tmpdir(), 'keiyaku-outbox-tx-'));
      const db = new Database(join(dir, 'service.db'));
      db.pragma('journal_mode = WAL');
      const outbox = new SqliteOutbox(db);
      outbox.migrate();
      cleanups.push(() => {
        db.close();
        rmSync(dir, { recursive: true, force: true });
      });
      return {
        outbox,
        async write(address, from, count) {
          const writer = outbox.channel(outboxConformanceChannel(address));
          db.transaction(() => writer.writeMany(db, pings(from, count)))();
        },
        async steal() {
          db.prepare("UPDATE keiyaku_outbox_lock SET owner = 'another-dispatcher'").run();
        },
      };
    },
  },
  {
    name: `PostgreSQL${postgresSkipNote}`,
    enabled: postgresUrl !== '',
    async make() {
      const db = await freshDatabase('outbox_tx');
      databases.push(db);
      // All lanes in one claim: the stolen lanes are then every lane with rows.
      const outbox = new PostgresOutbox(db.pool, { lanesPerClaim: 64 });
      await outbox.migrate();
      return {
        outbox,
        async write(address, from, count) {
          const writer = outbox.channel(outboxConformanceChannel(address));
          const client = await db.pool.connect();
          try {
            await client.query('BEGIN');
            await writer.writeMany(client, pings(from, count));
            await client.query('COMMIT');
          } finally {
            client.release();
          }
        },
        async steal(owner) {
          await db.pool.query(
            "UPDATE keiyaku_outbox_lanes SET owner = 'another-dispatcher', lease_until = now() + interval '1 hour' WHERE owner = $1",
            [owner],
          );
        },
      };
    },
  },
];

run(`transactional outbox dispatcher on a real broker${kafkaSkipReason ? ` (${kafkaSkipReason})` : ''}`, () => {
  for (const store of stores) {
    (store.enabled ? describe : describe.skip)(store.name, () => {
      it('publishes claimed batches in transactions, read once each by a read_committed reader, and says so in health', async () => {
        const { transport, address } = await kafkaSetUp();
        const { outbox, write } = await store.make();
        await write(address, 1, 120);
        const dispatcher = outbox.dispatcher({ transport }, { batchSize: 50, pollIntervalMs: 50, transactional: true });
        cleanups.push(() => dispatcher.stop());
        await dispatcher.start();
        expect(dispatcher.transactionalId).toMatch(/^keiyaku-outbox\.outbox\.[0-9a-f]{8}$/);
        await waitFor(async () => (await dispatcher.refresh()).backlog === 0, 'the outbox drained', 30_000);
        expect(dispatcher.status().published).toBe(120);
        expect(dispatcher.health()).toMatchObject({
          ready: true,
          details: { transactional: true, transactionalId: dispatcher.transactionalId },
        });
        await writeMarker(transport, address);
        // Once each; the test's rows have no partition key, so PostgreSQL's lanes may interleave them.
        const read = await seen(transport, address);
        expect([...read].sort((a, b) => a - b)).toEqual(range(1, 120));
      });

      it('aborts the transaction of a batch whose lease was lost before the commit: nothing read_committed, the rows still pending', async () => {
        const { transport: kafka, address } = await kafkaSetUp();
        const { outbox, write, steal } = await store.make();
        await write(address, 1, 30);
        let dispatcher: OutboxDispatcher | undefined;
        const transport = stealingTransport(kafka, () => steal(dispatcher!.owner));
        dispatcher = outbox.dispatcher(
          { transport },
          { batchSize: 50, pollIntervalMs: 50, transactional: { transactionalId: 'lease-test' } },
        );
        cleanups.push(() => dispatcher.stop());
        await dispatcher.start();
        await waitFor(() => transport.aborted > 0, 'the transaction was aborted', 20_000);
        // Give a wrongly continuing dispatcher the time to publish anyway.
        await new Promise((resolve) => setTimeout(resolve, 500));
        expect(dispatcher.status().published).toBe(0);
        expect(dispatcher.status().failedAttempts).toBe(0);
        expect((await dispatcher.refresh()).backlog).toBe(30);
        await writeMarker(kafka, address);
        expect(await seen(kafka, address)).toEqual([]);
        // The records did go out, in the aborted transaction.
        expect((await seen(kafka, address, 'read_uncommitted')).sort((a, b) => a - b)).toEqual(range(1, 30));
      });
    });
  }

  it('a dispatcher fenced by another producer with its id counts no attempt, says so in health, and publishes every row once with a new producer', async () => {
    const { transport: kafka, address } = await kafkaSetUp();
    const { outbox, write } = await stores[0]!.make();
    await write(address, 1, 40);
    const intruder = testTransport({ namespace: kafka.options.namespace! });
    cleanups.push(() => intruder.close());
    const transport = stealingTransport(kafka, async () => {
      // Another producer registers the same id while the dispatcher's first transaction is open.
      const other = intruder.transactionalProducer('shared-id');
      await (await other.begin()).abort();
      await other.close();
    });
    const dispatcher = outbox.dispatcher(
      { transport },
      { batchSize: 25, pollIntervalMs: 50, transactional: { transactionalId: 'shared-id' } },
    );
    cleanups.push(() => dispatcher.stop());
    await dispatcher.start();
    await waitFor(() => transport.aborted > 0, 'the fenced transaction was aborted', 20_000);
    await waitFor(async () => (await dispatcher.refresh()).backlog === 0, 'the outbox drained', 30_000);
    expect(dispatcher.status()).toMatchObject({ published: 40, failedAttempts: 0, dead: 0 });
    expect(dispatcher.status().lastError).toBeUndefined();
    expect(dispatcher.health().ready).toBe(true);
    await writeMarker(kafka, address);
    expect((await seen(kafka, address)).sort((a, b) => a - b)).toEqual(range(1, 40));
  });

  it('refuses to start on a transport without transactions, naming the option', async () => {
    const { outbox } = await stores[0]!.make();
    const kafka = testTransport();
    cleanups.push(() => kafka.close());
    const transport: Transport = {
      name: 'plain',
      capabilities: kafka.capabilities,
      producer: () => kafka.producer(),
      consumer: (options) => kafka.consumer(options),
      close: async () => undefined,
    };
    const dispatcher = outbox.dispatcher({ transport }, { transactional: true });
    await expect(dispatcher.start()).rejects.toMatchObject({
      name: 'OutboxError',
      code: 'outbox_transactions_unsupported',
      message: expect.stringContaining('transactional'),
    });
    expect(dispatcher.health().ready).toBe(false);
  });

  /** SIGKILLs the dispatcher child once its output says `word` (a batch `sent`, or `committed`). */
  async function killWhen(doomed: { child: import('node:child_process').ChildProcess; output(): string }, word: string): Promise<void> {
    await waitFor(
      () => doomed.output().includes(word),
      () => `the first dispatcher ${word} a batch (output: ${doomed.output()})`,
      30_000,
    );
    const exited = new Promise((resolve) => doomed.child.once('exit', resolve));
    doomed.child.kill('SIGKILL');
    await exited;
  }

  it('a dispatcher SIGKILLed mid-transaction leaves nothing read_committed; its restart (same id) publishes every row once', async () => {
    const { transport, address, pending, start, close } = await killSetUp();
    await killWhen(start({ OUTBOX_TX_HANG: '1' }), 'sent');
    expect(pending()).toBe(200);

    // The killed dispatcher's transaction is still open: a read_uncommitted reader sees its records.
    await writeMarker(transport, address);
    expect((await seen(transport, address, 'read_uncommitted')).length).toBeGreaterThan(0);

    await restartAndDrain(start, pending, close);
    // What a read_committed reader reads: nothing of the killed transaction (aborted when the
    // successor fenced it), then the first marker, then every row once.
    const committed = await readUntil(transport, address, await endMarker(transport, address));
    expect(committed[0]).toBe('end');
    expect(committed.slice(1).map((v) => (JSON.parse(v) as { seq: number }).seq)).toEqual(range(1, 200));
  }, 120_000);

  it('a dispatcher SIGKILLed after its commit and before marking the rows published: its restart marks them from the note, and sends each row once', async () => {
    const { transport, address, pending, start, close } = await killSetUp();
    await killWhen(start({ OUTBOX_TX_STOP_AFTER_COMMIT: '1' }), 'committed');
    // Committed to Kafka (the first batch of 50), none of it marked published.
    expect(pending()).toBe(200);
    await writeMarker(transport, address);
    expect(await seen(transport, address)).toEqual(range(1, 50));

    await restartAndDrain(start, pending, close);
    const committed = await readUntil(transport, address, await endMarker(transport, address));
    expect(committed.filter((v) => v !== 'end').map((v) => (JSON.parse(v) as { seq: number }).seq)).toEqual(range(1, 200));
  }, 120_000);
});

/** An SQLite outbox file with 200 pings on a fresh one-partition topic, and a way to run dispatcher processes on it. */
async function killSetUp() {
  const { transport, address } = await kafkaSetUp();
  const dir = mkdtempSync(join(tmpdir(), 'keiyaku-outbox-tx-kill-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'service.db');
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  const outbox = new SqliteOutbox(db);
  outbox.migrate();
  db.transaction(() => outbox.channel(outboxConformanceChannel(address)).writeMany(db, pings(1, 200)))();
  const pending = (): number => (db.prepare("SELECT count(*) AS n FROM keiyaku_outbox WHERE state = 'pending'").get() as { n: number }).n;

  const start = (env: Record<string, string>): Dispatcher => {
    let output = '';
    const child = spawn(
      process.execPath,
      ['--import', 'tsx/esm', '--conditions=keiyaku-source', join(import.meta.dirname, 'outbox-transaction-child.ts')],
      {
        env: {
          ...process.env,
          KAFKA_BROKERS: kafkaBrokers,
          OUTBOX_TX_NAMESPACE: transport.options.namespace!,
          OUTBOX_TX_FILE: file,
          OUTBOX_TX_ADDRESS: address,
          OUTBOX_TX_ID: 'instance-0',
          ...env,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    cleanups.push(() => {
      if (child.exitCode === null) child.kill('SIGKILL');
    });
    return { child, output: () => output };
  };
  return { transport, address, pending, start, close: () => db.close() };
}

interface Dispatcher {
  readonly child: ChildProcess;
  readonly output: () => string;
}

/** Starts a dispatcher (same id), waits until no row is pending, stops it gracefully. */
async function restartAndDrain(
  start: (env: Record<string, string>) => Dispatcher,
  pending: () => number,
  close: () => void,
): Promise<void> {
  const successor = start({});
  await waitFor(
    () => pending() === 0,
    () => `the restarted dispatcher published every row (output: ${successor.output()})`,
    60_000,
  );
  const stopped = new Promise((resolve) => successor.child.once('exit', resolve));
  successor.child.kill('SIGTERM');
  await stopped;
  close();
}

/** Writes a last marker (`end2`) and returns it, for a reader to read up to. */
async function endMarker(transport: KafkaTransport, address: string): Promise<string> {
  const producer = transport.producer();
  await producer.send([record(address, 'end2')]);
  await producer.close();
  return 'end2';
}
