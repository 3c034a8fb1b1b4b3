// Interop with the Confluent serdes for Node (@kafkajs/confluent-schema-registry) on a real broker
// and the real registry (scripts/registry): what keiyaku publishes in the Schema Registry wire
// format, a plain kafkajs consumer and SchemaRegistry.decode read as the same values; what the
// serdes encode under the ids they registered, a raw kafkajs producer sends and keiyaku's belt
// reads — an older Avro writer schema resolved to keiyaku's reader. Runs on KAFKA_DRIVER's driver.
//
// The raw producer sends no header at all, as the serdes' own producers do: keiyaku's belt takes a
// record's message type from its CloudEvents `ce_type` header, else, on a channel of one message
// type (these), that type.
//
// The serdes' Protobuf is not the whole Confluent wire format: they write no message indexes
// (Confluent's Java, Go and .NET serdes, and keiyaku, write them: [0] as the single byte 0) and read
// past leading zero bytes instead. So their reading of keiyaku's first message type works as is, and
// their bytes are read by keiyaku once the index of the first message is put back.
import { COMPATIBILITY, SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import { createMessaging, type Messaging, silentLogger } from '@keiyaku/runtime';
import { SchemaRegistryClient, withSchemaRegistry } from '@keiyaku/runtime/registry';
import { Kafka, logLevel } from 'kafkajs';
import { afterEach, describe, expect, it } from 'vitest';
import { kafkaBrokers, kafkaSkipReason, testTransport } from '../kafka/kafka-env.js';
import { avroChannel, protobufChannel, shelvedV1Schema, shelvedV2Schema } from './contract.js';
import { registrySkipNote, registryUrl, testSubject } from './registry-env.js';

const skipped = kafkaSkipReason !== '' ? ` (${kafkaSkipReason})` : registrySkipNote;
const run = skipped === '' ? describe : describe.skip;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The serdes, pointed at the registry's Confluent-compatible base URL. */
const serdes = (): SchemaRegistry => new SchemaRegistry({ host: registryUrl });

function kafka(): Kafka {
  return new Kafka({ brokers: kafkaBrokers.split(','), clientId: 'keiyaku-interop', logLevel: logLevel.NOTHING });
}

/** A keiyaku service on the test transport (its own namespace), and the broker's name of `address`. */
function service(address: string): { messaging: Messaging; transport: ReturnType<typeof testTransport>; topic: string } {
  const transport = testTransport();
  const messaging = createMessaging({ transport, logger: silentLogger });
  cleanups.push(async () => {
    await messaging.stop();
    await transport.close();
  });
  return { messaging, transport, topic: transport.destination(address, {}) };
}

/** Every value of the first `count` records of `topic`, read by a plain kafkajs consumer from the beginning. */
async function readRaw(topic: string, count: number): Promise<Buffer[]> {
  const consumer = kafka().consumer({ groupId: `interop-${testSubject('raw')}`, sessionTimeout: 6_000, heartbeatInterval: 500 });
  cleanups.push(() => consumer.disconnect());
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const values: Buffer[] = [];
  await consumer.run({
    eachMessage: async ({ message }) => {
      if (message.value !== null) values.push(message.value);
    },
  });
  await expect.poll(() => values.length, { timeout: 30_000, interval: 50 }).toBeGreaterThanOrEqual(count);
  return values.slice(0, count);
}

/**
 * Sends `values` to `topic` (created first, one partition, so their order holds) with a raw
 * kafkajs producer: the bytes alone, as a Confluent serdes producer writes them, or with the
 * `ce_type` header of `type` where the channel carries several types.
 */
async function sendRaw(topic: string, values: readonly Buffer[], type?: string): Promise<void> {
  const client = kafka();
  const admin = client.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true });
  await admin.disconnect();
  const producer = client.producer();
  await producer.connect();
  const headers = type === undefined ? undefined : { ce_type: type };
  await producer.send({ topic, messages: values.map((value) => (headers === undefined ? { value } : { value, headers })) });
  await producer.disconnect();
}

/** The string-keyed fields of a value as a plain object (protobufjs and avsc values are class instances). */
const plain = (value: object): Record<string, unknown> => JSON.parse(JSON.stringify(value)) as Record<string, unknown>;

const byBook = (a: Record<string, unknown>, b: Record<string, unknown>): number => String(a['bookId']).localeCompare(String(b['bookId']));

