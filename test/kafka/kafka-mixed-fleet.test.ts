// Mixed fleets on a real broker: a service on the kafkajs driver and one on the platformatic driver
// share a consumer group on one topic, and each publishes to a topic the other reads. Records,
// headers (binary and structured content mode), keys and committed offsets interoperate; when one
// service leaves mid-stream, the other takes its partitions over and no record is lost or handled
// twice. And a key lands on the same partition whichever driver wrote it (murmur2, as Java and
// kafkajs). These run whatever KAFKA_DRIVER says: they are about both drivers at once.
import type { KafkaDriver, KafkaDriverTransport, KafkaTransportOptions } from '@keiyaku/kafka';
import { createMessaging, type IncomingRecord, type Messaging, silentLogger } from '@keiyaku/runtime';
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { BookBorrowed, BookIntegrationEvents, DueDateReminder, MemberNotifications } from '../../generated/index.js';
import { murmur2 } from '../../runtime/kafka/partitioner.js';
import { waitFor } from '../helpers.js';
import { kafkaBrokers, kafkaSkipReason, testTransport } from './kafka-env.js';

const run = kafkaSkipReason ? describe.skip : describe;
const admin =
  kafkaBrokers === ''
    ? undefined
    : new Kafka({ brokers: kafkaBrokers.split(','), clientId: 'keiyaku-tests-admin', logLevel: logLevel.NOTHING }).admin();
afterAll(async () => {
  await admin?.disconnect();
});
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A service's transport on `driver`, sharing `namespace` (topics and groups) with the other service. */
function service(driver: KafkaDriver, namespace: string, options: Partial<KafkaTransportOptions> = {}): KafkaDriverTransport {
  // kafkajs speaks only the classic group protocol; on KAFKA_GROUP_PROTOCOL=consumer the group is a mixed one.
  const transport = testTransport({ driver, namespace, ...(driver === 'kafkajs' ? { groupProtocol: 'classic' } : {}), ...options });
  cleanups.push(() => transport.close());
  return transport;
}

const book = (i: number) => `6f1c2b8e-3a4d-4e5f-9a0b-${String(i % 24).padStart(12, '0')}`;
const loan = (i: number) =>
  BookBorrowed.create({
    bookId: book(i),
    copyId: `C-${i}`,
    borrower: { memberId: 'M-1001' },
    borrowedAt: '2026-11-02T10:15:00Z',
    dueAt: '2026-11-23T10:15:00Z',
    channel: 'desk',
  });

interface Seen {
  readonly by: KafkaDriver;
  readonly copyId: string;
  readonly key: string | undefined;
  readonly bookId: string;
  readonly correlationId: string | undefined;
  readonly header: unknown;
  readonly partition: number;
}

/** Sum of the offsets `group` (namespaced) committed on `topic`, read from the broker. */
async function committed(group: string, topic: string): Promise<number> {
  const [offsets] = await admin!.fetchOffsets({ groupId: group, topics: [topic] });
  return offsets!.partitions.reduce((sum, p) => sum + Math.max(0, Number(p.offset)), 0);
}

/** Every copy id handled exactly once, each record whole: its key, correlation id and contract header as published. */
function expectEachOnce(seen: readonly Seen[], total: number): void {
  const counts = new Map<string, number>();
  for (const s of seen) counts.set(s.copyId, (counts.get(s.copyId) ?? 0) + 1);
  const expected = Array.from({ length: total }, (_, i) => `C-${i}`);
  expect(
    expected.filter((id) => !counts.has(id)),
    'lost',
  ).toEqual([]);
  expect(
    [...counts].filter(([, n]) => n > 1),
    'handled twice',
  ).toEqual([]);
  for (const s of seen) {
    const i = s.copyId.slice(2);
    expect(s, s.copyId).toMatchObject({ key: s.bookId, correlationId: `c-${i}`, header: `h-${i}` });
  }
}

