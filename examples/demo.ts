/**
 * `npm run demo`: two bounded contexts talking through the generated contract over the
 * in-memory transport, with the library's outbox and the dead letters in SQLite (the embedded
 * defaults); `POSTGRES_URL=… npm run demo` keeps the library's events and outbox in PostgreSQL,
 * `MYSQL_URL=… npm run demo` in MySQL or MariaDB.
 *
 * The library writes each domain change and the contract messages it causes (through the
 * mapper) in one transaction of its own database; the outbox dispatcher publishes them.
 * Inventory keeps shelf counts in its own SQLite database, in an inbox (a redelivered message is
 * skipped), and blocks on a failure until it recovers; notifications parks
 * a poison message under a dead-letter policy and moves on; a search index retries later on a
 * delay tier (`retryLater`) while its partition keeps moving.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KafkaTransport } from '@keiyaku/kafka';
import { MysqlOutbox } from '@keiyaku/mysql';
import { PostgresOutbox } from '@keiyaku/postgres';
import { createMessaging, payloadText, RETRY_HEADERS } from '@keiyaku/runtime';
import { InMemoryTransport } from '@keiyaku/runtime/memory';
import { SqliteDeadLetterStore, SqliteInboxStore, SqliteOutbox } from '@keiyaku/sqlite';
import Database from 'better-sqlite3';
import { ContractMocks, compileContract } from 'keiyaku';
import mysql from 'mysql2/promise';
import pg from 'pg';
import {
  BookBorrowed,
  BookIntegrationEvents,
  type BookIntegrationEventsHandler,
  CopiesCounted,
  CopiesRequested,
  LookUpCopies,
} from '../generated/index.js';
import { BookAvailability, type InventoryStore } from './inventory/book-availability.js';
import { type BookEvent, type BookState, decide, evolve } from './library/book.js';
import { bookMapper } from './library/book-mapper.js';
import { LateFeeNotices } from './notifications/late-fees.js';
import { serveUntilInterrupted } from './serve.js';

const say = (line = ''): void => {
  process.stdout.write(`${line}\n`);
};

async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`demo: timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const dir = mkdtempSync(join(tmpdir(), 'keiyaku-demo-'));
const deadLetterFile = join(dir, 'dead-letters.db');

/**
 * Inventory's own database (SQLite): copies on the shelf per book, and the inbox its handler runs
 * in, so a count and the message id that changed it commit together. It can be switched off.
 */
class Shelf implements InventoryStore<Database.Database> {
  readonly db = new Database(join(dir, 'inventory.db'));
  readonly inbox = new SqliteInboxStore(this.db);
  available = true;

  constructor() {
    this.db.pragma('journal_mode = WAL');
    this.db.exec('CREATE TABLE IF NOT EXISTS shelf (book_id TEXT PRIMARY KEY, copies INTEGER NOT NULL)');
    this.inbox.migrate();
  }

  adjust(bookId: string, delta: number, tx: Database.Database): number {
    if (!this.available) throw new Error('inventory database unavailable');
    tx.prepare('INSERT INTO shelf (book_id, copies) VALUES (?, 3) ON CONFLICT (book_id) DO NOTHING').run(bookId);
    return (tx.prepare('UPDATE shelf SET copies = copies + ? WHERE book_id = ? RETURNING copies').get(delta, bookId) as { copies: number })
      .copies;
  }

  copies(bookId: string): number | undefined {
    return (this.db.prepare('SELECT copies FROM shelf WHERE book_id = ?').get(bookId) as { copies: number } | undefined)?.copies;
  }
}

const bookId = '6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b';
let book: BookState | undefined;
let version = 0;
const recorded: BookEvent[] = [];

/**
 * The library's own database: its book events (the domain change) and the outbox, written in
 * one transaction. SQLite by default; PostgreSQL when POSTGRES_URL is set, MySQL when MYSQL_URL is.
 */
