// The message producer as a hosted component: started and stopped by Messaging, visible in
// health() with position and backlog, resuming from a durable (SQLite) checkpoint after a
// restart, and retrying failures with backoff instead of stopping for good.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import {
  createMessaging,
  EventRelay,
  InMemoryCheckpointStore,
  InMemoryEventStore,
  type Logger,
  type Messaging,
  type OutgoingRecord,
  silentLogger,
  type Transport,
  TransportError,
} from '@keiyaku/runtime';
import { InMemoryTransport } from '@keiyaku/runtime/memory';
import { migrateSqlite, openSqlite, SqliteCheckpointStore, SqliteEventStore } from '@keiyaku/sqlite';
import type Database from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { BookEvent } from '../../examples/library/book.js';
import { bookMapper } from '../../examples/library/book-mapper.js';
import { BookIntegrationEvents } from '../../generated/index.js';
import { scratch, waitFor } from '../helpers.js';

const dir = scratch('producer-hosted');
const hosts: Messaging[] = [];
const dbs: Database.Database[] = [];
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.stop();
  for (const db of dbs.splice(0)) db.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const BOOK = '6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b';
const borrowed = (copyId: string): BookEvent => ({
  type: 'BookBorrowed',
  copyId,
  borrowerId: 'M-1001',
  at: '2026-11-02T10:15:00.000Z',
  loanDays: 21,
  via: 'kiosk',
});

function recordingLogger() {
  const lines: { level: string; message: string; fields?: Readonly<Record<string, unknown>> }[] = [];
  const at =
    (level: string) =>
    (message: string, fields?: Readonly<Record<string, unknown>>): void =>
      void lines.push({ level, message, ...(fields === undefined ? {} : { fields }) });
  const logger: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  return { logger, lines };
}

/** The memory transport, whose sends fail (not retriable) while `down` is true. */
/** A hosted producer publishing over a {@link flaky} transport (one publish attempt, 20 → 80 ms backoff, no jitter). */
function flakyProducer() {
  const inner = new InMemoryTransport();
  const transport = flaky(inner);
  const { logger, lines } = recordingLogger();
  const host = createMessaging({ logger: silentLogger, transport });
  hosts.push(host);
  const events = new InMemoryEventStore<BookEvent>();
  const checkpoints = new InMemoryCheckpointStore();
  const producer = host.host(
    new EventRelay({
      name: 'library.books',
      source: events,
      mapper: bookMapper,
      publisher: host.publisher(BookIntegrationEvents, { maxAttempts: 1 }),
      checkpoints,
      logger,
      retry: { initialMs: 20, maxMs: 80, jitter: 0 },
    }),
  );
  return { inner, transport, lines, host, events, checkpoints, producer };
}

function flaky(inner: InMemoryTransport): Transport & { down: boolean; permanent: boolean; refused: number } {
  const state = { down: false, permanent: false, refused: 0 };
  return Object.assign(state, {
    name: inner.name,
    capabilities: inner.capabilities,
    consumer: inner.consumer.bind(inner),
    provision: inner.provision?.bind(inner),
    close: () => inner.close(),
    producer() {
      const real = inner.producer();
      return {
        async send(records: readonly OutgoingRecord[]) {
          if (state.down) {
            state.refused += records.length;
            throw new TransportError('memory', state.permanent ? 'access denied (test)' : 'broker unreachable (test)', {
              retriable: !state.permanent,
            });
          }
          return real.send(records);
        },
        close: () => real.close(),
      };
    },
  });
}