run(`mixed fleets: kafkajs and platformatic drivers together${kafkaSkipReason ? ` (${kafkaSkipReason})` : ''}`, () => {
  it('share one consumer group: records, headers, keys and offsets interoperate, and none is lost or handled twice when one leaves', async () => {
    await admin!.connect();
    const namespace = `mix${Date.now().toString(36)}`;
    // The kafkajs service writes binary mode, the platformatic one structured: each reads what the other wrote.
    const hosts: Record<KafkaDriver, Messaging> = {
      kafkajs: createMessaging({ logger: silentLogger, transport: service('kafkajs', namespace), shutdownBudgetMs: 10_000 }),
      platformatic: createMessaging({
        logger: silentLogger,
        transport: service('platformatic', namespace, { contentMode: 'structured' }),
        shutdownBudgetMs: 10_000,
      }),
    };
    cleanups.push(async () => {
      await hosts.kafkajs.stop();
      await hosts.platformatic.stop();
    });
    const seen: Seen[] = [];
    for (const by of ['kafkajs', 'platformatic'] as const)
      hosts[by].subscribe(BookIntegrationEvents, {
        groupId: 'inventory.mixed',
        handle(message, context) {
          seen.push({
            by,
            copyId: message.copyId,
            key: context.key,
            bookId: message.bookId,
            correlationId: context.correlationId,
            header: context.headers['correlationId'],
            partition: context.partition!,
          });
        },
      });
    await hosts.kafkajs.start();
    await hosts.platformatic.start();
    const positions = (by: KafkaDriver) => hosts[by].health().subscriptions[0]!.positions.length;
    await waitFor(
      () => positions('kafkajs') > 0 && positions('platformatic') > 0 && positions('kafkajs') + positions('platformatic') === 6,
      () => `both members share the six partitions (kafkajs ${positions('kafkajs')}, platformatic ${positions('platformatic')})`,
      60_000,
    );
    const publishers = {
      kafkajs: hosts.kafkajs.publisher(BookIntegrationEvents, { key: (m) => m.bookId }),
      platformatic: hosts.platformatic.publisher(BookIntegrationEvents, { key: (m) => m.bookId }),
    };
    const publish = async (from: number, to: number, only?: KafkaDriver): Promise<void> => {
      for (let i = from; i < to; i++) {
        // Alternate writers: each key's records come from both drivers.
        const by = only ?? (i % 2 === 0 ? 'kafkajs' : 'platformatic');
        await publishers[by].publish(loan(i), { correlationId: `c-${i}`, headers: { correlationId: `h-${i}` } });
      }
    };
    await publish(0, 200);
    await waitFor(
      () => new Set(seen.map((s) => s.copyId)).size === 200,
      () => `the first 200 handled (${seen.length})`,
      60_000,
    );
    expect(new Set(seen.map((s) => s.by))).toEqual(new Set(['kafkajs', 'platformatic']));
    // Each partition is read by one member at a time.
    for (let p = 0; p < 6; p++)
      expect(new Set(seen.filter((s) => s.partition === p).map((s) => s.by)).size, `partition ${p}`).toBeLessThanOrEqual(1);

    // The platformatic service leaves while records keep coming (from the kafkajs one, which stays): the kafkajs
    // one takes its partitions over.
    const flowing = publish(200, 400, 'kafkajs');
    await waitFor(() => seen.length > 230, 'records flowing before the leave', 60_000);
    await hosts.platformatic.stop();
    await flowing;
    await waitFor(
      () => new Set(seen.map((s) => s.copyId)).size === 400,
      () => `all 400 handled (${seen.length})`,
      90_000,
    );
    await waitFor(() => positions('kafkajs') === 6, 'the kafkajs member holds every partition', 30_000);
    const topic = `${namespace}.${BookIntegrationEvents.address}`;
    await waitFor(async () => (await committed(`${namespace}.inventory.mixed`, topic)) === 400, 'the group committed all 400', 30_000);
    await new Promise((resolve) => setTimeout(resolve, 1_000)); // nothing arrives twice late
    expectEachOnce(seen, 400);
  }, 240_000);

  it('each publishes to a topic the other reads, in both content modes', async () => {
    await admin!.connect();
    const namespace = `mix${Date.now().toString(36)}`;
    // This time the kafkajs service writes structured mode and the platformatic one binary mode.
    const kafkajs = createMessaging({ logger: silentLogger, transport: service('kafkajs', namespace, { contentMode: 'structured' }) });
    const platformatic = createMessaging({ logger: silentLogger, transport: service('platformatic', namespace) });
    cleanups.push(async () => {
      await kafkajs.stop();
      await platformatic.stop();
    });
    const loans: Seen[] = [];
    const reminders: { title: string; key: string | undefined; bookId: string; correlationId?: string; header: unknown }[] = [];
    platformatic.subscribe(BookIntegrationEvents, {
      groupId: 'reminders.loans',
      handle: (m, context) =>
        void loans.push({
          by: 'platformatic',
          copyId: m.copyId,
          key: context.key,
          bookId: m.bookId,
          correlationId: context.correlationId,
          header: context.headers['correlationId'],
          partition: context.partition!,
        }),
    });
    kafkajs.subscribe(
      MemberNotifications,
      {
        groupId: 'desk.reminders',
        handle: (m, context) =>
          void reminders.push({
            title: m.loans[0]!.title ?? '',
            key: context.key,
            bookId: m.loans[0]!.bookId,
            ...(context.correlationId === undefined ? {} : { correlationId: context.correlationId }),
            header: context.headers['correlationId'],
          }),
      },
      { parameters: { memberId: 'M-1001' } },
    );
    await kafkajs.start();
    await platformatic.start();
    const toPlatformatic = kafkajs.publisher(BookIntegrationEvents, { key: (m) => m.bookId });
    const toKafkajs = platformatic.publisher(MemberNotifications, { parameters: { memberId: 'M-1001' }, key: (m) => m.loans[0]!.bookId });
    const N = 100;
    for (let i = 0; i < N; i++) {
      const correlation = { correlationId: `c-${i}`, headers: { correlationId: `h-${i}` } };
      await toPlatformatic.publish(loan(i), correlation);
      await toKafkajs.publish(
        DueDateReminder.create({ memberId: 'M-1001', loans: [{ bookId: book(i), title: `T-${i}`, dueAt: '2026-11-23T10:15:00Z' }] }),
        correlation,
      );
    }
    await waitFor(
      () => loans.length >= N && reminders.length >= N,
      () => `both directions (${loans.length}, ${reminders.length})`,
      60_000,
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    expectEachOnce(loans, N);
    expect(reminders.map((r) => r.title).sort()).toEqual(Array.from({ length: N }, (_, i) => `T-${i}`).sort());
    for (const r of reminders) {
      const i = r.title.slice(2);
      expect(r, r.title).toMatchObject({ key: r.bookId, correlationId: `c-${i}`, header: `h-${i}` });
    }
    const loansTopic = `${namespace}.${BookIntegrationEvents.address}`;
    const remindersTopic = `${namespace}.${MemberNotifications.address({ memberId: 'M-1001' })}`;
    await waitFor(
      async () => (await committed(`${namespace}.reminders.loans`, loansTopic)) === N,
      'platformatic committed its reads',
      30_000,
    );
    await waitFor(
      async () => (await committed(`${namespace}.desk.reminders`, remindersTopic)) === N,
      'kafkajs committed its reads',
      30_000,
    );
  }, 120_000);

  it('puts a key on the same partition whichever driver wrote it (murmur2, as Java and kafkajs)', async () => {
    const namespace = `mix${Date.now().toString(36)}`;
    const PARTITIONS = 7;
    const KEYS = 400;
    const transports = { kafkajs: service('kafkajs', namespace), platformatic: service('platformatic', namespace) };
    const address = 'mixed.keys';
    await transports.kafkajs.provision(address, { kafka: { partitions: PARTITIONS } });
    const keys = Array.from({ length: KEYS }, (_, i) => (i % 4 === 0 ? `Bücher-${i}-日本` : `key-${i}-${(i * 7919).toString(36)}`));
    for (const by of ['kafkajs', 'platformatic'] as const) {
      const producer = transports[by].producer();
      await producer.send(
        keys.map((key) => ({ address, key, value: new TextEncoder().encode(`${by}:${key}`), headers: { ce_id: `${by}-${key}` } })),
      );
      await producer.close();
    }
    const consumer = transports.kafkajs.consumer({ address, groupId: 'keys', batchSize: 1_000 });
    cleanups.push(() => consumer.close());
    const partitionOf = new Map<string, number>();
    await waitFor(
      async () => {
        for (const r of (await consumer.poll(AbortSignal.timeout(1_000))) as IncomingRecord[])
          partitionOf.set(new TextDecoder().decode(r.value), r.partition);
        return partitionOf.size === 2 * KEYS;
      },
      () => `every record read (${partitionOf.size} of ${2 * KEYS})`,
      60_000,
    );
    const differing = keys.filter((k) => partitionOf.get(`kafkajs:${k}`) !== partitionOf.get(`platformatic:${k}`));
    expect(differing, 'keys placed differently by the two drivers').toEqual([]);
    // And where Java's murmur2 puts them.
    const java = (key: string) => (murmur2(Buffer.from(key, 'utf8')) & 0x7fffffff) % PARTITIONS;
    expect(keys.filter((k) => partitionOf.get(`platformatic:${k}`) !== java(k))).toEqual([]);
    expect(new Set(partitionOf.values()).size).toBe(PARTITIONS);
  }, 120_000);
});