interface LibraryDatabase {
  readonly name: string;
  readonly outbox: SqliteOutbox | PostgresOutbox | MysqlOutbox;
  /**
   * Appends events at `expectedVersion` and their contract messages to the outbox, in one
   * transaction; `rule`, when given, runs after both writes and may throw to roll it all back.
   */
  record(events: readonly BookEvent[], expectedVersion: number, correlationId: string, rule?: () => void): Promise<void>;
  /** Rows of the outbox table still pending (and all rows). */
  outboxRows(): Promise<number>;
  close(): Promise<void>;
}

async function sqliteLibrary(file: string): Promise<LibraryDatabase> {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.exec(`CREATE TABLE IF NOT EXISTS book_events (
    book_id TEXT NOT NULL, version INTEGER NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL, PRIMARY KEY (book_id, version))`);
  const outbox = new SqliteOutbox(db, { source: 'library' });
  outbox.migrate();
  const books = outbox.channel(BookIntegrationEvents);
  const append = db.prepare('INSERT INTO book_events (book_id, version, type, data) VALUES (?, ?, ?, ?)');
  return {
    name: `SQLite (${file.split('/').pop()})`,
    outbox,
    async record(events, expectedVersion, correlationId, rule) {
      db.transaction(() => {
        for (const [i, e] of events.entries()) append.run(bookId, expectedVersion + i + 1, e.type, JSON.stringify(e));
        books.writeEvents(db, bookMapper, events, { aggregateId: bookId, correlationId });
        rule?.();
      })();
    },
    outboxRows: async () => (db.prepare('SELECT count(*) AS n FROM keiyaku_outbox').get() as { n: number }).n,
    async close() {
      db.close();
    },
  };
}

async function postgresLibrary(url: string): Promise<LibraryDatabase> {
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  const table = `demo_book_events_${Date.now()}`;
  await pool.query(
    `CREATE TABLE ${table} (book_id text NOT NULL, version integer NOT NULL, type text NOT NULL, data jsonb NOT NULL, PRIMARY KEY (book_id, version))`,
  );
  const outbox = new PostgresOutbox(pool, { source: 'library' });
  await outbox.migrate();
  const books = outbox.channel(BookIntegrationEvents);
  return {
    name: 'PostgreSQL',
    outbox,
    async record(events, expectedVersion, correlationId, rule) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        for (const [i, e] of events.entries())
          await client.query(`INSERT INTO ${table} (book_id, version, type, data) VALUES ($1, $2, $3, $4)`, [
            bookId,
            expectedVersion + i + 1,
            e.type,
            JSON.stringify(e),
          ]);
        await books.writeEvents(client, bookMapper, events, { aggregateId: bookId, correlationId });
        rule?.();
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      } finally {
        client.release();
      }
    },
    outboxRows: async () => Number((await pool.query<{ n: string }>('SELECT count(*) AS n FROM keiyaku_outbox')).rows[0]!.n),
    async close() {
      await pool.query(`DROP TABLE IF EXISTS ${table}`);
      await pool.end();
    },
  };
}

async function mysqlLibrary(url: string): Promise<LibraryDatabase> {
  const pool = mysql.createPool({ uri: url, connectionLimit: 4 });
  const table = `demo_book_events_${Date.now()}`;
  await pool.query(
    `CREATE TABLE ${table} (book_id VARCHAR(64) NOT NULL, version INT NOT NULL, type VARCHAR(64) NOT NULL, data JSON NOT NULL, PRIMARY KEY (book_id, version))`,
  );
  const outbox = new MysqlOutbox(pool, { source: 'library' });
  await outbox.migrate();
  const books = outbox.channel(BookIntegrationEvents);
  return {
    name: 'MySQL',
    outbox,
    async record(events, expectedVersion, correlationId, rule) {
      const connection = await pool.getConnection();
      try {
        await connection.beginTransaction();
        for (const [i, e] of events.entries())
          await connection.execute(`INSERT INTO ${table} (book_id, version, type, data) VALUES (?, ?, ?, ?)`, [
            bookId,
            expectedVersion + i + 1,
            e.type,
            JSON.stringify(e),
          ]);
        await books.writeEvents(connection, bookMapper, events, { aggregateId: bookId, correlationId });
        rule?.();
        await connection.commit();
      } catch (error) {
        await connection.rollback();
        throw error;
      } finally {
        connection.release();
      }
    },
    outboxRows: async () => {
      const [rows] = await pool.query<mysql.RowDataPacket[]>('SELECT count(*) AS n FROM keiyaku_outbox');
      return Number(rows[0]!['n']);
    },
    async close() {
      await pool.query(`DROP TABLE IF EXISTS ${table}`);
      await pool.end();
    },
  };
}

