/**
 * What a record's header count costs a Kafka consumer, per driver: kafkajs builds a record's header
 * object with one object spread per header (quadratic), `@platformatic/kafka` reads them into an
 * array (linear). Prints ms per record for 100, 1,000, 2,000 and 8,000 headers (BENCH_HEADER_COUNTS):
 *
 * - decode only: the client's own record decoder on one encoded record (kafkajs'
 *   `recordBatch/record/v0/decoder`, `@platformatic/kafka`'s `readRecord` plus the header object a
 *   driver builds from its pairs), median of a few rounds (one round at 8,000 for kafkajs);
 * - end to end (with KAFKA_BROKERS): one record written by a plain kafkajs producer, read through
 *   the transport's consumer on each driver that can be built (BENCH_DRIVERS, default both), with
 *   `maxHeaders` raised out of the way; beside it the longest event-loop block while it was read.
 *
 * The event loop is blocked for the whole decode on kafkajs: past the group's session timeout the
 * consumer loses its partitions and the record is fetched again after the rebalance.
 */
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { createRecord, Reader, readRecord } from '@platformatic/kafka';
import { Kafka, logLevel } from 'kafkajs';
import { type IncomingRecord, silentLogger } from '../runtime/index.js';
import { createKafkaTransport, KAFKA_DRIVERS, type KafkaDriver } from '../runtime/kafka/index.js';
import { median } from './stats.js';

const require = createRequire(import.meta.url);
type KafkajsDecoder = { readVarIntBytes(): Buffer };
const KafkajsDecoder = require('kafkajs/src/protocol/decoder') as new (buffer: Buffer) => KafkajsDecoder;
const encodeKafkajsRecord = require('kafkajs/src/protocol/recordBatch/record/v0') as (record: {
  key: Buffer;
  value: Buffer;
  headers: Record<string, string>;
}) => { buffer: Buffer };
const decodeKafkajsRecord = require('kafkajs/src/protocol/recordBatch/record/v0/decoder') as (
  decoder: KafkajsDecoder,
  context: Record<string, unknown>,
) => { headers: Record<string, unknown> };

const COUNTS = (process.env['BENCH_HEADER_COUNTS'] ?? '100,1000,2000,8000').split(',').map(Number);
const out = (line: string): void => void process.stdout.write(`${line}\n`);
const headersOf = (n: number): Record<string, string> => {
  const headers: Record<string, string> = {};
  for (let i = 0; i < n; i++) headers[`h-${i}`] = `value-${i}`;
  return headers;
};
const value = Buffer.from(JSON.stringify({ copyId: 'C-1', note: 'x'.repeat(200) }));
const key = Buffer.from('book-1');
/** Rounds per measurement: fewer where one round takes seconds. */
const rounds = (n: number, quadratic: boolean): number => (quadratic ? (n >= 8_000 ? 1 : n >= 2_000 ? 3 : 5) : 7);
const ms = (x: number): string => x.toFixed(x < 10 ? 3 : 1).padStart(10);

function decodeKafkajs(n: number): number {
  const encoded = encodeKafkajsRecord({ key, value, headers: headersOf(n) }).buffer;
  const times: number[] = [];
  for (let r = 0; r < rounds(n, true); r++) {
    const start = performance.now();
    const record = decodeKafkajsRecord(new KafkajsDecoder(new KafkajsDecoder(encoded).readVarIntBytes()), {
      firstOffset: '0',
      firstTimestamp: '0',
      magicByte: 2,
    });
    times.push(performance.now() - start);
    if (Object.keys(record.headers).length !== n) throw new Error(`kafkajs decoded ${Object.keys(record.headers).length} of ${n} headers`);
  }
  return median(times);
}

function decodePlatformatic(n: number): number {
  const headers = new Map<Buffer, Buffer>();
  for (const [k, v] of Object.entries(headersOf(n))) headers.set(Buffer.from(k), Buffer.from(v));
  // One contiguous buffer, as a fetch response arrives.
  const encoded = createRecord({ key, value, headers, topic: 't' }, 0, 0n).buffer;
  const times: number[] = [];
  readRecord(Reader.from(encoded)); // warm-up, untimed
  for (let r = 0; r < rounds(n, false); r++) {
    const start = performance.now();
    const record = readRecord(Reader.from(encoded));
    // The header object a driver hands on, built from the pairs (linear).
    const object: Record<string, string> = {};
    for (const [k, v] of record.headers) if (k !== null) object[k.toString()] = v === null ? '' : v.toString();
    times.push(performance.now() - start);
    if (Object.keys(object).length !== n) throw new Error(`@platformatic/kafka decoded ${Object.keys(object).length} of ${n} headers`);
  }
  return median(times);
}

