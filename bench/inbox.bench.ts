/**
 * `npm run bench:inbox`: what effectively-once costs, on a real PostgreSQL, in one run.
 *
 * 1. The inbox: ROWS records (4 partitions, so 4 lanes run at once) through a subscription whose
 *    handler writes one effect row in a transaction of its own (BEGIN; INSERT; COMMIT — what a
 *    handler that must be atomic does anyway), against an inbox subscription whose handler writes
 *    the same row in the inbox's transaction (which also records the message id). Both read the
 *    same records of the memory transport, so only the database work differs. Throughput ratio
 *    (goal ≥ 0.7×). The handler writing the row without any transaction (autocommit) is shown
 *    beside them for reference.
 * 2. Transactional dispatch (with KAFKA_BROKERS): the outbox dispatcher publishing ROWS rows,
 *    committed in one transaction, to Kafka in Kafka transactions (each with its note of row ids),
 *    against the same dispatcher publishing them plainly; timed from the commit of the rows to the
 *    last one published, after one warm-up row (topics, producers, the start-up note read).
 *    Throughput ratio (goal ≥ 0.7×).
 *
 * POSTGRES_URL, else scripts/postgres start on POSTGRES_PORT (default: a free port), stopped after.
 * A fresh database per run, dropped after. INBOX_BENCH_ROWS (default 10 000).
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { BookIntegrationEvents } from '../generated/index.js';
import { createMessaging, type InboxStore, inboxTransaction, type MessageContext } from '../runtime/index.js';
import { KafkaTransport } from '../runtime/kafka/index.js';
import { InMemoryTransport } from '../runtime/memory/index.js';
import { PostgresInboxStore, PostgresOutbox } from '../runtime/postgres/index.js';
import { borrowed } from './outbox-rounds.js';
import { benchDatabase } from './postgres-bench.js';
import { verdict } from './stats.js';

const ROWS = Number(process.env['INBOX_BENCH_ROWS'] ?? 10_000);
const ROUNDS = 3;
const out = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

const database = await benchDatabase('keiyaku_inbox_bench');
const pool = new pg.Pool({ connectionString: database.url, max: 8 });

type Mode = 'inbox' | 'transaction' | 'autocommit';
const INSERT = 'INSERT INTO effects (group_id, message_id, copy_id) VALUES ($1, $2, $3)';

try {
  await pool.query('CREATE TABLE effects (group_id text NOT NULL, message_id text NOT NULL, copy_id text NOT NULL)');
  const inbox = new PostgresInboxStore(pool);
  await inbox.migrate();

  // The records, once: every round reads them with a group of its own.
  const transport = new InMemoryTransport({ defaultPartitions: 4, idleWaitMs: 5 });
  const source = createMessaging({ transport });
  const publisher = source.publisher(BookIntegrationEvents, { key: (m) => m.bookId });
  await publisher.publishMany(Array.from({ length: ROWS }, (_, i) => borrowed(i)));

  /** Handles every record once in `mode` with a new group; returns records per second. */
  async function round(mode: Mode, n: number): Promise<number> {
    const groupId = `bench.${mode}.${n}`;
    const messaging = createMessaging({ transport, shutdownBudgetMs: 5_000 });
    const write = async (copyId: string, context: MessageContext): Promise<void> => {
      if (mode === 'inbox') {
        await inboxTransaction(inbox as InboxStore<pg.PoolClient>, context).query(INSERT, [groupId, context.messageId, copyId]);
      } else if (mode === 'autocommit') {
        await pool.query(INSERT, [groupId, context.messageId, copyId]);
      } else {
        const client = await pool.connect();
        try {
          await client.query('BEGIN');
          await client.query(INSERT, [groupId, context.messageId, copyId]);
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK');
          throw error;
        } finally {
          client.release();
        }
      }
    };
    const subscription = messaging.subscribe(
      BookIntegrationEvents,
      { groupId, handle: (m, context) => write(m.copyId, context) },
      { batchSize: 500, ...(mode === 'inbox' ? { inbox } : {}) },
    );
    const started = performance.now();
    await messaging.start();
    while (subscription.health().processed < ROWS) await new Promise((resolve) => setTimeout(resolve, 2));
    const seconds = (performance.now() - started) / 1000;
    await messaging.stop();
    return ROWS / seconds;
  }

  await round('transaction', -1); // warm-up: connections, plans
  await round('inbox', -1);
  const rates: Record<Mode, number[]> = { inbox: [], transaction: [], autocommit: [] };
  // Alternating rounds, so a noisy neighbour on the machine hits each mode alike.
  for (let n = 0; n < ROUNDS; n++)
    for (const mode of ['transaction', 'inbox', 'autocommit'] as const) rates[mode].push(await round(mode, n));
  const total = (mode: Mode) => (ROWS * ROUNDS) / rates[mode].reduce((sum, rate) => sum + ROWS / rate, 0);
  const ratio = (total('inbox') / total('transaction')).toFixed(2);
  const effects = Number(
    (await pool.query<{ n: string }>("SELECT count(*) AS n FROM effects WHERE group_id LIKE 'bench.inbox.%'")).rows[0]!.n,
  );
  out(`inbox: ${ROWS} records × ${ROUNDS} rounds, 4 partitions, PostgreSQL; one effect row per record`);
  out(
    `  handler in its own transaction: ${total('transaction') | 0} msg/s; in the inbox's transaction: ${total('inbox') | 0} msg/s; ratio ${ratio}x (goal >= 0.7x: ${verdict(ratio, 0.7)})`,
  );
  out(`  for reference, the handler without a transaction (autocommit): ${total('autocommit') | 0} msg/s`);
  if (effects !== ROWS * (ROUNDS + 1)) throw new Error(`the inbox rounds wrote ${effects} effect rows, not ${ROWS * (ROUNDS + 1)}`);
  await source.stop();

  const brokers = process.env['KAFKA_BROKERS'];
  if (brokers === undefined || brokers === '')
    out('transactional dispatch: skipped (set KAFKA_BROKERS to a broker, e.g. scripts/kafka start)');
  else await dispatch(brokers.split(','));
} finally {
  await pool.end();
  await database.close();
}