const library = process.env['MYSQL_URL']
  ? await mysqlLibrary(process.env['MYSQL_URL'])
  : process.env['POSTGRES_URL']
    ? await postgresLibrary(process.env['POSTGRES_URL'])
    : await sqliteLibrary(join(dir, 'library.db'));

async function record(newEvents: BookEvent[], correlationId: string): Promise<void> {
  await library.record(newEvents, version, correlationId);
  version += newEvents.length;
  for (const e of newEvents) {
    book = evolve(book, e, bookId);
    recorded.push(e);
  }
}

// The one line that picks the transport. In-memory by default; over a real Kafka broker with
// `scripts/kafka start` and `KAFKA_BROKERS=127.0.0.1:9092 npm run demo` (a fresh namespace per run).
const transport = process.env['KAFKA_BROKERS']
  ? new KafkaTransport({ brokers: process.env['KAFKA_BROKERS'].split(','), namespace: `demo-${Date.now()}` })
  : new InMemoryTransport();
const messaging = createMessaging({
  transport,
  deadLetters: new SqliteDeadLetterStore(deadLetterFile),
  source: 'library',
  shutdownBudgetMs: 10_000,
});
const shelf = new Shelf();
const inventory = messaging.subscribe(BookIntegrationEvents, new BookAvailability(shelf, shelf.inbox), {
  retry: { initialMs: 200, maxMs: 1_000, jitter: 0 },
  inbox: shelf.inbox,
});
const notices = new LateFeeNotices();
const notifications = messaging.subscribe(BookIntegrationEvents, notices, { deadLetter: { maxRetries: 2, backoffSchedule: [100, 200] } });
// Retry later (opt-in, docs/retry-later.md): the search index is busy the first time it sees a return; the
// failure waits on a retry tier while the partition moves on (order per key is not kept under this policy).
const searchIndex: BookIntegrationEventsHandler = {
  groupId: 'search.book-index',
  accepts: ['BookReturned'],
  handle(_message, context) {
    if (context.headers[RETRY_HEADERS.tier] === undefined) throw new Error('search index busy');
  },
};
const search = messaging.subscribe(BookIntegrationEvents, searchIndex, { retryLater: { tiers: [300, 3_000] } });
// A batch handler: the catalogue's search index takes the events a batch at a time (docs/batch-handlers.md).
const indexed: number[] = [];
const catalogueIndex = messaging.subscribeBatch(
  BookIntegrationEvents,
  { groupId: 'catalogue.search-index', handleBatch: (batch) => void indexed.push(batch.length) },
  { batch: { maxSize: 50, maxWaitMs: 20 } },
);
const dispatcher = messaging.host(library.outbox.dispatcher({ transport }, { pollIntervalMs: 50 }));
// Request-reply from the contract (operation lookUpCopies): the library answers what inventory asks.
messaging.respond(LookUpCopies, {
  groupId: 'library.copy-lookups',
  respond: (asked) => CopiesCounted.create({ bookId: asked.bookId, title: book?.title ?? '', onLoan: book?.onLoan.size ?? 0 }),
});
const lookups = messaging.requester(LookUpCopies, { timeoutMs: 10_000 });
await messaging.start();
const drained = async (): Promise<boolean> => (await dispatcher.refresh()).backlog === 0;

