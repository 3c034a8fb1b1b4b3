/**
 * Consume throughput over a real Kafka broker: one topic (6 partitions) filled once with
 * BENCH_MESSAGES BookBorrowed events in binary content mode (six CloudEvents headers), then read
 * from the start by a new group in interleaved rounds: raw kafkajs (eachBatch, JSON.parse of each
 * value, auto-commit), and keiyaku's belt (decode, validation, dispatch, explicit commits) on the
 * kafkajs driver and on the platformatic driver. Goal: the platformatic driver through the belt
 * reads at least 0.9x as fast as raw kafkajs.
 * Uses KAFKA_BROKERS, else starts scripts/kafka on port 19292.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { BookBorrowed, BookIntegrationEvents } from '../generated/index.js';
import { createMessaging } from '../runtime/index.js';
import { createKafkaTransport, type KafkaDriver } from '../runtime/kafka/index.js';
import { median, verdict } from './stats.js';

const TOTAL = Number(process.env['BENCH_MESSAGES'] ?? 100_000);
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3);
const out = (line: string): void => {
  process.stdout.write(`${line}\n`);
};
const root = join(import.meta.dirname, '..');
let started = false;
let brokers = process.env['KAFKA_BROKERS'];
if (!brokers) {
  brokers = execFileSync(join(root, 'scripts', 'kafka'), ['start'], { env: { ...process.env, KAFKA_PORT: '19292' }, encoding: 'utf8' })
    .trim()
    .split('\n')
    .pop()!;
  started = true;
}
const retry = { retries: 5, initialRetryTime: 100, maxRetryTime: 2_000 };
const namespace = `bench-${randomUUID().slice(0, 8)}`;

/** Fills the topic once with TOTAL events through keiyaku's publisher on kafkajs. */
async function fill(): Promise<string> {
  const transport = createKafkaTransport({ brokers: brokers!.split(','), namespace, retry });
  const messaging = createMessaging({ transport });
  await messaging.start();
  await transport.provision(BookIntegrationEvents.address, { kafka: { partitions: 6 } });
  const publisher = messaging.publisher(BookIntegrationEvents, { key: (m) => m.bookId, maxBatchCount: 1_000, lingerMs: 2 });
  for (let i = 0; i < TOTAL; i += 1000) {
    const batch = [];
    for (let j = i; j < Math.min(TOTAL, i + 1000); j++)
      batch.push(
        BookBorrowed.create({
          bookId: `6f1c2b8e-3a4d-4e5f-9a0b-${String(j % 64).padStart(12, '0')}`,
          copyId: `C-${j}`,
          borrower: { memberId: 'M-1001', displayName: 'Ada Lovelace' },
          borrowedAt: '2026-11-02T10:15:00Z',
          dueAt: '2026-11-23T10:15:00Z',
          channel: 'desk' as const,
        }),
      );
    await publisher.publishMany(batch);
  }
  const topic = transport.topic(BookIntegrationEvents.address);
  await messaging.stop();
  return topic;
}

/** Messages per second of raw kafkajs reading the whole topic in a new group. */
async function rawKafkajs(topic: string): Promise<number> {
  const kafka = new Kafka({ brokers: brokers!.split(','), clientId: 'bench-raw', logLevel: logLevel.NOTHING, retry });
  const consumer = kafka.consumer({ groupId: `raw-${randomUUID().slice(0, 8)}`, maxWaitTimeInMs: 100, retry });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  let handled = 0;
  let done: () => void = () => {};
  const all = new Promise<void>((resolve) => (done = resolve));
  const start = performance.now();
  await consumer.run({
    partitionsConsumedConcurrently: 6,
    eachBatch: async ({ batch }) => {
      for (const message of batch.messages) {
        const value = JSON.parse(message.value!.toString('utf8')) as { copyId: string };
        if (value.copyId) handled++;
      }
      if (handled >= TOTAL) done();
    },
  });
  await all;
  const seconds = (performance.now() - start) / 1000;
  await consumer.disconnect();
  return TOTAL / seconds;
}

/** Messages per second of keiyaku's belt on `driver` reading the whole topic in a new group. */
async function belt(driver: KafkaDriver): Promise<number> {
  const transport = createKafkaTransport({ driver, brokers: brokers!.split(','), namespace, maxWaitTimeInMs: 100, retry });
  const messaging = createMessaging({ transport });
  let handled = 0;
  let done: () => void = () => {};
  const all = new Promise<void>((resolve) => (done = resolve));
  messaging.subscribe(
    BookIntegrationEvents,
    {
      groupId: `belt-${driver}-${randomUUID().slice(0, 8)}`,
      handle(message) {
        if (message.copyId) handled++;
        if (handled >= TOTAL) done();
      },
    },
    { batchSize: 1_000 },
  );
  const start = performance.now();
  await messaging.start();
  await all;
  const seconds = (performance.now() - start) / 1000;
  await messaging.stop();
  return TOTAL / seconds;
}

try {
  const topic = await fill();
  // Interleaved rounds (the order rotates), so load from other processes falls on all alike; medians reported.
  const runs: Record<'raw' | 'kafkajs' | 'platformatic', number[]> = { raw: [], kafkajs: [], platformatic: [] };
  const kinds: [keyof typeof runs, () => Promise<number>][] = [
    ['raw', () => rawKafkajs(topic)],
    ['kafkajs', () => belt('kafkajs')],
    ['platformatic', () => belt('platformatic')],
  ];
  // One unmeasured read of each warms the broker's page cache and the clients' code.
  for (const [, run] of kinds) await run();
  for (let round = 0; round < ROUNDS; round++)
    for (let k = 0; k < kinds.length; k++) {
      const [name, run] = kinds[(round + k) % kinds.length]!;
      runs[name].push(await run());
    }
  const rate = (name: keyof typeof runs): number => median(runs[name]);
  out(`consume ${TOTAL} events (binary content mode, 6 partitions), medians of ${ROUNDS} interleaved rounds:`);
  out(`  raw kafkajs (eachBatch, JSON.parse)       ${Math.round(rate('raw'))} msg/s  [${runs.raw.map(Math.round).join(', ')}]`);
  out(`  keiyaku belt, kafkajs driver              ${Math.round(rate('kafkajs'))} msg/s  [${runs.kafkajs.map(Math.round).join(', ')}]`);
  out(
    `  keiyaku belt, platformatic driver         ${Math.round(rate('platformatic'))} msg/s  [${runs.platformatic.map(Math.round).join(', ')}]`,
  );
  const ratio = rate('platformatic') / rate('raw');
  out(`ratio platformatic belt / raw kafkajs        : ${ratio.toFixed(2)}x (goal >= 0.9x: ${verdict(ratio.toFixed(2), 0.9)})`);
  out(`ratio platformatic belt / kafkajs belt       : ${(rate('platformatic') / rate('kafkajs')).toFixed(2)}x`);
} finally {
  if (started) execFileSync(join(root, 'scripts', 'kafka'), ['stop'], { env: { ...process.env, KAFKA_PORT: '19292' } });
}
