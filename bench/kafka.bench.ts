/**
 * Publish → handle throughput over a real Kafka broker, both drivers against their raw clients in the
 * same process: keiyaku's typed pipeline (factory validation, publisher batching with acks=all,
 * CloudEvents attributes, the belt with decode + validation + dispatch, explicit commits) on the
 * kafkajs driver and on the platformatic driver, against raw kafkajs (sendBatch of 1000 JSON messages,
 * eachBatch consumer with auto-commit) and raw `@platformatic/kafka` (send of 1000, a consumer stream
 * with 1 MiB fetches and autocommit) — without headers and with the same six CloudEvents headers.
 * Then reading alone: one topic filled once, read whole by raw kafkajs and through the belt on each
 * driver (a fresh group each time).
 * Uses KAFKA_BROKERS, else starts scripts/kafka on port 19292. BENCH_MESSAGES, BENCH_ROUNDS.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { BookBorrowed, BookIntegrationEvents } from '../generated/index.js';
import { createMessaging } from '../runtime/index.js';
import { type ContentMode, createKafkaTransport, type KafkaDriver } from '../runtime/kafka/index.js';
import { median, verdict } from './stats.js';

const TOTAL = Number(process.env['BENCH_MESSAGES'] ?? 50_000);
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 5);
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
const bootstrap = brokers.split(',');
const payload = (i: number) => ({
  bookId: `6f1c2b8e-3a4d-4e5f-9a0b-${String(i % 64).padStart(12, '0')}`,
  copyId: `C-${i}`,
  borrower: { memberId: 'M-1001', displayName: 'Ada Lovelace' },
  borrowedAt: '2026-11-02T10:15:00Z',
  dueAt: '2026-11-23T10:15:00Z',
  channel: 'desk' as const,
});
const retry = { retries: 5, initialRetryTime: 100, maxRetryTime: 2_000 };
/** The fetch size the raw `@platformatic/kafka` consumer reads with (its default reads far less per fetch). */
const RAW_MAX_BYTES = 1024 * 1024;

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

const cloudEventHeaders = (): Record<string, string> => ({
  ce_specversion: '1.0',
  ce_id: randomUUID(),
  ce_type: 'BookBorrowed',
  ce_source: 'bench',
  ce_time: new Date().toISOString(),
  'content-type': 'application/json',
});

/** A stopwatch from the first publish: `published()` when the last send was acknowledged, `finish()` when the last message was handled. */
function stopwatch(): { published(): void; finish(): Timing } {
  const cpu = process.cpuUsage();
  const start = performance.now();
  let publishMs = 0;
  return {
    published: () => {
      publishMs = performance.now() - start;
    },
    finish: () => ({ publishMs, totalMs: performance.now() - start, cpuMs: cpuSince(cpu) }),
  };
}

/** A promise resolved by the `TOTAL`th count. */
function counter(): { count(n?: number): void; all: Promise<void> } {
  let handled = 0;
  let done: () => void = () => {};
  const all = new Promise<void>((resolve) => (done = resolve));
  return {
    count: (n = 1) => {
      handled += n;
      if (handled >= TOTAL) done();
    },
    all,
  };
}

