/**
 * The processes of bench/exactly-once-fault.ts, one role each (the first argument):
 *
 * - `writer`: service A. Writes EO_COUNT domain changes (a loan row and its outbox row, ids
 *   `in-<i>`, in transactions of ten) on PostgreSQL (EO_A_URL), spread over EO_WRITE_MS;
 *   prints `wrote <n>` now and then and `done` at the end.
 * - `dispatcher`: A's outbox dispatcher to topic `in` (namespace EO_IN), in Kafka transactions
 *   under the transactional id EO_TRANSACTIONAL_ID (the same one after every restart).
 * - `service-b`: service B. An inbox subscription to `in` (read_committed) whose handler writes one
 *   effect row and one outbox row (id `out-<message id>`) in the inbox's transaction, and B's own
 *   transactional dispatcher to topic `out` (namespace EO_OUT). Its store is EO_B_STORE: a
 *   PostgreSQL URL, or a SQLite file holding the inbox, the effects and the outbox. Every 20th
 *   message it prints `tx` from inside the open transaction and pauses 30 ms there, so a SIGKILL
 *   sent on that line lands mid-batch with the transaction open.
 *
 * Each prints `started` once it works, and the dispatchers print the steps of their sends (see
 * `instrumentedTransport` in bench/fault-kit.ts). SIGTERM stops a role cleanly; SIGKILL is the fault.
 */
import Database from 'better-sqlite3';
import pg from 'pg';
import { BookBorrowed, BookIntegrationEvents, type BookIntegrationEventsMessage } from '../generated/index.js';
import { createMessaging, type InboxStore, inboxTransaction, type Logger, type MessageContext } from '../runtime/index.js';
import { KafkaTransport } from '../runtime/kafka/index.js';
import { PostgresInboxStore, PostgresOutbox } from '../runtime/postgres/index.js';
import { SqliteInboxStore, SqliteOutbox } from '../runtime/sqlite/index.js';
import { instrumentedTransport, sleep } from './fault-kit.js';

const env = (name: string): string => {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`exactly-once child: ${name} is not set`);
  return value;
};
const print = (line: string): void => void process.stdout.write(`${line}\n`);
/** Only what goes wrong, on stderr (the parent shows it when a child fails). */
const logger: Logger = {
  debug: () => {},
  info: () => {},
  warn: (m, f) => void process.stderr.write(`warn ${m} ${JSON.stringify(f ?? {})}\n`),
  error: (m, f) => void process.stderr.write(`error ${m} ${JSON.stringify(f ?? {})}\n`),
};
const bookId = (k: number): string => `6f1c2b8e-3a4d-4e5f-9a0b-${String(k).padStart(12, '0')}`;
const KEYS = 200;
const ROWS_PER_TRANSACTION = 10;
/** A blocking pause, for the synchronous SQLite transaction. */
const block = (ms: number): void => void Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

function kafka(namespace: string): KafkaTransport {
  return new KafkaTransport({
    brokers: env('KAFKA_BROKERS').split(','),
    clientId: `exactly-once-${process.argv[2]}`,
    namespace,
    isolation: 'read_committed',
    sessionTimeoutMs: 6_000,
    heartbeatIntervalMs: 500,
    maxWaitTimeInMs: 100,
    rebuildAfterMs: 3_000,
    maxRebuildIntervalMs: 5_000,
    retry: { retries: 5, initialRetryTime: 100, maxRetryTime: 1_000 },
    client: { connectionTimeout: 1_000, requestTimeout: 5_000 },
    logger,
  });
}

const dispatcherOptions = {
  batchSize: 200,
  pollIntervalMs: 100,
  renewIntervalMs: 500,
  retry: { initialMs: 100, maxMs: 1_000 },
  maxAttempts: 1_000,
} as const;
/** Each dispatcher keeps its transactional id across restarts: the restarted one fences its predecessor and aborts what it left open. */
const transactional = () => ({ ...dispatcherOptions, transactional: { transactionalId: env('EO_TRANSACTIONAL_ID') } });

function onTerm(stop: () => Promise<unknown>): void {
  process.on('SIGTERM', () => {
    void stop().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`stopping failed: ${String(error)}\n`);
        process.exit(1);
      },
    );
  });
}

async function writer(): Promise<void> {
  const count = Number(env('EO_COUNT'));
  const spreadMs = Number(env('EO_WRITE_MS'));
  const pool = new pg.Pool({ connectionString: env('EO_A_URL'), max: 2 });
  const books = new PostgresOutbox(pool).channel(BookIntegrationEvents);
  print('started');
  const began = Date.now();
  for (let from = 0, t = 0; from < count; from += ROWS_PER_TRANSACTION, t++) {
    const ids = Array.from({ length: Math.min(ROWS_PER_TRANSACTION, count - from) }, (_, j) => from + j);
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('INSERT INTO loans (copy_id, book_id) SELECT unnest($1::text[]), $2', [
        ids.map((i) => `C-${i}`),
        bookId(t % KEYS),
      ]);
      await books.writeMany(
        client,
        ids.map((i) => [loan(i, t % KEYS), { id: `in-${i}`, key: bookId(t % KEYS) }] as const),
      );
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    const written = from + ids.length;
    if (written % 1_000 < ROWS_PER_TRANSACTION || written === count) print(`wrote ${written}`);
    // On schedule: the stream lasts about EO_WRITE_MS, so the kills land while it flows.
    const ahead = (written / count) * spreadMs - (Date.now() - began);
    if (ahead > 5) await sleep(ahead);
  }
  await pool.end();
  print('done');
}

