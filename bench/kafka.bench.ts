/**
 * Publish → handle throughput over a real Kafka broker: keiyaku's typed pipeline
 * (factory validation, publisher batching with acks=all, CloudEvents attributes, the belt with
 * decode + validation + dispatch, explicit commits) against raw kafkajs in the same process
 * (sendBatch of 1000 JSON messages with acks=all, eachBatch consumer with auto-commit): in
 * binary content mode against raw kafkajs writing the same six CloudEvents headers, in
 * structured content mode (the event in the value, one `content-type` header) against raw kafkajs
 * without headers and with that one header.
 * Uses KAFKA_BROKERS, else starts scripts/kafka on port 19292.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { BookBorrowed, BookIntegrationEvents } from '../generated/index.js';
import { createMessaging } from '../runtime/index.js';
import { type ContentMode, KafkaTransport } from '../runtime/kafka/index.js';
import { median, verdict } from './stats.js';

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

/** Milliseconds until the last publish was acknowledged, until the last message was handled, and this process's CPU time until then. */
interface Timing {
  readonly publishMs: number;
  readonly totalMs: number;
  /** CPU (user + system) of this process from the first publish to the last message handled: less sensitive to other load on the machine than wall time. */
  readonly cpuMs: number;
}

const cpuSince = (start: NodeJS.CpuUsage): number => {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
};

/** Which headers raw kafkajs writes: none, the six CloudEvents binary-mode headers, or structured mode's one `content-type`. */
type RawHeaders = 'none' | 'cloudevents' | 'contentType';

async function rawKafkajs(withHeaders: RawHeaders): Promise<Timing> {
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
  const cpu = process.cpuUsage();
  const start = performance.now();
  for (let i = 0; i < TOTAL; i += 1000) {
    const messages = [];
    for (let j = i; j < Math.min(TOTAL, i + 1000); j++) {
      const headers =
        withHeaders === 'cloudevents'
          ? {
              ce_specversion: '1.0',
              ce_id: randomUUID(),
              ce_type: 'BookBorrowed',
              ce_source: 'bench',
              ce_time: new Date().toISOString(),
              'content-type': 'application/json',
            }
          : withHeaders === 'contentType'
            ? { 'content-type': 'application/cloudevents+json' }
            : undefined;
      messages.push({ key: payload(j).bookId, value: JSON.stringify(payload(j)), ...(headers ? { headers } : {}) });
    }
    await producer.send({ topic, messages, acks: -1 });
  }
  const publishMs = performance.now() - start;
  await all;
  const totalMs = performance.now() - start;
  const cpuMs = cpuSince(cpu);
  await producer.disconnect();
  await consumer.disconnect();
  return { publishMs, totalMs, cpuMs };
}

async function keiyaku(contentMode: ContentMode): Promise<Timing> {
  const transport = new KafkaTransport({
    brokers: brokers!.split(','),
    namespace: `bench-${randomUUID().slice(0, 8)}`,
    maxWaitTimeInMs: 100,
    retry,
    contentMode,
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
  const cpu = process.cpuUsage();
  const start = performance.now();
  for (let i = 0; i < TOTAL; i += 1000) {
    const batch = [];
    for (let j = i; j < Math.min(TOTAL, i + 1000); j++) batch.push(BookBorrowed.create(payload(j)));
    await publisher.publishMany(batch);
  }
  const publishMs = performance.now() - start;
  await all;
  const totalMs = performance.now() - start;
  const cpuMs = cpuSince(cpu);
  await messaging.stop();
  return { publishMs, totalMs, cpuMs };
}

const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 5);
try {
  // Interleaved rounds (the order rotates), so load from other processes falls on all alike; medians reported.
  const runs: Record<'raw' | 'rawHeaders' | 'rawContentType' | 'typed' | 'structured', Timing[]> = {
    raw: [],
    rawHeaders: [],
    rawContentType: [],
    typed: [],
    structured: [],
  };
  const contenders = [
    ['raw', () => rawKafkajs('none')],
    ['rawHeaders', () => rawKafkajs('cloudevents')],
    ['rawContentType', () => rawKafkajs('contentType')],
    ['typed', () => keiyaku('binary')],
    ['structured', () => keiyaku('structured')],
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
      `${label}: publish ${pick(name, 'publishMs').toFixed(0)} ms, end to end ${pick(name, 'totalMs').toFixed(0)} ms (${rate(pick(name, 'totalMs'))}), CPU ${pick(name, 'cpuMs').toFixed(0)} ms`,
    );
  line('raw kafkajs (sendBatch 1000, eachBatch)   ', 'raw');
  line('raw kafkajs + the 6 CloudEvents headers   ', 'rawHeaders');
  line('raw kafkajs + one content-type header     ', 'rawContentType');
  line('keiyaku, CloudEvents binary mode          ', 'typed');
  line('keiyaku, CloudEvents structured mode      ', 'structured');
  const ratio = (base: keyof typeof runs, name: keyof typeof runs, field: keyof Timing): string =>
    (pick(base, field) / pick(name, field)).toFixed(2);
  const e2eHeaders = ratio('rawHeaders', 'typed', 'totalMs');
  const pubHeaders = ratio('rawHeaders', 'typed', 'publishMs');
  out(
    `ratio binary mode / raw with the same headers : ${e2eHeaders}x end to end, ${pubHeaders}x publish (goal >= 1.0x: ${verdict(e2eHeaders, 1)}, ${verdict(pubHeaders, 1)})`,
  );
  const e2eRaw = ratio('raw', 'structured', 'totalMs');
  const pubRaw = ratio('raw', 'structured', 'publishMs');
  out(
    `ratio structured mode / raw without headers  : ${e2eRaw}x end to end, ${pubRaw}x publish (goal >= 0.8x: ${verdict(e2eRaw, 0.8)}, ${verdict(pubRaw, 0.8)})`,
  );
  out(
    `CPU per message (this process)              : binary ${ratio('rawHeaders', 'typed', 'cpuMs')}x raw with headers, structured ${ratio('raw', 'structured', 'cpuMs')}x raw without headers (ratios of CPU time; > 1 = keiyaku uses less)`,
  );
  out(
    `ratio structured mode / raw with the same header: ${ratio('rawContentType', 'structured', 'totalMs')}x end to end, ${ratio('rawContentType', 'structured', 'publishMs')}x publish (kafkajs encodes each header in an encoder of its own, a 512-byte buffer: raw without headers / raw with that one header ${ratio('rawContentType', 'raw', 'totalMs')}x)`,
  );
  out(
    `ratio binary mode / raw without headers      : ${ratio('raw', 'typed', 'totalMs')}x end to end, ${ratio('raw', 'typed', 'publishMs')}x publish (structured / raw with headers: ${ratio('rawHeaders', 'structured', 'totalMs')}x end to end)`,
  );
} finally {
  if (started) execFileSync(join(root, 'scripts', 'kafka'), ['stop'], { env: { ...process.env, KAFKA_PORT: '19292' } });
}