out('Kafka header decoding, ms per record (one record, median of rounds)');
out(`${'headers'.padStart(8)} ${'kafkajs'.padStart(10)} ${'platformatic'.padStart(12)}  ratio`);
for (const n of COUNTS) {
  const platformatic = decodePlatformatic(n);
  const kafkajs = decodeKafkajs(n);
  out(`${String(n).padStart(8)} ${ms(kafkajs)} ${ms(platformatic).padStart(12)}  ${(kafkajs / platformatic).toFixed(0)}×`);
}

/** One record with `n` headers written raw, read through a transport on `driver`: ms until poll returns it, and the longest event-loop block. */
async function endToEnd(brokers: string[], driver: KafkaDriver, n: number): Promise<{ ms: number; blockMs: number }> {
  const transport = createKafkaTransport({
    driver,
    brokers,
    namespace: `bench${randomUUID().slice(0, 8)}`,
    maxHeaders: 100_000,
    // A decode that blocks the loop for most of a minute must not cost the group its member here.
    sessionTimeoutMs: 180_000,
    heartbeatIntervalMs: 3_000,
    maxWaitTimeInMs: 100,
    logger: silentLogger,
  });
  const address = 'bench.headers';
  await transport.provision(address, { kafka: { partitions: 1 } });
  const consumer = transport.consumer({ address, groupId: 'bench', batchSize: 10 });
  const raw = new Kafka({ brokers, clientId: 'bench-raw', logLevel: logLevel.NOTHING }).producer();
  await raw.connect();
  try {
    // The consumer is ready when a first small record arrives.
    await raw.send({ topic: transport.topic(address), acks: -1, messages: [{ key, value, headers: { warm: 'up' } }] });
    for (let warm: readonly IncomingRecord[] = []; warm.length === 0; ) {
      warm = await consumer.poll(AbortSignal.timeout(1_000));
      for (const r of warm) consumer.ack(r); // a kafkajs batch stays open until acknowledged
    }
    const headers = headersOf(n);
    // The longest gap between ticks of a 10 ms timer: how long the event loop was blocked at once.
    let blockMs = 0;
    let tick = performance.now();
    const timer = setInterval(() => {
      const now = performance.now();
      blockMs = Math.max(blockMs, now - tick - 10);
      tick = now;
    }, 10);
    const start = performance.now();
    await raw.send({ topic: transport.topic(address), acks: -1, messages: [{ key, value, headers }] });
    for (;;) {
      const batch = await consumer.poll(AbortSignal.timeout(1_000));
      if (batch.length === 0) continue;
      consumer.ack(batch[0]!);
      const got = Object.keys(batch[0]!.headers).length;
      if (got !== n) throw new Error(`${driver} delivered ${got} of ${n} headers`);
      break;
    }
    const took = performance.now() - start;
    await new Promise((resolve) => setTimeout(resolve, 20)); // the timer's next tick sees the last block
    clearInterval(timer);
    return { ms: took, blockMs: Math.max(0, blockMs) };
  } finally {
    await raw.disconnect();
    await consumer.close();
    await transport.close();
  }
}

const brokers = process.env['KAFKA_BROKERS'];
if (!brokers) out('\nend to end: skipped (set KAFKA_BROKERS to read through a broker)');
else {
  const drivers = (process.env['BENCH_DRIVERS'] ?? KAFKA_DRIVERS.join(',')).split(',') as KafkaDriver[];
  out(`\nend to end (${brokers}): ms from the raw send to the record polled from the transport's consumer; longest event-loop block`);
  for (const driver of drivers) {
    try {
      createKafkaTransport({ driver, brokers: brokers.split(','), logger: silentLogger });
    } catch (error) {
      out(`${driver.padEnd(13)} skipped: ${(error as Error).message}`);
      continue;
    }
    for (const n of COUNTS) {
      const { ms: took, blockMs } = await endToEnd(brokers.split(','), driver, n);
      out(`${driver.padEnd(13)} ${String(n).padStart(6)} headers: ${ms(took)} ms/record, event loop blocked up to ${ms(blockMs)} ms`);
    }
  }
}
