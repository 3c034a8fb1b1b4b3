// A consumer rebuilt during an outage leaves no stale member behind. The broker the other test files
// share keeps running: the consumer reaches it through a TCP proxy that refuses connections for a
// while (a broker that is down), then lets everything through again. A replaced kafkajs client that
// got through rejoined the group as a second member and kept partitions: a clean-clone
// run stalled at 10,625 of 20,000 messages for 165 s with two members ("a replaced client rejoined
// the group; disconnecting it"), since kafkajs forgets a client it is still starting when told to stop.
import { randomUUID } from 'node:crypto';
import { createMessaging, type Logger } from '@keiyaku/runtime';
import { Kafka, logLevel } from 'kafkajs';
import { afterEach, describe, expect, it } from 'vitest';
import { BookBorrowed, BookIntegrationEvents } from '../../generated/index.js';
import { waitFor } from '../helpers.js';
import { kafkaBrokers, kafkaSkipReason, onlyOnDriver, testLogger, testTransport } from './kafka-env.js';
import { TcpProxy } from './tcp-proxy.js';

// The proxy reaches kafkajs through its socket factory; @platformatic/kafka has none, and connects to the broker's
// advertised address. Its rebuild after an outage is shown by kafka-outage.test.ts (a broker of its own).
const reason = kafkaSkipReason || onlyOnDriver('kafkajs', 'routing a client through the outage proxy needs a kafkajs socket factory');
const run = reason ? describe.skip : describe;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const borrowed = (i: number) =>
  BookBorrowed.create({
    bookId: `6f1c2b8e-3a4d-4e5f-9a0b-${String(i % 6).padStart(12, '0')}`,
    copyId: `C-${i}`,
    borrower: { memberId: 'M-1001' },
    borrowedAt: '2026-11-02T10:15:00Z',
    dueAt: '2026-11-23T10:15:00Z',
    channel: 'desk',
  });

run(`Kafka consumer rebuild${reason ? ` (${reason})` : ''}`, () => {
  it('leaves one member in the group after rebuilds during outages, and delivers what was published after them', async () => {
    const proxy = new TcpProxy(kafkaBrokers.split(',')[0]!);
    await proxy.listen();
    cleanups.push(() => proxy.close());
    const lines: string[] = [];
    const note =
      (level: string) =>
      (message: string, fields?: Readonly<Record<string, unknown>>): void => {
        lines.push(`${level} ${message}`);
        testLogger[level as keyof Logger](message, fields);
      };
    const logger: Logger = { debug: note('debug'), info: note('info'), warn: note('warn'), error: note('error') };
    const namespace = `t${randomUUID().slice(0, 8)}`;
    const SESSION_MS = 6_000;
    const consuming = testTransport({
      namespace,
      logger,
      sessionTimeoutMs: SESSION_MS,
      // kafkajs gives up on the failing fetch and restarts its client after about 2 s (six retries of
      // 100–300 ms), and each start of it retries its connection for about 2 s: a rebuild after 3 s
      // finds kafkajs in the middle of such a start.
      rebuildAfterMs: 3_000,
      maxRebuildIntervalMs: 3_000,
      retry: { retries: 6, initialRetryTime: 100, maxRetryTime: 300 },
      client: { socketFactory: proxy.socketFactory(), connectionTimeout: 1_000, requestTimeout: 2_500 },
    });
    const direct = testTransport({ namespace });
    const consumer = createMessaging({ transport: consuming, logger });
    const publisher = createMessaging({ transport: direct, logger });
    cleanups.push(async () => {
      await consumer.stop();
      await publisher.stop();
    });
    const received = new Set<string>();
    consumer.subscribe(BookIntegrationEvents, {
      groupId: 'inventory.rebuild',
      handle(message) {
        received.add(message.copyId);
      },
    });
    await consumer.start();
    await publisher.start();
    const publish = publisher.publisher(BookIntegrationEvents, { key: (m) => m.bookId });
    await publish.publishMany(Array.from({ length: 6 }, (_, i) => borrowed(i)));
    await waitFor(() => received.size === 6, 'the first six arrive through the proxy', 30_000);

    // The broker goes down and comes back, three times: the consumer is cut off, kafkajs crashes
    // and restarts its client (again and again), and the transport replaces it (rebuildAfterMs) —
    // often while kafkajs is starting it again. The broker is back right after each rebuild. A
    // stale member would hold partitions (up to its session timeout, or for good while it heartbeats).
    let published = 6;
    // A real outage reaches kafkajs as a reset (ECONNRESET) or as an orderly close ("Closed
    // connection"), by timing: the outages give each. A close alone once marked nothing as cut off,
    // so no rebuild came (a CI run waited 30 s for one in outage 3).
    const cuts = ['reset', 'close', 'close'] as const;
    for (let outage = 1; outage <= 3; outage++) {
      const rebuilds = (consuming.health().details as { rebuilds: number }).rebuilds;
      proxy.refuse(cuts[outage - 1]);
      await waitFor(
        () => (consuming.health().details as { rebuilds: number }).rebuilds > rebuilds,
        `a rebuild during outage ${outage} (connections cut by ${cuts[outage - 1]})`,
        30_000,
      ).catch((error: Error) => {
        throw new Error(`${error.message}; log:\n${lines.filter((l) => !l.startsWith('debug')).join('\n')}`);
      });
      proxy.restore();
      await publish.publishMany(Array.from({ length: 6 }, (_, i) => borrowed(100 * outage + i)));
      published += 6;
      await waitFor(() => received.size === published, `the six published after outage ${outage} arrive`, SESSION_MS + 20_000);
    }

    const admin = new Kafka({ brokers: kafkaBrokers.split(','), logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    try {
      let members = -1;
      await waitFor(
        async () => {
          const { groups } = await admin.describeGroups([consuming.group('inventory.rebuild')]);
          members = groups[0]?.members.length ?? -1;
          if (members !== 1) await new Promise((resolve) => setTimeout(resolve, 250));
          return members === 1;
        },
        'exactly one member in the group',
        SESSION_MS + 10_000,
      ).catch((error: Error) => {
        throw new Error(`${error.message} (members: ${members}); log:\n${lines.filter((l) => !l.startsWith('debug')).join('\n')}`);
      });
    } finally {
      await admin.disconnect();
    }
    expect(lines.filter((l) => l.includes('replaced client rejoined'))).toEqual([]);
  }, 120_000);
});
