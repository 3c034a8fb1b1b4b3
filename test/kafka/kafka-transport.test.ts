// The Kafka transport against the real broker, checked from the outside with a raw kafkajs admin.

import { createKafkaTransport } from '@keiyaku/kafka';
import { createMessaging, type Logger, type Messaging, silentLogger } from '@keiyaku/runtime';
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { BookBorrowed, BookIntegrationEvents, BookReturned } from '../../generated/index.js';
import { waitFor } from '../helpers.js';
import { kafkaBrokers, kafkaDriver, kafkaSkipReason, testTransport } from './kafka-env.js';

const run = kafkaBrokers === '' ? describe.skip : describe;
const admin =
  kafkaBrokers === ''
    ? undefined
    : new Kafka({ brokers: kafkaBrokers.split(','), clientId: 'keiyaku-tests-admin', logLevel: logLevel.NOTHING }).admin();
afterAll(async () => {
  await admin?.disconnect();
});
const hosts: Messaging[] = [];
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.stop();
});

const borrowed = (copyId: string, bookId: string) =>
  BookBorrowed.create({
    bookId,
    copyId,
    borrower: { memberId: 'M-1001' },
    borrowedAt: '2026-11-02T10:15:00Z',
    dueAt: '2026-11-23T10:15:00Z',
    channel: 'desk',
  });
const book = (i: number) => `6f1c2b8e-3a4d-4e5f-9a0b-${String(i).padStart(12, '0')}`;

function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const push = (level: string) => (message: string) => lines.push(`${level} ${message}`);
  return { lines, debug: () => {}, info: push('info'), warn: push('warn'), error: push('error') };
}

describe('Kafka transport options', () => {
  it('refuses an empty broker list with a typed error', () => {
    expect(() => createKafkaTransport({ driver: kafkaDriver, brokers: [] })).toThrow(
      expect.objectContaining({ name: 'KeiyakuError', code: 'brokers_required', message: expect.stringContaining('at least one broker') }),
    );
  });
});

run(`Kafka transport on a real broker${kafkaSkipReason ? ` (${kafkaSkipReason})` : ''}`, () => {
  it('creates the topic from the contract binding (6 partitions) under the namespace, and reports a mismatch without altering it', async () => {
    await admin!.connect();
    const logger = recordingLogger();
    const transport = testTransport({ logger });
    await transport.provision(BookIntegrationEvents.address, BookIntegrationEvents.bindings);
    const topic = transport.topic(BookIntegrationEvents.address);
    expect(topic).toBe(`${transport.options.namespace}.library.book-integration-events`);
    const metadata = await admin!.fetchTopicMetadata({ topics: [topic] });
    expect(metadata.topics[0]!.partitions).toHaveLength(6);

    const other = testTransport({ logger, namespace: transport.options.namespace! });
    await other.provision(BookIntegrationEvents.address, { kafka: { partitions: 2 } });
    expect(logger.lines.some((l) => l.includes(`topic ${topic} has 6 partitions but the contract says 2`))).toBe(true);
    expect((await admin!.fetchTopicMetadata({ topics: [topic] })).topics[0]!.partitions).toHaveLength(6);
    await transport.close();
    await other.close();
  });

  it('splits keys over partitions, keeps per-key order, fans out to two groups and commits offsets the broker can see', async () => {
    await admin!.connect();
    const transport = testTransport();
    const host = createMessaging({ logger: silentLogger, transport });
    hosts.push(host);
    const seen = { inventory: [] as string[], notifications: [] as string[] };
    const partitionsSeen = new Set<number>();
    host.subscribe(BookIntegrationEvents, {
      groupId: 'inventory.book-availability',
      handle(message, context) {
        partitionsSeen.add(context.partition!);
        seen.inventory.push(`${message.bookId}/${message.copyId}`);
      },
    });
    host.subscribe(BookIntegrationEvents, {
      groupId: 'notifications.late-fees',
      handle: (m) => void seen.notifications.push(`${m.bookId}/${m.copyId}`),
    });
    await host.start();
    const publisher = host.publisher(BookIntegrationEvents, { key: (m) => m.bookId });
    const messages = Array.from({ length: 60 }, (_, i) => borrowed(`C-${i}`, book(i % 12)));
    await publisher.publishMany(messages);
    await waitFor(() => seen.inventory.length === 60 && seen.notifications.length === 60, 'both groups handled all 60', 30_000);
    expect(partitionsSeen.size).toBeGreaterThan(1);
    for (let b = 0; b < 12; b++) {
      const order = seen.inventory.filter((s) => s.startsWith(book(b))).map((s) => Number(s.split('/C-')[1]));
      expect(order).toEqual([...order].sort((x, y) => x - y));
    }
    await host.stop();
    const group = transport.group('inventory.book-availability');
    const committed = await admin!.fetchOffsets({ groupId: group, topics: [transport.topic(BookIntegrationEvents.address)] });
    const total = committed[0]!.partitions.reduce((n, p) => n + Math.max(0, Number(p.offset)), 0);
    expect(total).toBe(60);
  });

  it('reports assigned partitions, committed offsets, high watermarks and lag for health', async () => {
    const transport = testTransport();
    const host = createMessaging({ logger: silentLogger, transport });
    hosts.push(host);
    let handled = 0;
    const received = new Set<number>();
    const subscription = host.subscribe(
      BookIntegrationEvents,
      {
        groupId: 'telemetry',
        handle: (_message, context) => {
          handled++;
          received.add(context.partition!);
        },
      },
      { batchSize: 1 },
    );
    await host.start();
    await host.publisher(BookIntegrationEvents, { key: (m) => m.bookId }).publishMany(
      Array.from({ length: 12 }, (_, i) =>
        BookReturned.create({
          bookId: book(i),
          copyId: `C-${i}`,
          memberId: 'M-1001',
          returnedAt: '2026-11-20T10:15:00Z',
          condition: 'good',
        }),
      ),
    );
    await waitFor(() => handled === 12, 'all handled', 30_000);
    await waitFor(
      () => subscription.health().positions.reduce((n, p) => n + Number(p.committed ?? 0), 0) === 12,
      'commits reach the broker',
      30_000,
    );
    const positions = subscription.health().positions;
    expect(positions.map((p) => p.partition)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(positions.reduce((n, p) => n + (p.lag ?? 0), 0)).toBe(0);
    // Every partition that received records reports its high watermark, all of it committed.
    expect(received.size).toBeGreaterThan(1);
    const withRecords = positions.filter((p) => received.has(p.partition));
    expect(withRecords.map((p) => p.partition)).toEqual([...received].sort((a, b) => a - b));
    for (const p of withRecords) {
      expect(p.highWatermark, `partition ${p.partition}`).toBeDefined();
      expect(p.committed, `partition ${p.partition}`).toBeDefined();
      expect(p.highWatermark, `partition ${p.partition}`).toBe(p.committed);
      expect(p.lag, `partition ${p.partition}`).toBe(0);
    }
    expect(withRecords.reduce((n, p) => n + Number(p.committed), 0)).toBe(12);
  });
});