try {
  say('keiyaku demo: library → bookIntegrationEvents → inventory + notifications');
  say(
    `  transport: ${transport.name}; library events + outbox: ${library.name}; dead letters: SQLite (${deadLetterFile.split('/').pop()})`,
  );
  say();

  say('1. The library adds a book and lends two copies.');
  await record(
    [{ type: 'BookAdded', title: 'The Left Hand of Darkness', author: 'Ursula K. Le Guin', isbn: '9780441478125', copies: 3 }],
    'req-1',
  );
  await record(decide.borrow(book!, 'C-1', 'M-1001', new Date('2026-11-02T10:15:00Z'), 'desk', 'Ada'), 'req-2');
  await record(decide.borrow(book!, 'C-2', 'M-1002', new Date('2026-11-03T09:00:00Z'), 'kiosk'), 'req-3');
  await until(drained, 'the dispatcher published the outbox');
  say(`   domain events: ${recorded.map((e) => e.type).join(', ')} (each with its outbox rows in one transaction)`);
  say(`   published: ${dispatcher.status().published} BookBorrowed (BookAdded stays inside the library)`);
  say(`   outbox rows left after publishing: ${await library.outboxRows()}`);
  // A transaction that writes its event and its outbox row, then fails a rule and rolls back.
  const refused = decide.borrow(book!, 'C-3', 'M-1009', new Date('2026-11-03T09:30:00Z'), 'desk');
  try {
    await library.record(refused, version, 'req-3b', () => {
      throw new Error('member M-1009 has reached the loan limit');
    });
    say('   the refused borrowing went through (it should not have)');
  } catch (error) {
    say(`   a borrowing of C-3 wrote its event and outbox row, then failed a rule and rolled back (${(error as Error).message})`);
  }
  await new Promise((resolve) => setTimeout(resolve, 200));
  say(
    `   the rolled-back transaction published nothing: ${dispatcher.status().published} published, ${await library.outboxRows()} outbox rows`,
  );
  await until(() => inventory.health().processed === 2, 'inventory handled both');
  say(`   inventory.book-availability: copies on the shelf 3 → ${shelf.copies(bookId)}`);
  await until(() => notifications.health().skipped === 2, 'notifications skipped both borrowings');
  say(`   notifications.late-fees skipped ${notifications.health().skipped} borrowings: it only accepts BookReturned`);
  const answer = await lookups.request(CopiesRequested.create({ bookId }));
  say(`   request-reply (lookUpCopies): inventory asked, the library answered "${answer.title}", ${answer.onLoan} copies on loan`);
  say();

  say('2. The inventory database goes down while a copy comes back.');
  shelf.available = false;
  await record(decide.return(book!, 'C-1', new Date('2026-11-25T16:00:00Z'), 'worn', 150, 'GBP'), 'req-4');
  await until(() => (inventory.health().stalls[0]?.attempts ?? 0) >= 3, 'inventory retried a few times');
  const stall = inventory.health().stalls[0]!;
  say(`   the belt stopped at ${stall.type} (partition ${stall.partition}, offset ${stall.offset}) since ${stall.since.toISOString()}`);
  say(
    `   health: ready=${messaging.health().ready}, state=${inventory.health().state}, attempts=${stall.attempts}, reason "${stall.reason}"`,
  );
  shelf.available = true;
  await until(() => inventory.health().processed === 3, 'inventory recovered');
  say(`   database back: the same message went through on the next retry; copies on the shelf → ${shelf.copies(bookId)}; nothing skipped`);
  say(`   health: ready=${messaging.health().ready}, state=${inventory.health().state}`);
  await until(() => notices.sent.length === 1, 'the late fee notice is sent');
  say(`   notifications.late-fees sent: ${notices.sent[0]}`);
  say();

  say('3. A poison message: a late fee in a currency nobody can convert.');
  await record(decide.return(book!, 'C-2', new Date('2026-11-28T12:00:00Z'), 'good', 300, 'XXX'), 'req-5');
  await record(decide.borrow(book!, 'C-2', 'M-1003', new Date('2026-11-29T12:00:00Z'), 'app'), 'req-6');
  await record(decide.return(book!, 'C-2', new Date('2026-11-30T12:00:00Z'), 'good', 50, 'USD'), 'req-7');
  await record([{ type: 'BookLost', copyId: 'C-3', reportedAt: '2026-11-30T13:00:00Z' }], 'req-8');
  await until(() => notifications.health().parked === 1 && notices.sent.length === 2, 'the poison message is parked and the belt moved on');
  const parked = await messaging.deadLetters.list({ groupId: notices.groupId });
  for (const p of parked) {
    say(`   parked in SQLite: ${p.type} offset ${p.offset} after ${p.attempts} attempts — ${p.error.name}: ${p.error.message}`);
    say(`     first failure ${p.firstFailureAt.toISOString()}, last ${p.lastFailureAt.toISOString()}; payload ${payloadText(p)}`);
  }
  say(`   the belt moved on: ${notices.sent[1]}`);
  await until(() => inventory.health().processed === 6, 'inventory handled everything');
  say(`   inventory handled all ${inventory.health().processed} messages; copies on the shelf → ${shelf.copies(bookId)}`);
  await until(() => search.health().retryTiers?.[0]?.processed === 3, 'the search index handled every return from its retry tier');
  const tier = search.health().retryTiers![0]!;
  say(
    `   search.book-index (retryLater): ${tier.processed} BookReturned failed once, waited ${tier.delayMs} ms on ${tier.topic} and went through; the partition did not wait`,
  );
  // A redelivery, as a broker does after a crash between a handler's commit and the offset
  // commit: the same message (the same ce_id) twice. The inbox recorded the id with the count.
  const again = messaging.publisher(BookIntegrationEvents, { key: (m) => m.bookId, lingerMs: 0 });
  const loan = BookBorrowed.create({
    bookId,
    copyId: 'C-3',
    borrower: { memberId: 'M-1004' },
    borrowedAt: '2026-12-01T09:00:00Z',
    dueAt: '2026-12-22T09:00:00Z',
    channel: 'desk',
  });
  for (let delivery = 0; delivery < 2; delivery++) await again.publish(loan, { id: 'loan-C-3-2026-12-01' });
  await until(() => inventory.health().duplicatesSkipped === 1, "inventory's inbox skipped the second delivery");
  say(
    `   one BookBorrowed delivered twice (same ce_id): counted once, the inbox skipped ${inventory.health().duplicatesSkipped} duplicate; copies on the shelf → ${shelf.copies(bookId)}`,
  );
  await until(() => catalogueIndex.health().processed === 8, 'the search index took every message');
  say(
    `   catalogue.search-index (a batch handler) indexed ${catalogueIndex.health().processed} messages in ${indexed.length} batches of at most 50`,
  );
  await until(drained, 'the dispatcher caught up');
  const status = dispatcher.status();
  const internal = recorded.filter(
    (e) => bookMapper.map(e, { aggregateId: bookId, position: 0, timestamp: new Date(), eventId: '', metadata: {} }) === null,
  );
  say(
    `   outbox drained after event ${version}: ${status.published} published, ${internal.length} kept internal (BookAdded, BookLost); backlog ${status.backlog}, dead ${status.dead}`,
  );
  // Contract mocks (`keiyaku mock`, docs/mock.md): messages to try a consumer with before its producer exists.
  const contract = (await compileContract('asyncapi.yaml', { cwd: join(import.meta.dirname, '..') })).model!;
  const mocks = new ContractMocks(contract).channel('bookIntegrationEvents', 3, { seed: 7 });
  const accepted = mocks.filter((m) => BookIntegrationEvents.decode(new TextEncoder().encode(JSON.stringify(m.payload)), m.type).ok);
  const names = mocks.map((m) => (m.origin === 'example' ? `${m.type} (example ${m.example})` : m.type));
  say(`   mocks from the contract (seed 7): ${names.join(', ')}; the generated codec accepts ${accepted.length} of ${mocks.length}`);
  say();

  if (process.argv.includes('--serve')) await serveUntilInterrupted(messaging, say);

  say('4. Shutdown: the dispatcher and every subscription together within one 10 s budget.');
  await messaging.stop();
  const after = new SqliteDeadLetterStore(deadLetterFile);
  say(
    `   stopped. The dead-letter store still holds ${await after.count()} message after reopening the file; redrive is a human decision.`,
  );
  await after.close();
} finally {
  await messaging.stop();
  await library.close();
  shelf.db.close();
  rmSync(dir, { recursive: true, force: true });
}
