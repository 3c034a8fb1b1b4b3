// withSchemaRegistry against the real registry (scripts/registry): framing bytes, strategies,
// autoRegister, Avro schema resolution across versions, Protobuf message indexes, bad frames, a
// publish → belt round trip on the memory transport.
import { createMessaging, PublishError, silentLogger } from '@keiyaku/runtime';
import { InMemoryTransport } from '@keiyaku/runtime/memory';
import { SchemaRegistryClient, SchemaRegistryError, withSchemaRegistry } from '@keiyaku/runtime/registry';
import { afterEach, describe, expect, it } from 'vitest';
import { avroChannel, countingFetch, protobufChannel } from './contract.js';
import { registryCall, registrySkipNote, registryUrl, testSubject } from './registry-env.js';

const run = registryUrl === '' ? describe.skip : describe;
/** The fields of a message (its string keys), as a plain object. */
const fields = (value: object): Record<string, unknown> => Object.fromEntries(Object.entries(value));
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

function host() {
  const transport = new InMemoryTransport({ defaultPartitions: 1, idleWaitMs: 5 });
  const messaging = createMessaging({ transport, logger: silentLogger });
  closers.push(() => messaging.stop());
  return { transport, messaging };
}

async function idOf(subject: string): Promise<number> {
  const latest = await registryCall('GET', `/subjects/${encodeURIComponent(subject)}/versions/latest`);
  expect(latest.status).toBe(200);
  return (latest.body as { id: number }).id;
}

