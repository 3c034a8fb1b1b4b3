/**
 * `npm run demo`: two bounded contexts talking through the generated contract over the
 * in-memory transport, with dead letters parked in SQLite (the embedded defaults).
 *
 * The library publishes book events through a mapper; inventory keeps shelf counts and
 * blocks on a failure until it recovers; notifications parks a poison message under a
 * dead-letter policy and moves on.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KafkaTransport } from 'keiyaku/kafka';
import { InMemoryTransport } from 'keiyaku/memory';
import { createMessaging, InMemoryEventStore, MessageProducer, payloadText } from 'keiyaku/runtime';
import { SqliteDeadLetterStore } from 'keiyaku/sqlite';
import { BookIntegrationEvents } from '../generated/index.js';
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

/** Inventory's own store: copies on the shelf per book; it can be switched off. */
class Shelf implements InventoryStore {
  readonly counts = new Map<string, number>();
  available = true;
  async adjust(bookId: string, delta: number): Promise<number> {
    if (!this.available) throw new Error('inventory database unavailable');
    const next = (this.counts.get(bookId) ?? 3) + delta;
    this.counts.set(bookId, next);
    return next;
  }
}

const events = new InMemoryEventStore<BookEvent>();
const bookId = '6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b';
let book: BookState | undefined;
function record(newEvents: BookEvent[], correlationId: string): void {
  events.append(bookId, newEvents, { correlationId });
  for (const e of newEvents) book = evolve(book, e, bookId);
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
const inventory = messaging.subscribe(BookIntegrationEvents, new BookAvailability(shelf), {
  retry: { initialMs: 200, maxMs: 1_000, jitter: 0 },
});
const notices = new LateFeeNotices();
const notifications = messaging.subscribe(BookIntegrationEvents, notices, { deadLetter: { maxRetries: 2, backoffSchedule: [100, 200] } });
const producer = new MessageProducer({
  name: 'library.book-integration-events',
  source: events,
  mapper: bookMapper,
  publisher: messaging.publisher(BookIntegrationEvents),
});
await messaging.start();
producer.start();

try {
  say('keiyaku demo: library → bookIntegrationEvents → inventory + notifications');
  say(`  transport: ${transport.name}; dead letters: SQLite (${deadLetterFile.split('/').pop()})`);
  say();

  say('1. The library adds a book and lends two copies.');
  record(
    [{ type: 'BookAdded', title: 'The Left Hand of Darkness', author: 'Ursula K. Le Guin', isbn: '9780441478125', copies: 3 }],
    'req-1',
  );
  record(decide.borrow(book!, 'C-1', 'M-1001', new Date('2026-11-02T10:15:00Z'), 'desk', 'Ada'), 'req-2');
  record(decide.borrow(book!, 'C-2', 'M-1002', new Date('2026-11-03T09:00:00Z'), 'kiosk'), 'req-3');
  await until(() => producer.status().position === events.head, 'the producer published the first events');
  say(
    `   domain events: ${events
      .stream(bookId)
      .map((e) => e.event.type)
      .join(', ')}`,
  );
  say(`   published: ${producer.status().published} BookBorrowed (BookAdded stays inside the library)`);
  await until(() => inventory.health().processed === 2, 'inventory handled both');
  say(`   inventory.book-availability: copies on the shelf 3 → ${shelf.counts.get(bookId)}`);
  await until(() => notifications.health().skipped === 2, 'notifications skipped both borrowings');
  say(`   notifications.late-fees skipped ${notifications.health().skipped} borrowings: it only accepts BookReturned`);
  say();

  say('2. The inventory database goes down while a copy comes back.');
  shelf.available = false;
  record(decide.return(book!, 'C-1', new Date('2026-11-25T16:00:00Z'), 'worn', 150, 'GBP'), 'req-4');
  await until(() => (inventory.health().stalls[0]?.attempts ?? 0) >= 3, 'inventory retried a few times');
  const stall = inventory.health().stalls[0]!;
  say(`   the belt stopped at ${stall.type} (partition ${stall.partition}, offset ${stall.offset}) since ${stall.since.toISOString()}`);
  say(
    `   health: ready=${messaging.health().ready}, state=${inventory.health().state}, attempts=${stall.attempts}, reason "${stall.reason}"`,
  );
  shelf.available = true;
  await until(() => inventory.health().processed === 3, 'inventory recovered');
  say(
    `   database back: the same message went through on the next retry; copies on the shelf → ${shelf.counts.get(bookId)}; nothing skipped`,
  );
  say(`   health: ready=${messaging.health().ready}, state=${inventory.health().state}`);
  await until(() => notices.sent.length === 1, 'the late fee notice is sent');
  say(`   notifications.late-fees sent: ${notices.sent[0]}`);
  say();

  say('3. A poison message: a late fee in a currency nobody can convert.');
  record(decide.return(book!, 'C-2', new Date('2026-11-28T12:00:00Z'), 'good', 300, 'XXX'), 'req-5');
  record(decide.borrow(book!, 'C-2', 'M-1003', new Date('2026-11-29T12:00:00Z'), 'app'), 'req-6');
  record(decide.return(book!, 'C-2', new Date('2026-11-30T12:00:00Z'), 'good', 50, 'USD'), 'req-7');
  record([{ type: 'BookLost', copyId: 'C-3', reportedAt: '2026-11-30T13:00:00Z' }], 'req-8');
  await until(() => notifications.health().parked === 1 && notices.sent.length === 2, 'the poison message is parked and the belt moved on');
  const parked = await messaging.deadLetters.list({ groupId: notices.groupId });
  for (const p of parked) {
    say(`   parked in SQLite: ${p.type} offset ${p.offset} after ${p.attempts} attempts — ${p.error.name}: ${p.error.message}`);
    say(`     first failure ${p.firstFailureAt.toISOString()}, last ${p.lastFailureAt.toISOString()}; payload ${payloadText(p)}`);
  }
  say(`   the belt moved on: ${notices.sent[1]}`);
  await until(() => inventory.health().processed === 6, 'inventory handled everything');
  say(`   inventory handled all ${inventory.health().processed} messages; copies on the shelf → ${shelf.counts.get(bookId)}`);
  await until(() => producer.status().position === events.head, 'the producer caught up');
  const status = producer.status();
  say(
    `   producer checkpoint at event ${status.position}: ${status.published} published, ${status.filtered} kept internal (BookAdded, BookLost)`,
  );
  say();

  if (process.argv.includes('--serve')) await serveUntilInterrupted(messaging, say);

  say('4. Shutdown: producer, then every subscription together within one 10 s budget.');
  await producer.stop();
  await messaging.stop();
  const after = new SqliteDeadLetterStore(deadLetterFile);
  say(
    `   stopped. The dead-letter store still holds ${await after.count()} message after reopening the file; redrive is a human decision.`,
  );
  await after.close();
} finally {
  await producer.stop();
  await messaging.stop();
  rmSync(dir, { recursive: true, force: true });
}