run(`interop with @kafkajs/confluent-schema-registry on a real broker${skipped}`, () => {
  it('keiyaku publishes framed Avro; a plain kafkajs consumer and SchemaRegistry.decode read the same values', async () => {
    const address = testSubject('interop-avro');
    const { messaging, transport, topic } = service(address);
    const { channel, Shelved } = avroChannel(address, 2);
    const framed = withSchemaRegistry(channel, new SchemaRegistryClient({ url: registryUrl }), { autoRegister: true, transport });
    const sent = [
      { bookId: 'A-1', copies: 1, note: 'first' },
      { bookId: 'A-2', copies: 2_000_000, note: 'ünïcødé ✓' },
    ];
    await messaging.publisher(framed).publishMany(sent.map((value) => Shelved.create(value)));
    const registry = serdes();
    const decoded = await Promise.all((await readRaw(topic, 2)).map((value) => registry.decode(value)));
    // Two keys may land on two partitions: compare in key order.
    expect(decoded.map(plain).sort(byBook)).toEqual(sent);
    // The serdes read the writer schema keiyaku registered under TopicNameStrategy's subject.
    const id = await registry.getLatestSchemaId(`${topic}-value`);
    expect(JSON.parse(JSON.stringify(await registry.getSchema(id)))).toMatchObject({ name: 'shelf.avro.Shelved' });
  });

  it('keiyaku publishes framed Protobuf; the serdes read its first message type (index [0] is the byte they skip)', async () => {
    const address = testSubject('interop-proto');
    const { messaging, transport, topic } = service(address);
    const { channel, Shelved } = protobufChannel(address);
    const framed = withSchemaRegistry(channel, new SchemaRegistryClient({ url: registryUrl }), { autoRegister: true, transport });
    await messaging
      .publisher(framed)
      .publishMany([Shelved.create({ bookId: 'P-1', copies: 3 }), Shelved.create({ bookId: 'P-2', copies: 0 })]);
    const raw = await readRaw(topic, 2);
    expect(raw.map((value) => value[5])).toEqual([0, 0]); // message indexes [0]
    const registry = serdes();
    const decoded = await Promise.all(raw.map((value) => registry.decode(value)));
    // proto3 leaves a zero out of the bytes; protobufjs' JSON leaves it out of the object.
    expect(decoded.map(plain).sort(byBook)).toEqual([{ bookId: 'P-1', copies: 3 }, { bookId: 'P-2' }]);
  });

  it('the serdes encode Avro under ids they registered (v1 and v2); keiyaku reads both with its v2 reader (Avro resolution)', async () => {
    const address = testSubject('interop-avro-in');
    const { messaging, transport, topic } = service(address);
    const registry = serdes();
    const subject = `${topic}-value`;
    const options = { subject, compatibility: COMPATIBILITY.BACKWARD };
    const v1 = await registry.register({ type: SchemaType.AVRO, schema: JSON.stringify(shelvedV1Schema) }, options);
    const v2 = await registry.register({ type: SchemaType.AVRO, schema: JSON.stringify(shelvedV2Schema) }, options);
    expect(v2.id).not.toBe(v1.id);
    // No headers: the channel carries one message type, which the belt takes for records without `ce_type`.
    await sendRaw(topic, [
      await registry.encode(v1.id, { bookId: 'old', copies: 1 }),
      await registry.encode(v2.id, { bookId: 'new', copies: 2, note: 'signed' }),
    ]);
    const { channel } = avroChannel(address, 2);
    // Look-up only: keiyaku registers nothing to read.
    const reader = withSchemaRegistry(channel, new SchemaRegistryClient({ url: registryUrl }), { transport });
    const seen: Record<string, unknown>[] = [];
    messaging.subscribe(reader, { groupId: 'interop-readers', handle: (message) => void seen.push(plain(message)) });
    await messaging.start();
    await expect.poll(() => seen.length, { timeout: 30_000, interval: 50 }).toBe(2);
    expect(seen).toEqual([
      { bookId: 'old', copies: 1, note: '' },
      { bookId: 'new', copies: 2, note: 'signed' },
    ]);
  });

  it('the serdes encode Protobuf under the id they registered; keiyaku reads it once the index [0] their bytes lack is put back', async () => {
    const address = testSubject('interop-proto-in');
    const { messaging, transport, topic } = service(address);
    const { channel } = protobufChannel(address);
    const registry = serdes();
    const source = channel.message('Shelved')!.codec!.schema.schema;
    const { id } = await registry.register({ type: SchemaType.PROTOBUF, schema: source }, { subject: `${topic}-value` });
    const encoded = await registry.encode(id, { bookId: 'S-1', copies: 7 });
    // magic byte, id, then the message bytes at once: no message indexes.
    expect(encoded.subarray(5)[0]).toBe(0x0a); // field 1 (book_id), length-delimited
    const withIndexes = Buffer.concat([encoded.subarray(0, 5), Buffer.of(0), encoded.subarray(5)]);
    await sendRaw(topic, [withIndexes], 'Shelved');
    const reader = withSchemaRegistry(channel, new SchemaRegistryClient({ url: registryUrl }), { transport });
    const seen: [string, Record<string, unknown>][] = [];
    messaging.subscribe(reader, {
      groupId: 'interop-readers',
      handle: (message, context) => void seen.push([context.type, plain(message)]),
    });
    await messaging.start();
    await expect.poll(() => seen.length, { timeout: 30_000, interval: 50 }).toBe(1);
    expect(seen).toMatchObject([['Shelved', { bookId: 'S-1', copies: 7 }]]);
  });
});