describe('EventRelay hosted by Messaging', () => {
  it('starts with messaging.start(), reports position and backlog in health(), stops with messaging.stop()', async () => {
    const transport = new InMemoryTransport();
    const host = createMessaging({ logger: silentLogger, transport, shutdownBudgetMs: 2_000 });
    hosts.push(host);
    const events = new InMemoryEventStore<BookEvent>();
    events.append(BOOK, [borrowed('C-1'), borrowed('C-2')]);
    const producer = host.host(
      new EventRelay({
        name: 'library.books',
        source: events,
        mapper: bookMapper,
        publisher: host.publisher(BookIntegrationEvents),
        healthIntervalMs: 20,
      }),
    );
    expect(host.health().components).toEqual([
      expect.objectContaining({ kind: 'producer', name: 'library.books', ready: false, reason: 'not started' }),
    ]);
    await host.start();
    await transport.drain(BookIntegrationEvents, 2);
    await waitFor(
      () => {
        const details = host.health().components[0]?.details;
        return details?.['position'] === 2 && details['backlog'] === 0;
      },
      () => `health shows position 2 and no backlog: ${JSON.stringify(host.health().components)}`,
    );
    expect(host.health()).toMatchObject({
      ready: true,
      components: [{ kind: 'producer', name: 'library.books', ready: true, details: { position: 2, head: 2, backlog: 0, published: 2 } }],
    });
    await host.stop();
    expect(producer.status().running).toBe(false);
    events.append(BOOK, [borrowed('C-3')]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(transport.published(BookIntegrationEvents)).toHaveLength(2);
  });

  it('resumes from its durable SQLite checkpoint after a restart: nothing republished, nothing missed', async () => {
    const file = join(dir, 'library.db');
    const setup = openSqlite(file);
    migrateSqlite(setup);
    setup.close();
    const transport = new InMemoryTransport();
    // One "process": its own database connection, stores, messaging host and producer.
    const boot = async () => {
      const db = openSqlite(file);
      dbs.push(db);
      const host = createMessaging({ logger: silentLogger, transport });
      hosts.push(host);
      const events = new SqliteEventStore<BookEvent>(db, { pollIntervalMs: 20 });
      host.host(
        new EventRelay({
          name: 'library.books',
          source: events,
          mapper: bookMapper,
          publisher: host.publisher(BookIntegrationEvents),
          checkpoints: new SqliteCheckpointStore(db),
        }),
      );
      await host.start();
      return { db, host, events };
    };
    const first = await boot();
    first.events.append(BOOK, [borrowed('C-1'), borrowed('C-2')], { expectedVersion: 'no-stream' });
    await transport.drain(BookIntegrationEvents, 2);
    await waitFor(
      () =>
        first.db.prepare<[], { position: number }>("SELECT position FROM keiyaku_checkpoints WHERE name = 'library.books'").get()
          ?.position === 2,
      'the checkpoint is saved',
    );
    await first.host.stop();
    first.db.close();
    // Written while no producer runs (by another process, on the same file).
    const writer = openSqlite(file);
    new SqliteEventStore<BookEvent>(writer).append(BOOK, [borrowed('C-3')], { expectedVersion: 2 });
    writer.close();
    const second = await boot();
    await transport.drain(BookIntegrationEvents, 3);
    second.events.append(BOOK, [borrowed('C-4')], { expectedVersion: 3 });
    const published = await transport.drain(BookIntegrationEvents, 4);
    expect(published.map((p) => p.message.copyId)).toEqual(['C-1', 'C-2', 'C-3', 'C-4']);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(transport.published(BookIntegrationEvents)).toHaveLength(4);
  });

  it('retries a failed publish with backoff, logging each failure, and resumes without losing an event', async () => {
    const { inner, transport, lines, host, events, checkpoints, producer } = flakyProducer();
    await host.start();
    events.append(BOOK, [borrowed('C-1')]);
    await inner.drain(BookIntegrationEvents, 1);
    transport.down = true;
    events.append(BOOK, [borrowed('C-2'), borrowed('C-3')]);
    await waitFor(
      () => producer.status().failures >= 3,
      () => `three failures in a row: ${JSON.stringify(producer.status())}`,
    );
    const status = producer.status();
    expect(status).toMatchObject({ running: true, position: 1 });
    expect(status.lastError).toMatch(/broker unreachable/);
    expect(host.health().ready).toBe(false);
    expect(host.health().components[0]!.reason).toMatch(/^retrying after \d+ failures?: .*broker unreachable/);
    const warnings = lines.filter((l) => l.level === 'warn' && l.message.startsWith('message producer failed'));
    expect(warnings.length).toBeGreaterThanOrEqual(3);
    // The delays grow: 20, 40, 80, 80 … (no jitter).
    expect(warnings.slice(0, 3).map((w) => w.fields?.['delayMs'])).toEqual([20, 40, 80]);
    expect(await checkpoints.load('library.books')).toBe(1);
    transport.down = false;
    const published = await inner.drain(BookIntegrationEvents, 3);
    expect(published.map((p) => p.message.copyId)).toEqual(['C-1', 'C-2', 'C-3']);
    await waitFor(() => producer.status().position === 3 && producer.status().failures === 0, 'the producer catches up');
    expect(host.health().ready).toBe(true);
    expect(await checkpoints.load('library.books')).toBe(3);
    expect(transport.refused).toBeGreaterThanOrEqual(3);
  });

  it('stops on an error that retrying cannot fix, says so in its health and log, and keeps its position', async () => {
    const { transport, lines, host, events, checkpoints, producer } = flakyProducer();
    await host.start();
    transport.down = true;
    transport.permanent = true;
    events.append(BOOK, [borrowed('C-1')]);
    await waitFor(() => !producer.status().running, 'the producer gives up');
    expect(producer.status()).toMatchObject({ running: false, position: 0, failures: 1 });
    expect(producer.status().lastError).toMatch(/access denied/);
    expect(transport.refused).toBe(1);
    expect(host.health().ready).toBe(false);
    expect(lines.filter((l) => l.level === 'warn' && l.message.startsWith('message producer failed'))).toEqual([]);
    expect(lines.some((l) => l.level === 'error' && /retrying cannot fix/.test(l.message))).toBe(true);
    expect(await checkpoints.load('library.books')).toBeUndefined();
  });

  it('stops inside the shared shutdown budget even while its publishes hang', async () => {
    const inner = new InMemoryTransport();
    const hanging: Transport = {
      name: inner.name,
      capabilities: inner.capabilities,
      consumer: inner.consumer.bind(inner),
      close: () => inner.close(),
      producer: () => ({ send: () => new Promise<void>(() => {}), close: async () => {} }),
    };
    const host = createMessaging({ logger: silentLogger, transport: hanging, shutdownBudgetMs: 300 });
    const events = new InMemoryEventStore<BookEvent>();
    const producer = host.host(
      new EventRelay({
        name: 'stuck',
        source: events,
        mapper: bookMapper,
        publisher: host.publisher(BookIntegrationEvents),
        logger: silentLogger,
      }),
    );
    await host.start();
    events.append(BOOK, [borrowed('C-1')]);
    await new Promise((resolve) => setTimeout(resolve, 30));
    const started = Date.now();
    await producer.stop(AbortSignal.timeout(300));
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(producer.status().running).toBe(false);
  });
});