async function createTopic(topic: string): Promise<void> {
  const admin = new Kafka({ brokers: bootstrap, clientId: 'bench-admin', logLevel: logLevel.NOTHING, retry }).admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions: 6, replicationFactor: 1 }], waitForLeaders: true });
  // Served by its leaders, not only named in the metadata (a KRaft broker names a leader before it serves).
  for (let attempt = 1; ; attempt++) {
    try {
      await admin.fetchTopicOffsets(topic);
      break;
    } catch (error) {
      if (attempt >= 100) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  await admin.disconnect();
}

/** Raw kafkajs reading `topic` from the start until `TOTAL` messages were parsed; `publish` (if any) runs once it is consuming. */
async function kafkajsReader(topic: string, publish?: () => Promise<void>): Promise<Timing> {
  const kafka = new Kafka({ brokers: bootstrap, clientId: 'bench-raw', logLevel: logLevel.NOTHING, retry });
  const consumer = kafka.consumer({ groupId: `${topic}-${randomUUID().slice(0, 8)}`, maxWaitTimeInMs: 100, retry });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const { count, all } = counter();
  let clock: ReturnType<typeof stopwatch> | undefined;
  if (publish === undefined) clock = stopwatch();
  await consumer.run({
    partitionsConsumedConcurrently: 6,
    eachBatch: async ({ batch }) => {
      let n = 0;
      for (const message of batch.messages) {
        const value = JSON.parse(message.value!.toString('utf8')) as { copyId: string };
        if (value.copyId) n++;
      }
      count(n);
    },
  });
  if (publish !== undefined) {
    clock = stopwatch();
    await publish();
  }
  clock!.published();
  await all;
  const timing = clock!.finish();
  await consumer.disconnect();
  return timing;
}

async function rawKafkajs(withHeaders: boolean): Promise<Timing> {
  const kafka = new Kafka({ brokers: bootstrap, clientId: 'bench-raw', logLevel: logLevel.NOTHING, retry });
  const topic = `bench-raw-${randomUUID().slice(0, 8)}`;
  await createTopic(topic);
  const producer = kafka.producer({ retry });
  await producer.connect();
  try {
    return await kafkajsReader(topic, async () => {
      for (let i = 0; i < TOTAL; i += 1000) {
        const messages = [];
        for (let j = i; j < Math.min(TOTAL, i + 1000); j++) {
          messages.push({
            key: payload(j).bookId,
            value: JSON.stringify(payload(j)),
            ...(withHeaders ? { headers: cloudEventHeaders() } : {}),
          });
        }
        await producer.send({ topic, messages, acks: -1 });
      }
    });
  } finally {
    await producer.disconnect();
  }
}

async function rawPlatformatic(withHeaders: boolean): Promise<Timing> {
  const { Producer, Consumer, MessagesStreamModes, ProduceAcks, stringSerializers } = await import('@platformatic/kafka');
  const topic = `bench-rawp-${randomUUID().slice(0, 8)}`;
  await createTopic(topic);
  const consumer = new Consumer({ clientId: 'bench-rawp', bootstrapBrokers: bootstrap, groupId: `${topic}-group`, maxWaitTime: 100 });
  const producer = new Producer({ clientId: 'bench-rawp', bootstrapBrokers: bootstrap, serializers: stringSerializers });
  const { count, all } = counter();
  const stream = await consumer.consume({ topics: [topic], mode: MessagesStreamModes.EARLIEST, autocommit: true, maxBytes: RAW_MAX_BYTES });
  stream.on('data', (message) => {
    const value = JSON.parse((message.value as Buffer).toString('utf8')) as { copyId: string };
    if (value.copyId) count();
  });
  const clock = stopwatch();
  try {
    for (let i = 0; i < TOTAL; i += 1000) {
      const messages = [];
      for (let j = i; j < Math.min(TOTAL, i + 1000); j++) {
        messages.push({
          topic,
          key: payload(j).bookId,
          value: JSON.stringify(payload(j)),
          ...(withHeaders ? { headers: cloudEventHeaders() } : {}),
        });
      }
      await producer.send({ messages, acks: ProduceAcks.ALL });
    }
    clock.published();
    await all;
    return clock.finish();
  } finally {
    await stream.close();
    await Promise.all([consumer.close(), producer.close()]);
  }
}

/** A keiyaku service on `driver`: the transport, and a subscription counting what it handles. */
function service(driver: KafkaDriver, contentMode: ContentMode, namespace: string, groupId: string) {
  const transport = createKafkaTransport({ driver, brokers: bootstrap, namespace, maxWaitTimeInMs: 100, retry, contentMode });
  const messaging = createMessaging({ transport });
  const { count, all } = counter();
  messaging.subscribe(
    BookIntegrationEvents,
    {
      groupId,
      handle(message) {
        if (message.copyId) count();
      },
    },
    { batchSize: 1_000 },
  );
  return { messaging, all };
}

async function publishAll(messaging: ReturnType<typeof createMessaging>): Promise<void> {
  const publisher = messaging.publisher(BookIntegrationEvents, { key: (m) => m.bookId, maxBatchCount: 1_000, lingerMs: 2 });
  for (let i = 0; i < TOTAL; i += 1000) {
    const batch = [];
    for (let j = i; j < Math.min(TOTAL, i + 1000); j++) batch.push(BookBorrowed.create(payload(j)));
    await publisher.publishMany(batch);
  }
}

async function keiyaku(driver: KafkaDriver, contentMode: ContentMode): Promise<Timing> {
  const { messaging, all } = service(driver, contentMode, `bench-${randomUUID().slice(0, 8)}`, 'bench.counter');
  await messaging.start();
  const clock = stopwatch();
  await publishAll(messaging);
  clock.published();
  await all;
  const timing = clock.finish();
  await messaging.stop();
  return timing;
}

/** The namespace of one topic filled once (binary mode, kafkajs driver) for the reading rounds. */
async function fill(): Promise<string> {
  const namespace = `bench-read-${randomUUID().slice(0, 8)}`;
  const transport = createKafkaTransport({ brokers: bootstrap, namespace, retry });
  const messaging = createMessaging({ transport });
  await messaging.start();
  await publishAll(messaging);
  await messaging.stop();
  return namespace;
}

async function keiyakuReader(driver: KafkaDriver, namespace: string): Promise<Timing> {
  const { messaging, all } = service(driver, 'binary', namespace, `bench.reader-${randomUUID().slice(0, 8)}`);
  await messaging.start();
  const clock = stopwatch();
  clock.published();
  await all;
  const timing = clock.finish();
  await messaging.stop();
  return timing;
}

const NAMES = [
  'rawKafkajs',
  'rawKafkajsHeaders',
  'rawPlatformatic',
  'rawPlatformaticHeaders',
  'kafkajsBinary',
  'kafkajsStructured',
  'platformaticBinary',
  'platformaticStructured',
  'readRawKafkajs',
  'readKafkajs',
  'readPlatformatic',
] as const;
type Name = (typeof NAMES)[number];

try {
  const readNamespace = await fill();
  const readTopic = `${readNamespace}.${BookIntegrationEvents.address}`;
  const contenders: Record<Name, () => Promise<Timing>> = {
    rawKafkajs: () => rawKafkajs(false),
    rawKafkajsHeaders: () => rawKafkajs(true),
    rawPlatformatic: () => rawPlatformatic(false),
    rawPlatformaticHeaders: () => rawPlatformatic(true),
    kafkajsBinary: () => keiyaku('kafkajs', 'binary'),
    kafkajsStructured: () => keiyaku('kafkajs', 'structured'),
    platformaticBinary: () => keiyaku('platformatic', 'binary'),
    platformaticStructured: () => keiyaku('platformatic', 'structured'),
    readRawKafkajs: () => kafkajsReader(readTopic),
    readKafkajs: () => keiyakuReader('kafkajs', readNamespace),
    readPlatformatic: () => keiyakuReader('platformatic', readNamespace),
  };
  // Interleaved rounds (the order rotates), so load from other processes falls on all alike; medians reported.
  const runs = Object.fromEntries(NAMES.map((name) => [name, [] as Timing[]])) as Record<Name, Timing[]>;
  // BENCH_ONLY=name,name runs some contenders only (to look at one of them); the ratios need them all.
  const only = process.env['BENCH_ONLY']?.split(',');
  const chosen = NAMES.filter((name) => only === undefined || only.includes(name));
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < chosen.length; i++) {
      const name = chosen[(i + round) % chosen.length]!;
      const timing = await contenders[name]();
      runs[name].push(timing);
      process.stderr.write(`round ${round + 1} ${name}: ${timing.totalMs.toFixed(0)} ms\n`);
    }
  }
  if (only === undefined) report(runs);
} finally {
  if (started) execFileSync(join(root, 'scripts', 'kafka'), ['stop'], { env: { ...process.env, KAFKA_PORT: '19292' } });
}