/** Part 2: the same pending rows dispatched to Kafka plainly and in transactions, alternating. */
async function dispatch(brokers: string[]): Promise<void> {
  const outbox = new PostgresOutbox(pool);
  await outbox.migrate();
  const books = outbox.channel(BookIntegrationEvents, { key: (m) => m.bookId });
  const rates = { plain: [] as number[], transactional: [] as number[] };
  for (let n = 0; n < ROUNDS; n++)
    for (const transactional of [false, true]) {
      const write = async (count: number): Promise<void> => {
        const client = await pool.connect();
        try {
          await client.query('BEGIN');
          await books.writeMany(
            client,
            Array.from({ length: count }, (_, i) => borrowed(i)),
          );
          await client.query('COMMIT');
        } finally {
          client.release();
        }
      };
      const transport = new KafkaTransport({ brokers, namespace: `inbox-bench-${randomUUID().slice(0, 8)}` });
      const messaging = createMessaging({ transport, shutdownBudgetMs: 10_000 });
      const dispatcher = messaging.host(
        outbox.dispatcher(
          { transport },
          {
            pollIntervalMs: 20,
            healthIntervalMs: 60_000,
            ...(transactional ? { transactional: { transactionalId: `inbox-bench-${n}` } } : {}),
          },
        ),
      );
      // One-off work outside the timed window, alike for both: the topic, the producer, and (in
      // transactions) the notes topic and the last note read at start. One row takes it all.
      await messaging.start();
      await write(1);
      while (dispatcher.status().published < 1) await new Promise((resolve) => setTimeout(resolve, 5));
      const started = performance.now();
      await write(ROWS);
      while (dispatcher.status().published < ROWS + 1) await new Promise((resolve) => setTimeout(resolve, 2));
      const seconds = (performance.now() - started) / 1000;
      await messaging.stop();
      await transport.close();
      rates[transactional ? 'transactional' : 'plain'].push(ROWS / seconds);
    }
  const total = (rs: number[]) => (ROWS * rs.length) / rs.reduce((sum, rate) => sum + ROWS / rate, 0);
  const ratio = (total(rates.transactional) / total(rates.plain)).toFixed(2);
  out(`transactional dispatch: ${ROWS} outbox rows × ${ROUNDS} rounds to Kafka (batches of 500)`);
  out(
    `  plain: ${total(rates.plain) | 0} msg/s; in Kafka transactions: ${total(rates.transactional) | 0} msg/s; ratio ${ratio}x (goal >= 0.7x: ${verdict(ratio, 0.7)})`,
  );
}
