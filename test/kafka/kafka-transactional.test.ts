// Transactional subscriptions on a real broker (Kafka → Kafka consume-process-produce): a
// subscription reads loans (one at a time, or through a batch handler) and publishes one reminder per loan in Kafka transactions, and a plain
// `read_committed` reader (kafkajs) reads the reminders. N inputs give N outputs and the input
// group's offsets are committed; a relay process SIGKILLed mid-batch and restarted with the same
// transactional id leaves every output exactly once for the reader (the killed one's open
// transaction is aborted when its successor fences it).
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { createMessaging, type Messaging, type Subscription } from '@keiyaku/runtime';
import type { Transport } from '@keiyaku/runtime/adapter';
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { BookIntegrationEvents, type BookIntegrationEventsMessage, DueDateReminder, MemberNotifications } from '../../generated/index.js';
import { borrowed } from '../books.js';
import { repoRoot, waitFor } from '../helpers.js';
import { kafkaBrokers, kafkaSkipReason, testLogger, testTransport } from './kafka-env.js';

const run = kafkaBrokers === '' ? describe.skip : describe;
const kafka =
  kafkaBrokers === ''
    ? undefined
    : new Kafka({ brokers: kafkaBrokers.split(','), clientId: 'keiyaku-tests-tx', logLevel: logLevel.NOTHING });
const admin = kafka?.admin();
afterAll(async () => {
  await admin?.disconnect();
});
const hosts: Messaging[] = [];
const children: ChildProcess[] = [];
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  for (const host of hosts.splice(0)) await host.stop();
  for (const close of closers.splice(0)) await close();
});

const MEMBER = 'M-1001';
const OUTPUT_ADDRESS = `library.members.${MEMBER}.notifications`;

/** A read_committed reader of `topic` from the beginning: the titles of the reminders it read, in order. */
async function committedReader(topic: string): Promise<string[]> {
  const titles: string[] = [];
  const consumer = kafka!.consumer({ groupId: `reader-${randomUUID()}`, readUncommitted: false, maxWaitTimeInMs: 100 });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ message }) => {
      const payload = JSON.parse(message.value!.toString()) as { loans: { title: string }[] };
      titles.push(payload.loans[0]!.title);
    },
  });
  closers.push(() => consumer.disconnect());
  return titles;
}

/** Records committed by the group `group` (namespaced) on `topic`, over its partitions. */
async function committedOffsets(group: string, topic: string): Promise<number> {
  const [offsets] = await admin!.fetchOffsets({ groupId: group, topics: [topic] });
  return offsets!.partitions.reduce((sum, p) => sum + Math.max(0, Number(p.offset)), 0);
}

const copies = (n: number) => Array.from({ length: n }, (_, i) => `C-${String(i).padStart(4, '0')}`);
const book = (i: number) => `6f1c2b8e-3a4d-4e5f-9a0b-${String(i).padStart(12, '0')}`;

async function publishLoans(messaging: Messaging, ids: readonly string[]): Promise<void> {
  const loans = messaging.publisher(BookIntegrationEvents, { lingerMs: 2 });
  // Spread over the partitions by book id (the channel's key).
  await loans.publishMany(ids.map((copyId, i) => ({ ...borrowed(copyId), bookId: book(i % 24) })));
}

