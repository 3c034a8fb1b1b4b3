/**
 * Publish → handle throughput over a real Kafka broker: keiyaku's typed pipeline
 * (factory validation, publisher batching with acks=all, CloudEvents headers, the belt with
 * decode + validation + dispatch, explicit commits) against raw kafkajs in the same process
 * (sendBatch of 1000 JSON messages with acks=all, eachBatch consumer with auto-commit).
 * Uses KAFKA_BROKERS, else starts scripts/kafka on port 19292.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { BookBorrowed, BookIntegrationEvents } from '../generated/index.js';
import { createMessaging } from '../runtime/index.js';
import { KafkaTransport } from '../runtime/kafka/index.js';

const TOTAL = Number(process.env['BENCH_MESSAGES'] ?? 50_000);
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
const payload = (i: number) => ({
  bookId: `6f1c2b8e-3a4d-4e5f-9a0b-${String(i % 64).padStart(12, '0')}`,
  copyId: `C-${i}`,
  borrower: { memberId: 'M-1001', displayName: 'Ada Lovelace' },
  borrowedAt: '2026-11-02T10:15:00Z',
  dueAt: '2026-11-23T10:15:00Z',
  channel: 'desk' as const,
});
const retry = { retries: 5, initialRetryTime: 100, maxRetryTime: 2_000 };

/** Milliseconds until the last publish was acknowledged, and until the last message was handled. */
interface Timing {
  readonly publishMs: number;
  readonly totalMs: number;
}

async function rawKafkajs(withHeaders: boolean): Promise<Timing> {
  const kafka = new Kafka({ brokers: brokers!.split(','), clientId: 'bench-raw', logLevel: logLevel.NOTHING, retry });
  const topic = `bench-raw-${randomUUID().slice(0, 8)}`;
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions: 6, replicationFactor: 1 }], waitForLeaders: true });
  await admin.disconnect();
  const consumer = kafka.consumer({ groupId: `${topic}-group`, maxWaitTimeInMs: 100, retry });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  let handled = 0;
  let done: () => void = () => {};
  const all = new Promise<void>((resolve) => (done = resolve));
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
  const producer = kafka.producer({ retry });
  await producer.connect();
  const start = performance.now();
  for (let i = 0; i < TOTAL; i += 1000) {
    const messages = [];
    for (let j = i; j < Math.min(TOTAL, i + 1000); j++) {
      const headers = withHeaders
        ? {
            ce_specversion: '1.0',
            ce_id: randomUUID(),
            ce_type: 'BookBorrowed',
            ce_source: 'bench',
            ce_time: new Date().toISOString(),
            'content-type': 'application/json',
          }
        : undefined;
      messages.push({ key: payload(j).bookId, value: JSON.stringify(payload(j)), ...(headers ? { headers } : {}) });
    }
    await producer.send({ topic, messages, acks: -1 });
  }
  const publishMs = performance.now() - start;
  await all;
  const totalMs = performance.now() - start;
  await producer.disconnect();
  await consumer.disconnect();
  return { publishMs, totalMs };
}

async function keiyaku(): Promise<Timing> {
  const transport = new KafkaTransport({
    brokers: brokers!.split(','),
    namespace: `bench-${randomUUID().slice(0, 8)}`,
    maxWaitTimeInMs: 100,
    retry,
  });
  const messaging = createMessaging({ transport });
  let handled = 0;
  let done: () => void = () => {};
  const all = new Promise<void>((resolve) => (done = resolve));
  messaging.subscribe(
    BookIntegrationEvents,
    {
      groupId: 'bench.counter',
      handle(message) {
        if (message.copyId) handled++;
        if (handled >= TOTAL) done();
      },
    },
    { batchSize: 1_000 },
  );
  await messaging.start();
  const publisher = messaging.publisher(BookIntegrationEvents, { key: (m) => m.bookId, maxBatchCount: 1_000, lingerMs: 2 });
  const start = performance.now();
  for (let i = 0; i < TOTAL; i += 1000) {
    const batch = [];
    for (let j = i; j < Math.min(TOTAL, i + 1000); j++) batch.push(BookBorrowed.create(payload(j)));
    await publisher.publishMany(batch);
  }
  const publishMs = performance.now() - start;
  await all;
  const totalMs = performance.now() - start;
  await messaging.stop();
  return { publishMs, totalMs };
}

const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3);
const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
try {
  // Interleaved rounds (the order rotates), so load from other processes falls on all three alike; medians reported.
  const runs: Record<'raw' | 'rawHeaders' | 'typed', Timing[]> = { raw: [], rawHeaders: [], typed: [] };
  const contenders = [
    ['raw', () => rawKafkajs(false)],
    ['rawHeaders', () => rawKafkajs(true)],
    ['typed', () => keiyaku()],
  ] as const;
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < contenders.length; i++) {
      const [name, run] = contenders[(i + round) % contenders.length]!;
      runs[name].push(await run());
    }
  }
  const pick = (name: keyof typeof runs, field: keyof Timing): number => median(runs[name].map((t) => t[field]));
  const rate = (ms: number): string => `${(((TOTAL / ms) * 1000) / 1000).toFixed(1)}k msg/s`;
  out(`messages: ${TOTAL.toLocaleString('en')} over Kafka at ${brokers} (6 partitions, acks=all), median of ${ROUNDS} interleaved rounds`);
  const line = (label: string, name: keyof typeof runs): void =>
    out(
      `${label}: publish ${pick(name, 'publishMs').toFixed(0)} ms, end to end ${pick(name, 'totalMs').toFixed(0)} ms (${rate(pick(name, 'totalMs'))})`,
    );
  line('raw kafkajs (sendBatch 1000, eachBatch)  ', 'raw');
  line('raw kafkajs + the 6 CloudEvents headers  ', 'rawHeaders');
  line('keiyaku typed pipeline over Kafka        ', 'typed');
  const ratio = (base: keyof typeof runs, field: keyof Timing): string => (pick(base, field) / pick('typed', field)).toFixed(2);
  out(
    `ratio keiyaku/raw kafkajs throughput     : ${ratio('raw', 'totalMs')}x end to end, ${ratio('raw', 'publishMs')}x publish (against raw with the same headers: ${ratio('rawHeaders', 'totalMs')}x end to end, ${ratio('rawHeaders', 'publishMs')}x publish)`,
  );
} finally {
  if (started) execFileSync(join(root, 'scripts', 'kafka'), ['stop'], { env: { ...process.env, KAFKA_PORT: '19292' } });
}