function loan(i: number, k: number) {
  return BookBorrowed.create({
    bookId: bookId(k),
    copyId: `C-${i}`,
    borrower: { memberId: 'M-1001' },
    borrowedAt: '2026-11-02T10:15:00Z',
    dueAt: '2026-11-23T10:15:00Z',
    channel: 'desk',
  });
}

async function dispatcher(): Promise<void> {
  const outbox = new PostgresOutbox(env('EO_A_URL'), { leaseMs: 2_000 });
  outbox.channel(BookIntegrationEvents);
  const transport = instrumentedTransport(kafka(env('EO_IN')), print);
  const running = outbox.dispatcher({ transport, logger }, transactional());
  onTerm(async () => {
    await running.stop(AbortSignal.timeout(10_000));
    await transport.close();
    await outbox.close();
  });
  await running.start();
  print('started');
}

/** B's handler: one effect row and one outbox row, in the inbox's transaction. */
type Effect = (message: BookIntegrationEventsMessage, context: MessageContext) => void | Promise<void>;

interface ServiceB {
  readonly inbox: InboxStore;
  readonly effect: Effect;
  readonly dispatcher: PostgresOutbox | SqliteOutbox;
  close(): Promise<void>;
}

function postgresB(url: string): ServiceB {
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  pool.on('error', () => {});
  const inbox = new PostgresInboxStore(pool);
  const outbox = new PostgresOutbox(pool, { leaseMs: 2_000 });
  const out = outbox.channel(BookIntegrationEvents);
  let handled = 0;
  const effect: Effect = async (message, context) => {
    const client = inboxTransaction(inbox, context); // inside BEGIN … COMMIT, with the inbox row
    await client.query('INSERT INTO effects (copy_id, message_id) VALUES ($1, $2)', [message.copyId, context.messageId]);
    await out.write(client, message, { id: `out-${context.messageId}`, key: message.bookId });
    if (++handled % 20 === 0) {
      print('tx');
      await sleep(30);
    }
  };
  return { inbox, effect, dispatcher: outbox, close: () => outbox.close().then(() => pool.end()) };
}

function sqliteB(file: string): ServiceB {
  const db = new Database(file, { timeout: 10_000 });
  db.pragma('journal_mode = WAL');
  const inbox = new SqliteInboxStore(db);
  const outbox = new SqliteOutbox(db, { leaseMs: 2_000 });
  const out = outbox.channel(BookIntegrationEvents);
  const insert = db.prepare('INSERT INTO effects (copy_id, message_id) VALUES (?, ?)');
  let handled = 0;
  const effect: Effect = (message, context) => {
    const tx = inboxTransaction(inbox, context); // the Database, inside the inbox's transaction
    insert.run(message.copyId, context.messageId);
    out.write(tx, message, { id: `out-${context.messageId}`, key: message.bookId });
    if (++handled % 20 === 0) {
      print('tx');
      block(30);
    }
  };
  return { inbox, effect, dispatcher: outbox, close: async () => void db.close() };
}

async function serviceB(): Promise<void> {
  const store = env('EO_B_STORE');
  const b = store.startsWith('postgres') ? postgresB(store) : sqliteB(store);
  const inbound = kafka(env('EO_IN'));
  const messaging = createMessaging({ transport: inbound, logger, shutdownBudgetMs: 10_000 });
  messaging.subscribe(
    BookIntegrationEvents,
    { groupId: 'service-b.effects', handle: (message, context) => b.effect(message, context) },
    { inbox: b.inbox, batchSize: 100, retry: { initialMs: 100, maxMs: 1_000 } },
  );
  // Tagged, not paused: B is killed on its handler's lines, wherever its dispatcher is.
  const outbound = instrumentedTransport(kafka(env('EO_OUT')), print, 0);
  const running = b.dispatcher.dispatcher({ transport: outbound, logger }, transactional());
  onTerm(async () => {
    await messaging.stop();
    await running.stop(AbortSignal.timeout(10_000));
    await outbound.close();
    await b.close();
  });
  await running.start();
  await messaging.start();
  print('started');
}

const roles: Record<string, () => Promise<void>> = { writer, dispatcher, 'service-b': serviceB };
const role = roles[process.argv[2] ?? ''];
if (role === undefined) throw new Error(`exactly-once child: unknown role ${process.argv[2]} (writer, dispatcher, service-b)`);
try {
  await role();
} catch (error) {
  process.stderr.write(`exactly-once ${process.argv[2]} failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
}
