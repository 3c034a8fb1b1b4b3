// Binary payloads (Avro and Protobuf) on a real broker, on the driver KAFKA_DRIVER picks (run this
// file with KAFKA_DRIVER=platformatic too): binary content mode carries the codec's bytes as the
// record's value and the codec's `content-type` (checked with a raw kafkajs consumer); messages
// arrive byte-exact, per-key order and headers kept; a record whose bytes are not an encoding of its
// schema fails to decode as `malformed` and is parked, its bytes kept; a redrive republishes the
// parked bytes unchanged.
import { randomUUID } from 'node:crypto';
import { createMessaging, InMemoryDeadLetterStore, type Messaging, silentLogger } from '@keiyaku/runtime';
import { Kafka, logLevel } from 'kafkajs';
import { afterEach, describe, expect, it } from 'vitest';
import { hex, readingChannel, sample } from '../binary/binary-contract.js';
import { parkAndRedrive, roundTrip } from '../binary/scenarios.js';
import { waitFor } from '../helpers.js';
import { kafkaBrokers, kafkaDriver, kafkaSkipReason, testTransport } from './kafka-env.js';

const run = kafkaBrokers === '' ? describe.skip : describe;
const hosts: Messaging[] = [];
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.stop();
});

/** Every record of `topic` as a plain Kafka consumer sees it, once `count` arrived. */
async function rawRecords(topic: string, count: number) {
  const kafka = new Kafka({ brokers: kafkaBrokers.split(','), clientId: 'keiyaku-tests-raw', logLevel: logLevel.NOTHING });
  const consumer = kafka.consumer({ groupId: `raw-${randomUUID()}`, maxWaitTimeInMs: 100 });
  const seen: { headers: Record<string, string>; value: Buffer; key: string }[] = [];
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ message }) => {
      const headers = Object.fromEntries(Object.entries(message.headers ?? {}).map(([k, v]) => [k, String(v)]));
      seen.push({ headers, value: message.value!, key: message.key!.toString('utf8') });
    },
  });
  try {
    await waitFor(() => seen.length >= count, `the raw consumer got ${count} records`, 30_000);
  } finally {
    await consumer.disconnect();
  }
  return seen;
}

run(`Kafka binary payloads, ${kafkaDriver} driver${kafkaSkipReason ? ` (${kafkaSkipReason})` : ''}`, () => {
  it('carries the codec bytes and content type in binary mode: byte-exact, per-key order and headers kept', async () => {
    const transport = testTransport();
    const host = createMessaging({ logger: silentLogger, transport });
    hosts.push(host);
    const channel = readingChannel(`readings.${randomUUID().slice(0, 8)}`);
    await roundTrip(host, channel, 30_000);
    // As a plain Kafka consumer sees the records: the codec's bytes as the value, its content type.
    const raw = await rawRecords(transport.topic(channel.address), 30);
    for (const [correlationId, seq, type, contentType] of [
      ['c-0', 0, 'Reading', 'application/avro'],
      ['c-1', 1, 'Scan', 'application/x-protobuf'],
    ] as const) {
      const record = raw.find((r) => r.headers['ce_correlationid'] === correlationId)!;
      expect(record.headers['content-type']).toBe(contentType);
      expect(record.headers['ce_type']).toBe(type);
      expect(hex(record.value)).toBe(hex(channel.message(type)!.encode(sample(seq))));
      expect(record.key).toBe(`s-${seq}`);
    }
  });

  it('parks records that are not an encoding of their schema as malformed, bytes kept; a redrive republishes the parked bytes', async () => {
    const transport = testTransport();
    const deadLetters = new InMemoryDeadLetterStore();
    const host = createMessaging({ logger: silentLogger, transport, deadLetters });
    hosts.push(host);
    const channel = readingChannel(`readings.${randomUUID().slice(0, 8)}`);
    const sevenBytes = await parkAndRedrive(host, transport, deadLetters, channel, 30_000);
    const raw = await rawRecords(transport.topic(channel.address), 5);
    const redriven = raw.find((r) => r.headers['keiyaku-redriven-from'] !== undefined)!;
    expect(hex(redriven.value)).toBe(hex(sevenBytes));
    expect(redriven.headers['content-type']).toBe('application/x-protobuf');
  });
});
