/**
 * `npm run bench:outbox`: what the transactional outbox costs, on a real PostgreSQL, in one run.
 *
 * 1. Write path: ROWS domain transactions (BEGIN; INSERT the loan; COMMIT) from CONCURRENCY
 *    clients, against the same transactions that also write their BookBorrowed into the outbox
 *    (validated, encoded, one row each). Throughput ratio (goal ≥ 0.8×). No dispatcher runs
 *    meanwhile, so none is idle and the insert trigger sends no NOTIFY (as with a busy dispatcher).
 *    Reference line: the same transactions with a plain second INSERT of the same row (already
 *    encoded, same columns and values) into a table with only a primary key, no trigger: what any
 *    second statement costs, the floor the outbox write is compared with.
 * 2. Dispatch: rounds of pending rows drained by the hosted dispatcher to the memory transport,
 *    against publishing the same messages directly with a publisher on it, interleaved (goals:
 *    ≥ 0.5× and ≥ 50,000 msg/s); then the same to Kafka (KAFKA_BROKERS, kafkajs driver, goal ≥ 0.8×;
 *    skipped with the reason printed when it is not set).
 *
 * 3. With MYSQL_URL: the same write and dispatch ratios on MySQL / MariaDB, and the wake-up latency
 *    of an idle MySQL outbox (no LISTEN/NOTIFY there), from bench/outbox-mysql.ts.
 *
 * POSTGRES_URL, else scripts/postgres start on POSTGRES_PORT (default: a free port), stopped after.
 * A fresh database per run, dropped after. OUTBOX_BENCH_ROWS (default 20 000), OUTBOX_BENCH_CONCURRENCY (default 4),
 * OUTBOX_BENCH_ROUNDS (default 8); OUTBOX_BENCH_BATCH, the dispatcher's batch size (default 500, its own default).
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Kafka, logLevel } from 'kafkajs';
import pg from 'pg';
import { BookIntegrationEvents } from '../generated/index.js';
import { createKafkaTransport } from '../runtime/kafka/index.js';
import { InMemoryTransport } from '../runtime/memory/index.js';
import { PostgresOutbox } from '../runtime/postgres/index.js';
import { mysqlOutboxBenchOptions, runMysqlOutboxBench } from './outbox-mysql.js';
import { bookId, borrowed, directRound, dispatchRound } from './outbox-rounds.js';
import { benchDatabase } from './postgres-bench.js';
import { verdict } from './stats.js';

const ROWS = Number(process.env['OUTBOX_BENCH_ROWS'] ?? 20_000);
const CONCURRENCY = Number(process.env['OUTBOX_BENCH_CONCURRENCY'] ?? 4);
const DISPATCH_ROWS = Number(process.env['OUTBOX_BENCH_DISPATCH_ROWS'] ?? 20_000);
const DISPATCH_ROUNDS = Number(process.env['OUTBOX_BENCH_DISPATCH_ROUNDS'] ?? 3);
const KAFKA_ROWS = Number(process.env['OUTBOX_BENCH_KAFKA_ROWS'] ?? 20_000);
const KAFKA_ROUNDS = Number(process.env['OUTBOX_BENCH_KAFKA_ROUNDS'] ?? 3);
/** The dispatcher's batch size: its default (500) unless OUTBOX_BENCH_BATCH says another. */
const BATCH = Number(process.env['OUTBOX_BENCH_BATCH'] ?? 500);
const out = (line: string): void => {
  process.stdout.write(`${line}\n`);
};
const database = await benchDatabase('keiyaku_outbox_bench');
const pool = new pg.Pool({ connectionString: database.url, max: CONCURRENCY + 2 });

/**
 * CPU time (ms) of the PostgreSQL backends serving the bench, read from /proc when the server runs
 * on this machine (Linux); undefined otherwise. Wall-clock throughput on a shared machine swings
 * with its neighbours; the CPU each transaction took swings much less.
 */
