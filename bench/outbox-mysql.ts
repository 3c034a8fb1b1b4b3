/**
 * The MySQL / MariaDB rows of `npm run bench:outbox` (run when MYSQL_URL is set), measured as the
 * PostgreSQL ones are, in a fresh database of their own (dropped after):
 *
 * 1. Write path: domain transactions (START TRANSACTION; INSERT the loan; COMMIT) on CONCURRENCY
 *    connections, against the same transactions that also write their BookBorrowed into the
 *    outbox, and against a plain second INSERT of the same row into a table with only a primary
 *    key (the floor), in interleaved rounds. Throughput ratio (goal ≥ 0.8×).
 * 2. Dispatch: rounds of pending rows drained by the hosted dispatcher to the memory transport,
 *    against publishing the same messages directly, interleaved (goals ≥ 0.5× and ≥ 50,000 msg/s).
 * 3. Wake-up latency on an idle outbox (MySQL has no LISTEN/NOTIFY): from a one-row transaction's
 *    COMMIT returning to the message reaching the memory transport, p50 and p99, for a dispatcher
 *    in the writing process (woken by the write) and for one in another process (its own pool and
 *    store: it finds the row by polling, every `pollIntervalMs`, default 250 ms).
 *
 * Run alone (MySQL rows only): `MYSQL_URL=… tsx --conditions=keiyaku-source bench/outbox-mysql.ts`.
 * Sizes: OUTBOX_BENCH_ROWS, OUTBOX_BENCH_CONCURRENCY, OUTBOX_BENCH_ROUNDS, OUTBOX_BENCH_DISPATCH_ROWS,
 * OUTBOX_BENCH_DISPATCH_ROUNDS as for PostgreSQL; OUTBOX_BENCH_LATENCY_SAMPLES (default 100).
 */
import { pathToFileURL } from 'node:url';
import mysql from 'mysql2/promise';
import { BookIntegrationEvents } from '../generated/index.js';
import { createMessaging } from '../runtime/index.js';
import { InMemoryTransport } from '../runtime/memory/index.js';
import { MysqlOutbox } from '../runtime/mysql/index.js';
import { createMysqlDatabase } from './fault-kit.js';
import { bookId, borrowed, directRound, dispatchRound } from './outbox-rounds.js';
import { verdict } from './stats.js';

export interface MysqlOutboxBenchOptions {
  readonly serverUrl: string;
  readonly rows: number;
  readonly concurrency: number;
  readonly rounds: number;
  readonly dispatchRows: number;
  readonly dispatchRounds: number;
  /** Write→publish samples per latency figure. */
  readonly latencySamples: number;
  readonly out: (line: string) => void;
}

/** The dispatcher's default batch size, printed with the figures. */
const BATCH = 500;