run(`transactional subscriptions on a real broker${kafkaSkipReason ? ` (${kafkaSkipReason})` : ''}`, () => {
  it('relays N inputs to N outputs seen once by a read_committed reader, with the input offsets committed', async () => {
    await admin!.connect();
    const transport = testTransport();
    const messaging = createMessaging({ transport, logger: testLogger });
    hosts.push(messaging);
    const reminders = messaging.publisher(MemberNotifications, { parameters: { memberId: MEMBER } });
    const subscription: Subscription<BookIntegrationEventsMessage> = messaging.subscribe(
      BookIntegrationEvents,
      {
        groupId: 'reminders.tx',
        async handle(message) {
          await reminders.publish(
            DueDateReminder.create({
              memberId: MEMBER,
              loans: [{ bookId: message.bookId, title: message.copyId, dueAt: '2026-11-23T10:15:00Z' }],
            }),
          );
        },
      },
      { transactional: true, batchSize: 25 },
    );
    await messaging.start();
    expect(subscription.transactionalId).toMatch(/^keiyaku\.reminders\.tx\./);
    await transport.provision(MemberNotifications.address({ memberId: MEMBER }), MemberNotifications.bindings);
    const outputTopic = transport.topic(OUTPUT_ADDRESS);
    const seen = await committedReader(outputTopic);
    const ids = copies(100);
    await publishLoans(messaging, ids);
    await waitFor(
      () => seen.length >= ids.length,
      () => `${ids.length} outputs read (read ${seen.length})`,
      60_000,
    );
    const inputTopic = transport.topic(BookIntegrationEvents.address);
    await waitFor(
      async () => (await committedOffsets(transport.group('reminders.tx'), inputTopic)) === ids.length,
      'the input offsets committed',
      30_000,
    );
    await new Promise((resolve) => setTimeout(resolve, 500)); // nothing more arrives
    expect(seen.length).toBe(ids.length);
    expect([...seen].sort()).toEqual(ids);
  });

  it('relays N inputs through a batch handler to N outputs seen once, with the input offsets committed', async () => {
    await admin!.connect();
    const transport = testTransport();
    const messaging = createMessaging({ transport, logger: testLogger });
    hosts.push(messaging);
    const reminders = messaging.publisher(MemberNotifications, { parameters: { memberId: MEMBER } });
    const sizes: number[] = [];
    messaging.subscribeBatch(
      BookIntegrationEvents,
      {
        groupId: 'reminders.tx-batch',
        async handleBatch(batch) {
          sizes.push(batch.length);
          for (const { message } of batch)
            await reminders.publish(
              DueDateReminder.create({
                memberId: MEMBER,
                loans: [{ bookId: message.bookId, title: message.copyId, dueAt: '2026-11-23T10:15:00Z' }],
              }),
            );
        },
      },
      { transactional: true, batchSize: 25, batch: { maxSize: 10, maxWaitMs: 50 } },
    );
    await messaging.start();
    await transport.provision(MemberNotifications.address({ memberId: MEMBER }), MemberNotifications.bindings);
    const seen = await committedReader(transport.topic(OUTPUT_ADDRESS));
    const ids = copies(100);
    await publishLoans(messaging, ids);
    await waitFor(
      () => seen.length >= ids.length,
      () => `${ids.length} outputs read (read ${seen.length})`,
      60_000,
    );
    await waitFor(
      async () =>
        (await committedOffsets(transport.group('reminders.tx-batch'), transport.topic(BookIntegrationEvents.address))) === ids.length,
      'the input offsets committed',
      30_000,
    );
    await new Promise((resolve) => setTimeout(resolve, 500)); // nothing more arrives
    expect([...seen].sort()).toEqual(ids);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(10);
    expect(sizes.some((n) => n > 1)).toBe(true);
  });

  it('leaves every output exactly once for a read_committed reader across a SIGKILL mid-batch and a restart with the same transactional id', async () => {
    await admin!.connect();
    const transport = testTransport();
    const namespace = transport.options.namespace!;
    const messaging = createMessaging({ transport, logger: testLogger });
    hosts.push(messaging);
    await transport.provision(BookIntegrationEvents.address, BookIntegrationEvents.bindings);
    await transport.provision(MemberNotifications.address({ memberId: MEMBER }), MemberNotifications.bindings);
    const seen = await committedReader(transport.topic(OUTPUT_ADDRESS));
    const ids = copies(300);
    await publishLoans(messaging, ids);

    const handled: string[] = [];
    const relay = (): ChildProcess => {
      const child = spawn(
        process.execPath,
        ['--import', 'tsx/esm', '--conditions=keiyaku-source', join(repoRoot, 'test', 'kafka', 'transactional-relay.ts')],
        {
          cwd: repoRoot,
          env: {
            ...process.env,
            KAFKA_BROKERS: kafkaBrokers,
            RELAY_NAMESPACE: namespace,
            RELAY_GROUP: 'reminders.relay',
            RELAY_TRANSACTIONAL_ID: `relay-${namespace}`,
            RELAY_BATCH: '40',
            RELAY_DELAY_MS: '5',
          },
          stdio: ['ignore', 'pipe', 'inherit'],
        },
      );
      let buffered = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        buffered += chunk.toString();
        const lines = buffered.split('\n');
        buffered = lines.pop()!;
        for (const line of lines) if (line.startsWith('handled ')) handled.push(line.slice('handled '.length));
      });
      children.push(child);
      return child;
    };

    const first = relay();
    // Killed mid-batch: past the first commits, inside a transaction not yet committed.
    await waitFor(
      () => handled.length >= 100 && handled.length % 40 > 10,
      () => `the first relay handled 100 (handled ${handled.length})`,
      90_000,
    );
    first.kill('SIGKILL');
    await new Promise((resolve) => first.once('exit', resolve));
    const beforeRestart = handled.length;
    relay();
    await waitFor(
      () => new Set(seen).size >= ids.length,
      () => `every output read (read ${new Set(seen).size} of ${ids.length})`,
      120_000,
    );
    const inputTopic = transport.topic(BookIntegrationEvents.address);
    await waitFor(
      async () => (await committedOffsets(transport.group('reminders.relay'), inputTopic)) === ids.length,
      'the input offsets committed',
      30_000,
    );
    await new Promise((resolve) => setTimeout(resolve, 1_000)); // nothing more arrives
    expect(handled.length).toBeGreaterThan(ids.length); // records of the killed transaction ran again
    expect(beforeRestart).toBeLessThan(ids.length);
    expect(seen.length).toBe(ids.length);
    expect([...seen].sort()).toEqual(ids);
  });

  it('stops as failed when another producer takes its transactional id, and nothing of its fenced transaction is read', async () => {
    await admin!.connect();
    const transport = testTransport();
    const messaging = createMessaging({ transport, logger: testLogger });
    hosts.push(messaging);
    const reminders = messaging.publisher(MemberNotifications, { parameters: { memberId: MEMBER } });
    const handled: string[] = [];
    const subscription = messaging.subscribe(
      BookIntegrationEvents,
      {
        groupId: 'reminders.fenced',
        async handle(message) {
          await reminders.publish(
            DueDateReminder.create({
              memberId: MEMBER,
              loans: [{ bookId: message.bookId, title: message.copyId, dueAt: '2026-11-23T10:15:00Z' }],
            }),
          );
          handled.push(message.copyId);
        },
      },
      { transactional: { transactionalId: 'reminders-fenced' }, batchSize: 1_000 },
    );
    await messaging.start();
    await transport.provision(MemberNotifications.address({ memberId: MEMBER }), MemberNotifications.bindings);
    const seen = await committedReader(transport.topic(OUTPUT_ADDRESS));
    await publishLoans(messaging, ['C-0001']);
    await waitFor(() => seen.length === 1, 'the first output', 30_000);
    // A successor takes the id over: initialising it fences the subscription's producer.
    const successor = (transport as Transport).transactionalProducer!('reminders-fenced');
    closers.push(() => successor.close());
    await (await successor.begin()).abort();
    await publishLoans(messaging, ['C-0002']);
    await waitFor(
      () => subscription.health().state === 'failed',
      () => `the subscription failed (state ${subscription.health().state})`,
      30_000,
    );
    expect(subscription.health().lastError).toMatch(/^fenced: /);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(seen).toEqual(['C-0001']);
  });
});
