// Binary (Avro) payloads on a real broker, on the driver KAFKA_DRIVER picks (run this file with
// KAFKA_DRIVER=platformatic too): binary content mode carries the codec's bytes as the record's value
// and the codec's `content-type` (checked with a raw kafkajs consumer); readings arrive byte-exact,
// per-key order and headers kept; a record whose bytes are not Avro of its schema fails to decode
// as `malformed` and is parked, its bytes kept; a redrive republishes the parked bytes unchanged.
import { randomUUID } from 'node:crypto';
import { createMessaging, InMemoryDeadLetterStore, type Messaging, redrive, silentLogger } from '@keiyaku/runtime';
import { Kafka, logLevel } from 'kafkajs';
import { afterEach, describe, expect, it } from 'vitest';
import { HOSTILE_BYTES, type ReadingMessage, reading, readingChannel } from '../binary/binary-contract.js';
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
    const got: { message: ReadingMessage; correlationId: string | undefined; note: string | undefined }[] = [];
    host.subscribe(channel, {
      groupId: 'readers',
      handle(message, context) {
        got.push({ message, correlationId: context.correlationId, note: context.headers['note'] });
      },
    });
    await host.start();
    const publisher = host.publisher(channel);
    for (let i = 0; i < 30; i++) await publisher.publish(reading(i), { correlationId: `c-${i}`, headers: { note: `n-${i}` } });
    await waitFor(() => got.length === 30, 'all 30 readings arrived', 30_000);
    for (const { message, correlationId, note } of got) {
      expect(message.blob).toEqual(Uint8Array.from([...HOSTILE_BYTES, message.seq]));
      expect(correlationId).toBe(`c-${message.seq}`);
      expect(note).toBe(`n-${message.seq}`);
    }
    for (let s = 0; s < 3; s++) {
      const order = got.filter((g) => g.message.sensor === `s-${s}`).map((g) => g.message.seq);
      expect(order).toEqual(Array.from({ length: 10 }, (_, k) => s + 3 * k));
    }
    const raw = await rawRecords(transport.topic(channel.address), 30);
    const first = raw.find((r) => r.headers['ce_correlationid'] === 'c-0')!;
    expect(first.headers['content-type']).toBe('application/avro');
    expect(first.headers['ce_type']).toBe('Reading');
    expect(new Uint8Array(first.value)).toEqual(channel.message('Reading')!.encode(reading(0)));
    expect(first.key).toBe('s-0');
  });

  it('parks a record that is not Avro of its schema as malformed, bytes kept; a redrive republishes the parked bytes', async () => {
    const transport = testTransport();
    const deadLetters = new InMemoryDeadLetterStore();
    const host = createMessaging({ logger: silentLogger, transport, deadLetters });
    hosts.push(host);
    const channel = readingChannel(`readings.${randomUUID().slice(0, 8)}`);
    let failing = true;
    const handled: ReadingMessage[] = [];
    host.subscribe(
      channel,
      {
        groupId: 'readers',
        handle(message) {
          if (failing && message.seq === 7) throw new Error('downstream refused reading 7');
          handled.push(message);
        },
      },
      { deadLetter: { maxRetries: 0 }, retry: { initialMs: 1, maxMs: 1, jitter: 0 } },
    );
    await host.start();
    const garbage = Uint8Array.from([0x02, 0xff, 0x00, 0xc3, 0x28, 0xfe]);
    const producer = transport.producer();
    await producer.send([
      {
        address: channel.address,
        key: 's-0',
        value: garbage,
        headers: { ce_specversion: '1.0', ce_id: 'bad-1', ce_type: 'Reading', 'content-type': 'application/avro' },
      },
    ]);
    await producer.close();
    const publisher = host.publisher(channel);
    await publisher.publish(reading(7));
    await publisher.publish(reading(8));
    await waitFor(async () => (await deadLetters.count()) === 2 && handled.length === 1, 'both parked, 8 handled', 30_000);
    const parked = await deadLetters.list();
    const bad = parked.find((p) => p.headers['ce_id'] === 'bad-1')!;
    expect(bad.error).toMatchObject({ name: 'ContractDecodeError' });
    expect(bad.error.message).toContain('payload is not Avro');
    expect(bad.payload).toEqual(garbage);
    const seven = parked.find((p) => p.headers['ce_id'] !== 'bad-1')!;
    const sevenBytes = channel.message('Reading')!.encode(reading(7));
    expect(seven.payload).toEqual(sevenBytes);

    failing = false;
    const result = await redrive(seven.id, { transport, deadLetters, channel: () => channel });
    expect(result.removed).toBe(true);
    await waitFor(() => handled.length === 2, 'the redriven reading is handled', 30_000);
    expect(handled[1]!.blob).toEqual(reading(7).blob);
    const raw = await rawRecords(transport.topic(channel.address), 4);
    const redriven = raw.find((r) => r.headers['keiyaku-redriven-from'] === seven.id)!;
    expect(new Uint8Array(redriven.value)).toEqual(sevenBytes);
    expect(redriven.headers['content-type']).toBe('application/avro');
  });
});