const serverLocal = ['127.0.0.1', 'localhost', '::1', '[::1]'].includes(new URL(database.url).hostname);
const backends = new Set<number>();
const backendOf = new WeakMap<object, number>();
function backendCpuMs(): number | undefined {
  if (!serverLocal) return undefined;
  let ms = 0;
  try {
    for (const pid of backends) {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      ms += (Number(fields[11]) + Number(fields[12])) * 10; // utime + stime, in clock ticks of 10 ms
    }
  } catch {
    return undefined;
  }
  return ms;
}

try {
  await pool.query(
    'CREATE TABLE loans (copy_id text PRIMARY KEY, book_id text NOT NULL, member_id text NOT NULL, borrowed_at timestamptz NOT NULL)',
  );
  const outbox = new PostgresOutbox(pool);
  await outbox.migrate();
  const books = outbox.channel(BookIntegrationEvents, { key: (m) => m.bookId });
  // The floor: a plain table of the outbox's written columns, a primary key and nothing else.
  await pool.query(
    `CREATE TABLE loan_messages (seq bigserial PRIMARY KEY, message_id text NOT NULL, channel text NOT NULL, address text NOT NULL,
       partition_key text, lane smallint NOT NULL, type text NOT NULL, payload bytea NOT NULL, headers jsonb NOT NULL, created_at bigint NOT NULL)`,
  );
  const sample = books.encoder.encode(borrowed(0));
  const sampleValues = [
    sample.messageId,
    sample.channel,
    sample.address,
    sample.key ?? null,
    7,
    sample.type,
    Buffer.from(sample.payload),
    JSON.stringify(sample.headers),
    sample.createdAt,
  ];
  const floorInsert = {
    name: 'bench_floor_insert',
    text: `INSERT INTO loan_messages (message_id, channel, address, partition_key, lane, type, payload, headers, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    values: sampleValues,
  };
  type Second = 'none' | 'floor' | 'outbox';

  /** CPU time (ms) of the last run of {@link transactions}: this process's, and its backends' (undefined when unreadable). */
  let lastCpu: { node: number; server: number | undefined } = { node: 0, server: undefined };

  /** Runs `count` transactions numbered from `from` on CONCURRENCY clients; returns transactions per second. */
  async function transactions(from: number, count: number, second: Second): Promise<number> {
    let next = from;
    const clients = await Promise.all(Array.from({ length: CONCURRENCY }, () => pool.connect()));
    for (const client of clients)
      if (!backendOf.has(client)) {
        const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
        backendOf.set(client, pid);
        backends.add(pid);
      }
    const nodeBefore = process.cpuUsage();
    const serverBefore = backendCpuMs();
    const started = performance.now();
    await Promise.all(
      clients.map(async (client) => {
        try {
          while (next < from + count) {
            const i = next++;
            await client.query('BEGIN');
            await client.query('INSERT INTO loans (copy_id, book_id, member_id, borrowed_at) VALUES ($1, $2, $3, $4)', [
              `C-${i}`,
              bookId(i),
              'M-1001',
              '2026-11-02T10:15:00Z',
            ]);
            if (second === 'outbox') await books.write(client, borrowed(i));
            else if (second === 'floor') await client.query(floorInsert);
            await client.query('COMMIT');
          }
        } finally {
          client.release();
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const node = process.cpuUsage(nodeBefore);
    const serverAfter = backendCpuMs();
    lastCpu = {
      node: (node.user + node.system) / 1000,
      server: serverBefore === undefined || serverAfter === undefined ? undefined : serverAfter - serverBefore,
    };
    return count / seconds;
  }

  // Warm-up of both paths (connections, plans, JIT), then the measured runs.
  await transactions(10_000_000, 500, 'none');
  await transactions(20_000_000, 500, 'outbox');
  await transactions(40_000_000, 500, 'floor');
  await pool.query("DELETE FROM keiyaku_outbox; DELETE FROM loans WHERE copy_id LIKE 'C-_0%'");
  // Alternating rounds of each (OUTBOX_BENCH_ROUNDS, default 8), so a noisy neighbour on the machine hits all alike.
  const ROUNDS = Number(process.env['OUTBOX_BENCH_ROUNDS'] ?? 8);
  let plainSeconds = 0;
  let floorSeconds = 0;
  let outboxSeconds = 0;
  const cpu = { none: { node: 0, server: 0 }, floor: { node: 0, server: 0 }, outbox: { node: 0, server: 0 } };
  let serverCpuRead = true;
  const addCpu = (second: Second): void => {
    cpu[second].node += lastCpu.node;
    if (lastCpu.server === undefined) serverCpuRead = false;
    else cpu[second].server += lastCpu.server;
  };
  for (let round = 0; round < ROUNDS; round++) {
    const from = Math.floor((ROWS * round) / ROUNDS);
    const count = Math.floor((ROWS * (round + 1)) / ROUNDS) - from;
    plainSeconds += count / (await transactions(30_000_000 + from, count, 'none'));
    addCpu('none');
    outboxSeconds += count / (await transactions(from, count, 'outbox'));
    addCpu('outbox');
    floorSeconds += count / (await transactions(50_000_000 + from, count, 'floor'));
    addCpu('floor');
  }
  const plainRate = (ROWS / plainSeconds) | 0;
  const floorRate = (ROWS / floorSeconds) | 0;
  const outboxRate = (ROWS / outboxSeconds) | 0;
  const pending = (await outbox.counts()).pending;
  const writeRatio = (outboxRate / plainRate).toFixed(2);
  out(`outbox write: ${ROWS} domain transactions on ${CONCURRENCY} clients, PostgreSQL, ${ROUNDS} interleaved rounds`);
  out(
    `  without outbox: ${plainRate} tx/s; with one outbox row each: ${outboxRate} tx/s; ratio ${writeRatio}x (goal >= 0.8x): ${verdict(writeRatio, 0.8)}`,
  );
  out(
    `  reference, a plain second INSERT of the same row (no trigger, primary key only): ${floorRate} tx/s; ratio ${(floorRate / plainRate).toFixed(2)}x; the outbox write is ${(outboxRate / floorRate).toFixed(2)}x of it`,
  );
  // CPU per transaction: this process (the clients) and, when readable, the server backends.
  const perTx = (ms: number): string => ((ms * 1000) / ROWS).toFixed(0);
  const total = (c: { node: number; server: number }): number => c.node + (serverCpuRead ? c.server : 0);
  const describe = (c: { node: number; server: number }): string =>
    serverCpuRead ? `${perTx(total(c))} us (clients ${perTx(c.node)}, server ${perTx(c.server)})` : `${perTx(c.node)} us (clients only)`;
  out(
    `  CPU per transaction${serverCpuRead ? '' : ' (server backends not readable here)'}: without ${describe(cpu.none)}; with the outbox row ${describe(cpu.outbox)}; with the plain second INSERT ${describe(cpu.floor)}`,
  );
  out(
    `  CPU ratio (what throughput would be if CPU were all that limited it): outbox ${(total(cpu.none) / total(cpu.outbox)).toFixed(2)}x, plain second INSERT ${(total(cpu.none) / total(cpu.floor)).toFixed(2)}x`,
  );
  // The rows the write runs left: drained once, as the dispatcher's warm-up (connections, plans, JIT).
  await dispatchRound(outbox, pending, new InMemoryTransport(), BATCH);

  // Dispatch to the memory transport, against publishing the same messages directly, in interleaved rounds.
  const messages = Array.from({ length: Math.max(DISPATCH_ROWS, KAFKA_ROWS) }, (_, i) => borrowed(i));
  const memoryMessages = messages.slice(0, DISPATCH_ROWS);
  const memory = { dispatch: 0, direct: 0 };
  await directRound(messages.slice(0, 500), new InMemoryTransport());
  for (let round = 0; round < DISPATCH_ROUNDS; round++) {
    await fill(memoryMessages);
    memory.dispatch += await dispatchRound(outbox, DISPATCH_ROWS, new InMemoryTransport(), BATCH);
    memory.direct += await directRound(memoryMessages, new InMemoryTransport());
  }
  const memoryDispatch = ((DISPATCH_ROWS * DISPATCH_ROUNDS) / memory.dispatch) | 0;
  const memoryDirect = ((DISPATCH_ROWS * DISPATCH_ROUNDS) / memory.direct) | 0;
  const memoryRatio = (memoryDispatch / memoryDirect).toFixed(2);
  out(`outbox dispatch: ${DISPATCH_ROUNDS} rounds of ${DISPATCH_ROWS} rows, PostgreSQL to the memory transport (batches of ${BATCH} rows)`);
  out(
    `  publishing directly: ${memoryDirect} msg/s; dispatching from the outbox: ${memoryDispatch} msg/s (goal >= 50000 msg/s: ${verdict(memoryDispatch, 50_000)}); ratio ${memoryRatio}x (goal >= 0.5x: ${verdict(memoryRatio, 0.5)})`,
  );

  // Dispatch to Kafka, against publishing the same messages directly to Kafka (one transport, one process).
  const brokers = process.env['KAFKA_BROKERS'];
  if (!brokers) out('outbox dispatch to Kafka: skipped (KAFKA_BROKERS is not set)');
  else {
    const kafkaMessages = messages.slice(0, KAFKA_ROWS);
    const namespace = `bench-outbox-${randomUUID().slice(0, 8)}`;
    const retry = { retries: 5, initialRetryTime: 100, maxRetryTime: 2_000 };
    const kafka = createKafkaTransport({ brokers: brokers.split(','), namespace, retry });
    const topic = kafka.destination(BookIntegrationEvents.address, BookIntegrationEvents.bindings);
    const admin = new Kafka({ brokers: brokers.split(','), clientId: 'bench-outbox-admin', logLevel: logLevel.NOTHING, retry }).admin();
    await admin.connect();
    try {
      await admin.createTopics({ topics: [{ topic, numPartitions: 6, replicationFactor: 1 }], waitForLeaders: true });
      // Warm-up of both paths (connections, metadata), then interleaved rounds.
      await directRound(kafkaMessages.slice(0, 500), kafka);
      await fill(kafkaMessages.slice(0, 500));
      await dispatchRound(outbox, 500, kafka, BATCH);
      const times = { dispatch: 0, direct: 0 };
      for (let round = 0; round < KAFKA_ROUNDS; round++) {
        await fill(kafkaMessages);
        times.dispatch += await dispatchRound(outbox, KAFKA_ROWS, kafka, BATCH);
        times.direct += await directRound(kafkaMessages, kafka);
      }
      const kafkaDispatch = ((KAFKA_ROWS * KAFKA_ROUNDS) / times.dispatch) | 0;
      const kafkaDirect = ((KAFKA_ROWS * KAFKA_ROUNDS) / times.direct) | 0;
      const kafkaRatio = (kafkaDispatch / kafkaDirect).toFixed(2);
      out(
        `outbox dispatch to Kafka: ${KAFKA_ROUNDS} rounds of ${KAFKA_ROWS} rows, PostgreSQL to Kafka (kafkajs, acks=all, 6 partitions; batches of ${BATCH} rows)`,
      );
      out(
        `  publishing directly: ${kafkaDirect} msg/s; dispatching from the outbox: ${kafkaDispatch} msg/s; ratio ${kafkaRatio}x (goal >= 0.8x: ${verdict(kafkaRatio, 0.8)})`,
      );
    } finally {
      await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
      await admin.disconnect();
      await kafka.close();
    }
  }

  /** Writes `list` into the outbox as pending rows (transactions of 1000 rows; not timed). */
  async function fill(list: readonly ReturnType<typeof borrowed>[]): Promise<void> {
    const client = await pool.connect();
    try {
      for (let i = 0; i < list.length; i += 1000) {
        await client.query('BEGIN');
        await books.writeMany(client, list.slice(i, i + 1000));
        await client.query('COMMIT');
      }
    } finally {
      client.release();
    }
  }
} finally {
  await pool.end();
  await database.close();
}

if (process.env['MYSQL_URL']) await runMysqlOutboxBench(mysqlOutboxBenchOptions(process.env['MYSQL_URL'], out));
else out('outbox on MySQL: skipped (MYSQL_URL is not set)');
