/**
 * What the outbox benches on PostgreSQL (bench/outbox.bench.ts) and MySQL (bench/outbox-mysql.ts)
 * share: the messages they write, and the two timed rounds their dispatch figures compare — a
 * hosted dispatcher draining the outbox, and a publisher sending the same messages directly.
 */
import { BookBorrowed, BookIntegrationEvents } from '../generated/index.js';
import { createMessaging, type OutboxDispatcher, type OutboxDispatcherOptions, type Transport } from '../runtime/index.js';

/** Book ids repeat every 500 messages: 500 keys spread over the lanes and partitions. */
export const bookId = (i: number): string => `6f1c2b8e-3a4d-4e5f-9a0b-${String(i % 500).padStart(12, '0')}`;

/** The `i`-th message the benches write. */
export const borrowed = (i: number): BookBorrowed =>
  BookBorrowed.create({
    bookId: bookId(i),
    copyId: `C-${i}`,
    borrower: { memberId: 'M-1001', displayName: 'Ada Lovelace' },
    borrowedAt: '2026-11-02T10:15:00Z',
    dueAt: '2026-11-23T10:15:00Z',
    channel: 'desk',
  });

/** `transport` with a `close` that leaves it open: one transport serves every round (each round's messaging stops). */
export const unclosed = (transport: Transport): Transport =>
  new Proxy(transport, {
    get(target, key) {
      if (key === 'close') return async () => {};
      const value = Reflect.get(target, key, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });

/** An outbox as the dispatch round uses it (PostgresOutbox, MysqlOutbox). */
interface DispatchingOutbox {
  dispatcher(deps: { readonly transport: Transport }, options?: OutboxDispatcherOptions): OutboxDispatcher;
}

/** Seconds a hosted dispatcher of `outbox` takes from its start to `count` rows published on `transport` (left open). */
export async function dispatchRound(outbox: DispatchingOutbox, count: number, transport: Transport, batchSize?: number): Promise<number> {
  const messaging = createMessaging({ transport: unclosed(transport) });
  const dispatcher = messaging.host(
    outbox.dispatcher(
      { transport: messaging.transport },
      { pollIntervalMs: 50, healthIntervalMs: 60_000, ...(batchSize === undefined ? {} : { batchSize }) },
    ),
  );
  const started = performance.now();
  await messaging.start();
  while (dispatcher.status().published < count) await new Promise((resolve) => setTimeout(resolve, 1));
  const seconds = (performance.now() - started) / 1000;
  await messaging.stop();
  return seconds;
}

/** Seconds a publisher on `transport` (left open) takes to publish `list`, acknowledged. */
export async function directRound(list: readonly BookBorrowed[], transport: Transport): Promise<number> {
  const messaging = createMessaging({ transport: unclosed(transport) });
  const publisher = messaging.publisher(BookIntegrationEvents, { key: (m) => m.bookId });
  const started = performance.now();
  await publisher.publishMany(list);
  const seconds = (performance.now() - started) / 1000;
  await messaging.stop();
  return seconds;
}