const percentile = (sorted: readonly number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;

export async function runMysqlOutboxBench(o: MysqlOutboxBenchOptions): Promise<void> {
  const database = await createMysqlDatabase(o.serverUrl, 'keiyaku_outbox_bench');
  const pool = mysql.createPool({ uri: database.url, connectionLimit: o.concurrency + 2 });
  try {
    const [[version]] = await pool.query<mysql.RowDataPacket[]>('SELECT VERSION() AS v');
    const server = String(version!['v']);
    await pool.query(
      'CREATE TABLE loans (copy_id VARCHAR(64) PRIMARY KEY, book_id VARCHAR(64) NOT NULL, member_id VARCHAR(64) NOT NULL, borrowed_at DATETIME NOT NULL)',
    );
    const outbox = new MysqlOutbox(pool);
    await outbox.migrate();
    const books = outbox.channel(BookIntegrationEvents, { key: (m) => m.bookId });
    await pool.query(
      `CREATE TABLE loan_messages (seq BIGINT AUTO_INCREMENT PRIMARY KEY, message_id VARCHAR(255) NOT NULL, channel VARCHAR(255) NOT NULL,
         address VARCHAR(1024) NOT NULL, partition_key VARCHAR(1024), lane SMALLINT NOT NULL, type VARCHAR(255) NOT NULL, payload LONGBLOB NOT NULL,
         headers LONGTEXT NOT NULL, created_at BIGINT NOT NULL) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`,
    );
    const sample = books.encoder.encode(borrowed(0));
    const floorValues = [
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
    const FLOOR = `INSERT INTO loan_messages (message_id, channel, address, partition_key, lane, type, payload, headers, created_at)
                   VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`;
    type Second = 'none' | 'floor' | 'outbox';

    /** Runs `count` transactions numbered from `from` on `concurrency` connections; returns seconds. */
    async function transactions(from: number, count: number, second: Second): Promise<number> {
      let next = from;
      const connections = await Promise.all(Array.from({ length: o.concurrency }, () => pool.getConnection()));
      const started = performance.now();
      await Promise.all(
        connections.map(async (connection) => {
          try {
            while (next < from + count) {
              const i = next++;
              await connection.query('START TRANSACTION');
              await connection.execute('INSERT INTO loans (copy_id, book_id, member_id, borrowed_at) VALUES (?, ?, ?, ?)', [
                `C-${i}`,
                bookId(i),
                'M-1001',
                '2026-11-02 10:15:00',
              ]);
              if (second === 'outbox') await books.write(connection, borrowed(i));
              else if (second === 'floor') await connection.execute(FLOOR, floorValues);
              await connection.query('COMMIT');
            }
          } finally {
            connection.release();
          }
        }),
      );
      return (performance.now() - started) / 1000;
    }

    await transactions(10_000_000, 300, 'none');
    await transactions(20_000_000, 300, 'outbox');
    await transactions(40_000_000, 300, 'floor');
    await pool.query('DELETE FROM keiyaku_outbox');
    const seconds = { none: 0, floor: 0, outbox: 0 };
    for (let round = 0; round < o.rounds; round++) {
      const from = Math.floor((o.rows * round) / o.rounds);
      const count = Math.floor((o.rows * (round + 1)) / o.rounds) - from;
      seconds.none += await transactions(30_000_000 + from, count, 'none');
      seconds.outbox += await transactions(from, count, 'outbox');
      seconds.floor += await transactions(50_000_000 + from, count, 'floor');
    }
    const rate = (s: number): number => (o.rows / s) | 0;
    const writeRatio = (rate(seconds.outbox) / rate(seconds.none)).toFixed(2);
    o.out(`outbox write: ${o.rows} domain transactions on ${o.concurrency} connections, MySQL (${server}), ${o.rounds} interleaved rounds`);
    o.out(
      `  without outbox: ${rate(seconds.none)} tx/s; with one outbox row each: ${rate(seconds.outbox)} tx/s; ratio ${writeRatio}x (goal >= 0.8x): ${verdict(writeRatio, 0.8)}`,
    );
    o.out(
      `  reference, a plain second INSERT of the same row (primary key only): ${rate(seconds.floor)} tx/s; ratio ${(rate(seconds.floor) / rate(seconds.none)).toFixed(2)}x; the outbox write is ${(rate(seconds.outbox) / rate(seconds.floor)).toFixed(2)}x of it`,
    );

    async function fill(list: readonly ReturnType<typeof borrowed>[]): Promise<void> {
      const connection = await pool.getConnection();
      try {
        for (let i = 0; i < list.length; i += 1000) {
          await connection.beginTransaction();
          await books.writeMany(connection, list.slice(i, i + 1000));
          await connection.commit();
        }
      } finally {
        connection.release();
      }
    }

    // The rows the write runs left, drained once as the dispatcher's warm-up.
    await dispatchRound(outbox, (await outbox.counts()).pending, new InMemoryTransport());
    const messages = Array.from({ length: o.dispatchRows }, (_, i) => borrowed(i));
    await directRound(messages.slice(0, 500), new InMemoryTransport());
    const memory = { dispatch: 0, direct: 0 };
    for (let round = 0; round < o.dispatchRounds; round++) {
      await fill(messages);
      memory.dispatch += await dispatchRound(outbox, o.dispatchRows, new InMemoryTransport());
      memory.direct += await directRound(messages, new InMemoryTransport());
    }
    const total = o.dispatchRows * o.dispatchRounds;
    const dispatchRate = (total / memory.dispatch) | 0;
    const directRate = (total / memory.direct) | 0;
    const dispatchRatio = (dispatchRate / directRate).toFixed(2);
    o.out(
      `outbox dispatch: ${o.dispatchRounds} rounds of ${o.dispatchRows} rows, MySQL to the memory transport (batches of ${BATCH} rows)`,
    );
    o.out(
      `  publishing directly: ${directRate} msg/s; dispatching from the outbox: ${dispatchRate} msg/s (goal >= 50000 msg/s: ${verdict(dispatchRate, 50_000)}); ratio ${dispatchRatio}x (goal >= 0.5x: ${verdict(dispatchRatio, 0.5)})`,
    );

    // Wake-up latency on an idle outbox: in the writing process, and from another process's store (polling only).
    for (const where of ['same process', 'another process'] as const) {
      const store = where === 'same process' ? outbox : new MysqlOutbox(database.url);
      const transport = new InMemoryTransport();
      const arrived = new Map<string, number>();
      const messaging = createMessaging({ transport });
      messaging.subscribe(BookIntegrationEvents, {
        groupId: 'bench-latency',
        handle(_message, context) {
          arrived.set(context.messageId, performance.now());
        },
      });
      messaging.host(store.dispatcher({ transport: messaging.transport }));
      await messaging.start();
      const latencies: number[] = [];
      try {
        for (let i = 0; i < o.latencySamples; i++) {
          // Idle first: the dispatcher has gone back to its polling sleep.
          await new Promise((resolve) => setTimeout(resolve, 300 + Math.random() * 200));
          const id = `latency-${where}-${i}`;
          const connection = await pool.getConnection();
          let committed: number;
          try {
            await connection.beginTransaction();
            await books.write(connection, borrowed(90_000_000 + i), { id });
            await connection.commit();
            committed = performance.now();
          } finally {
            connection.release();
          }
          while (!arrived.has(id)) await new Promise((resolve) => setTimeout(resolve, 0.5));
          latencies.push(arrived.get(id)! - committed);
        }
      } finally {
        await messaging.stop();
        if (store !== outbox) await store.close();
      }
      latencies.sort((a, b) => a - b);
      o.out(
        `outbox wake-up, ${where} (idle dispatcher, ${o.latencySamples} one-row transactions): COMMIT to published p50 ${percentile(latencies, 0.5).toFixed(1)} ms, p99 ${percentile(latencies, 0.99).toFixed(1)} ms`,
      );
    }
  } finally {
    await pool.end();
    await database.drop();
  }
}

/** The sizes from the environment, as bench/outbox.bench.ts reads them. */
export function mysqlOutboxBenchOptions(serverUrl: string, out: (line: string) => void): MysqlOutboxBenchOptions {
  return {
    serverUrl,
    rows: Number(process.env['OUTBOX_BENCH_ROWS'] ?? 20_000),
    concurrency: Number(process.env['OUTBOX_BENCH_CONCURRENCY'] ?? 4),
    rounds: Number(process.env['OUTBOX_BENCH_ROUNDS'] ?? 8),
    dispatchRows: Number(process.env['OUTBOX_BENCH_DISPATCH_ROWS'] ?? 20_000),
    dispatchRounds: Number(process.env['OUTBOX_BENCH_DISPATCH_ROUNDS'] ?? 3),
    latencySamples: Number(process.env['OUTBOX_BENCH_LATENCY_SAMPLES'] ?? 100),
    out,
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const url = process.env['MYSQL_URL'];
  if (!url) process.stdout.write('outbox on MySQL: skipped (MYSQL_URL is not set)\n');
  else await runMysqlOutboxBench(mysqlOutboxBenchOptions(url, (line) => process.stdout.write(`${line}\n`)));
}