run(`withSchemaRegistry on the real registry${registrySkipNote}`, () => {
  it('frames an Avro payload as magic byte 0, the big-endian id and the codec bytes (golden bytes), registering on first publish', async () => {
    const topic = testSubject('shelving');
    const { channel, Shelved, codec } = avroChannel(topic, 1);
    const client = new SchemaRegistryClient({ url: registryUrl });
    const framed = withSchemaRegistry(channel, client, { autoRegister: true });
    const { transport, messaging } = host();
    const message = Shelved.create({ bookId: 'B-1', copies: 2 });
    await messaging.publisher(framed).publish(message);
    const id = await idOf(`${topic}-value`);
    const [record] = transport.published(topic);
    const head = [0, (id >>> 24) & 0xff, (id >>> 16) & 0xff, (id >>> 8) & 0xff, id & 0xff];
    expect([...record!.value]).toEqual([...head, ...codec.encode(message)]);
    // avsc's bytes of { bookId: 'B-1', copies: 2 }: string length 3 (zigzag 6), "B-1", int 2 (zigzag 4).
    expect([...record!.value.subarray(5)]).toEqual([6, 0x42, 0x2d, 0x31, 4]);
    const [read] = await transport.drain(framed, 1);
    expect(fields(read!.message)).toEqual({ bookId: 'B-1', copies: 2 });
  });

  it('looks up only by default: a subject without the schema is an error naming the subject and autoRegister, and nothing is sent', async () => {
    const topic = testSubject('shelving');
    const { channel, Shelved } = avroChannel(topic, 1);
    const framed = withSchemaRegistry(channel, new SchemaRegistryClient({ url: registryUrl }));
    const { transport, messaging } = host();
    const error = await messaging
      .publisher(framed, { maxAttempts: 3, retry: { initialMs: 1 } })
      .publish(Shelved.create({ bookId: 'B-1', copies: 1 }))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PublishError);
    const cause = (error as PublishError).cause as SchemaRegistryError;
    expect(cause).toBeInstanceOf(SchemaRegistryError);
    expect(cause).toMatchObject({ code: 'schema_not_registered', errorCode: 40401, subject: `${topic}-value`, retriable: false });
    expect(cause.message).toMatch(new RegExp(`subject ${topic}-value .*autoRegister: true`));
    expect((error as PublishError).attempts).toBe(1); // not retriable: asked once
    expect(transport.published(topic)).toEqual([]);
  });

  it('names subjects by strategy: record and topic-record', async () => {
    const topic = testSubject('shelving');
    const client = new SchemaRegistryClient({ url: registryUrl });
    const { messaging } = host();
    const record = avroChannel(topic, 1);
    await messaging
      .publisher(withSchemaRegistry(record.channel, client, { autoRegister: true, subjectNameStrategy: 'topic-record' }))
      .publish(record.Shelved.create({ bookId: 'B-2', copies: 1 }));
    expect((await registryCall('GET', `/subjects/${topic}-shelf.avro.Shelved/versions`)).body).toEqual([1]);
    // RecordNameStrategy: the full name is the subject whatever the topic (shared by every run: look it up only).
    await client.register('shelf.avro.Shelved', record.codec.schema);
    const other = avroChannel(testSubject('shelving'), 1);
    await messaging
      .publisher(withSchemaRegistry(other.channel, client, { subjectNameStrategy: 'record' }))
      .publish(other.Shelved.create({ bookId: 'B-3', copies: 1 }));
    expect(await idOf('shelf.avro.Shelved')).toBeGreaterThan(0);
  });

  it('reads what writer v1 wrote with reader v2 (the default filled in), and what v2 wrote with v1 (the new field skipped)', async () => {
    const topic = testSubject('shelving');
    const client = new SchemaRegistryClient({ url: registryUrl });
    await registryCall('PUT', `/config/${topic}-value`, { compatibility: 'FULL' });
    const v1 = avroChannel(topic, 1);
    const v2 = avroChannel(topic, 2);
    const writerV1 = withSchemaRegistry(v1.channel, client, { autoRegister: true });
    const writerV2 = withSchemaRegistry(v2.channel, client, { autoRegister: true });
    const { transport, messaging } = host();
    await messaging.publisher(writerV1).publish(v1.Shelved.create({ bookId: 'old', copies: 1 }));
    await messaging.publisher(writerV2).publish(v2.Shelved.create({ bookId: 'new', copies: 2, note: 'signed' }));
    expect((await registryCall('GET', `/subjects/${topic}-value/versions`)).body).toEqual([1, 2]);
    // Readers with a client of their own: the writer schemas come from the registry by id.
    const readerV2 = withSchemaRegistry(v2.channel, new SchemaRegistryClient({ url: registryUrl }));
    const readerV1 = withSchemaRegistry(v1.channel, new SchemaRegistryClient({ url: registryUrl }));
    expect((await transport.drain(readerV2, 2)).map((m) => fields(m.message))).toEqual([
      { bookId: 'old', copies: 1, note: '' },
      { bookId: 'new', copies: 2, note: 'signed' },
    ]);
    expect((await transport.drain(readerV1, 2)).map((m) => fields(m.message))).toEqual([
      { bookId: 'old', copies: 1 },
      { bookId: 'new', copies: 2 },
    ]);
  });

  it('writes Protobuf message indexes ([0] as the single byte 0, [1] as 2 2) and reads both messages back', async () => {
    const topic = testSubject('shelving-proto');
    const { channel, Shelved, Unshelved, shelvedCodec, unshelvedCodec } = protobufChannel(topic);
    const framed = withSchemaRegistry(channel, new SchemaRegistryClient({ url: registryUrl }), { autoRegister: true });
    const { transport, messaging } = host();
    const publisher = messaging.publisher(framed);
    const shelved = Shelved.create({ bookId: 'P-1', copies: 3 });
    const unshelved = Unshelved.create({ bookId: 'P-1', reason: 'lost' });
    await publisher.publishMany([shelved, unshelved]);
    const id = await idOf(`${topic}-value`);
    const head = [0, (id >>> 24) & 0xff, (id >>> 16) & 0xff, (id >>> 8) & 0xff, id & 0xff];
    const [first, second] = transport.published(topic);
    expect([...first!.value]).toEqual([...head, 0, ...shelvedCodec.encode(shelved)]);
    expect([...second!.value]).toEqual([...head, 2, 2, ...unshelvedCodec.encode(unshelved)]);
    const read = await transport.drain(withSchemaRegistry(channel, new SchemaRegistryClient({ url: registryUrl })), 2);
    expect(read.map((m) => [m.type, m.message])).toMatchObject([
      ['Shelved', { bookId: 'P-1', copies: 3 }],
      ['Unshelved', { bookId: 'P-1', reason: 'lost' }],
    ]);
  });

  it('refuses bytes that are not a frame, and an id the registry does not know, as decode failures with reason frame', async () => {
    const { channel } = avroChannel(testSubject('shelving'), 1);
    const framed = withSchemaRegistry(channel, new SchemaRegistryClient({ url: registryUrl }));
    const json = new TextEncoder().encode('{"bookId":"B-1","copies":1}');
    expect(framed.prepareRecord?.(json, 'Shelved')).toBeUndefined();
    const notFramed = framed.decode(json, 'Shelved');
    expect(notFramed.ok || notFramed.error).toMatchObject({
      reason: 'frame',
      message: expect.stringMatching(/byte 0x7b, not the magic byte 0.*looks like JSON/),
    });
    const short = framed.decode(Uint8Array.of(0, 0), 'Shelved');
    expect(short.ok || short.error).toMatchObject({ reason: 'frame', message: expect.stringContaining('2 bytes long') });
    const unknown = Uint8Array.of(0, 0x7f, 0xff, 0xff, 0xf0, 2, 0x41, 2);
    await framed.prepareRecord?.(unknown, 'Shelved');
    const missing = framed.decode(unknown, 'Shelved');
    expect(missing.ok || missing.error).toMatchObject({ reason: 'frame', message: expect.stringContaining(`schema id ${0x7ffffff0}`) });
  });

  it('asks the registry once per address and type, and once per writer id, however many messages and callers', async () => {
    const topic = testSubject('shelving');
    const counting = countingFetch(registryUrl);
    const client = new SchemaRegistryClient({ url: registryUrl, fetch: counting.fetch });
    const { channel, Shelved } = avroChannel(topic, 1);
    const framed = withSchemaRegistry(channel, client, { autoRegister: true });
    const { transport, messaging } = host();
    const publisher = messaging.publisher(framed);
    await Promise.all(Array.from({ length: 20 }, (_, i) => publisher.publish(Shelved.create({ bookId: `B-${i}`, copies: i }))));
    // One lookup (40401: not there yet), one registration; the 19 others waited for them.
    expect(counting.requests).toEqual([`POST /subjects/${topic}-value`, `POST /subjects/${topic}-value/versions`]);
    // The order of publishes holds while they waited.
    expect((await transport.drain(framed, 20)).map((m) => m.message.bookId)).toEqual(Array.from({ length: 20 }, (_, i) => `B-${i}`));
    await publisher.publish(Shelved.create({ bookId: 'B-20', copies: 1 }));
    expect(counting.requests).toHaveLength(2);
    // A reader with another client: one GET of the writer's schema by id for all 21 records.
    const readerFetch = countingFetch(registryUrl);
    const reader = withSchemaRegistry(channel, new SchemaRegistryClient({ url: registryUrl, fetch: readerFetch.fetch }));
    await transport.drain(reader, 21);
    expect(readerFetch.requests).toEqual([`GET /schemas/ids/${await idOf(`${topic}-value`)}`]);
  });

  it('carries framed payloads from a publisher through a subscription on the memory transport', async () => {
    const topic = testSubject('shelving');
    const { channel, Shelved } = avroChannel(topic, 2);
    const client = new SchemaRegistryClient({ url: registryUrl });
    const framed = withSchemaRegistry(channel, client, { autoRegister: true });
    const { messaging } = host();
    const seen: unknown[] = [];
    messaging.subscribe(framed, { groupId: 'shelf-readers', handle: (message) => void seen.push(fields(message)) });
    await messaging.start();
    await messaging
      .publisher(framed)
      .publishMany([Shelved.create({ bookId: 'R-1', copies: 1, note: 'a' }), Shelved.create({ bookId: 'R-2', copies: 2, note: 'b' })]);
    await expect.poll(() => seen.length).toBe(2);
    expect(seen).toEqual([
      { bookId: 'R-1', copies: 1, note: 'a' },
      { bookId: 'R-2', copies: 2, note: 'b' },
    ]);
  });

  it('frames the channels a contract frames (Kafka binding schemaIdLocation: payload) when the host has a registry, and refuses them without one', async () => {
    const topic = testSubject('shelving');
    const { channel, Shelved } = avroChannel(topic, 1, {
      schemaIdLocation: 'payload',
      schemaIdPayloadEncoding: 'confluent',
      schemaLookupStrategy: 'TopicRecordNameStrategy',
    });
    const { messaging } = host();
    expect(() => messaging.publisher(channel)).toThrow(
      /channel shelving carries Shelved in the Schema Registry wire format .*set schemaRegistry.url .*KEIYAKU_SCHEMA_REGISTRY_URL/,
    );
    const transport = new InMemoryTransport({ defaultPartitions: 1, idleWaitMs: 5 });
    const configured = createMessaging({
      transport,
      logger: silentLogger,
      schemaRegistry: { client: new SchemaRegistryClient({ url: registryUrl }), autoRegister: true },
    });
    closers.push(() => configured.stop());
    await configured.publisher(channel).publish(Shelved.create({ bookId: 'C-1', copies: 1 }));
    expect(transport.published(topic)[0]!.value[0]).toBe(0);
    expect((await registryCall('GET', `/subjects/${topic}-shelf.avro.Shelved/versions`)).body).toEqual([1]);
    const header = avroChannel(testSubject('shelving'), 1, { schemaIdLocation: 'header' });
    expect(() => configured.publisher(header.channel)).toThrow(/puts the schema id in a header; keiyaku writes it in the payload/);
  });
});