function report(runs: Record<Name, Timing[]>): void {
  const pick = (name: Name, field: keyof Timing): number => median(runs[name].map((t) => t[field]));
  const rate = (ms: number): string => `${(TOTAL / ms).toFixed(1)}k msg/s`;
  out(`messages: ${TOTAL.toLocaleString('en')} over Kafka at ${brokers} (6 partitions, acks=all), median of ${ROUNDS} interleaved rounds`);
  const line = (label: string, name: Name): void =>
    out(
      `${label}: publish ${pick(name, 'publishMs').toFixed(0)} ms, end to end ${pick(name, 'totalMs').toFixed(0)} ms (${rate(pick(name, 'totalMs'))}), CPU ${pick(name, 'cpuMs').toFixed(0)} ms`,
    );
  line('raw kafkajs (sendBatch 1000, eachBatch)          ', 'rawKafkajs');
  line('raw kafkajs + the 6 CloudEvents headers          ', 'rawKafkajsHeaders');
  line('raw @platformatic/kafka (send 1000, 1 MiB fetch) ', 'rawPlatformatic');
  line('raw @platformatic/kafka + the 6 CloudEvents hdrs ', 'rawPlatformaticHeaders');
  line('keiyaku kafkajs driver, binary mode              ', 'kafkajsBinary');
  line('keiyaku kafkajs driver, structured mode          ', 'kafkajsStructured');
  line('keiyaku platformatic driver, binary mode         ', 'platformaticBinary');
  line('keiyaku platformatic driver, structured mode     ', 'platformaticStructured');
  line('read only: raw kafkajs                           ', 'readRawKafkajs');
  line('read only: keiyaku belt on the kafkajs driver    ', 'readKafkajs');
  line('read only: keiyaku belt on the platformatic drv. ', 'readPlatformatic');
  const ratio = (base: Name, name: Name, field: keyof Timing = 'totalMs'): string => (pick(base, field) / pick(name, field)).toFixed(2);
  const goal = (label: string, value: string, target: number): void =>
    out(`${label}: ${value}x (goal >= ${target}x: ${verdict(value, target)})`);
  goal('platformatic driver / kafkajs driver, binary mode, end to end          ', ratio('kafkajsBinary', 'platformaticBinary'), 1.5);
  goal(
    'platformatic driver binary / raw @platformatic/kafka, same headers      ',
    ratio('rawPlatformaticHeaders', 'platformaticBinary'),
    0.9,
  );
  goal('platformatic driver structured / raw @platformatic/kafka, no headers    ', ratio('rawPlatformatic', 'platformaticStructured'), 0.8);
  goal('read through the belt, platformatic driver / raw kafkajs                ', ratio('readRawKafkajs', 'readPlatformatic'), 0.9);
  out(`read through the belt, kafkajs driver / raw kafkajs                    : ${ratio('readRawKafkajs', 'readKafkajs')}x`);
  out(
    `kafkajs driver (the previous round's goals): binary / raw kafkajs with the same headers ${ratio('rawKafkajsHeaders', 'kafkajsBinary')}x, structured / raw kafkajs without headers ${ratio('rawKafkajs', 'kafkajsStructured')}x`,
  );
  out(
    `CPU per message (ratios of CPU time; > 1 = the second uses less): platformatic driver vs kafkajs driver, binary ${ratio('kafkajsBinary', 'platformaticBinary', 'cpuMs')}x; platformatic binary vs raw platformatic with headers ${ratio('rawPlatformaticHeaders', 'platformaticBinary', 'cpuMs')}x`,
  );
}
