// Framed Avro and Protobuf payloads over real Kafka (KAFKA_DRIVER picks the driver), with the real
// registry: a publisher → subscription round trip, subjects named after the namespaced topic.
import { createMessaging, type Messaging, silentLogger } from '@keiyaku/runtime';
import { SchemaRegistryClient, withSchemaRegistry } from '@keiyaku/runtime/registry';
import { afterEach, describe, expect, it } from 'vitest';
import { kafkaBrokers, kafkaSkipReason, testTransport } from '../kafka/kafka-env.js';
import { avroChannel, protobufChannel } from './contract.js';
import { registryCall, registrySkipNote, registryUrl, testSubject } from './registry-env.js';

const run = registryUrl === '' || kafkaBrokers === '' ? describe.skip : describe;
const hosts: Messaging[] = [];
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.stop();
});
/** Records of different keys go to different partitions: compare them in one order. */
const byBook = (a: Record<string, unknown>, b: Record<string, unknown>) => String(a['bookId']).localeCompare(String(b['bookId']));
const fields = (value: object): Record<string, unknown> => Object.fromEntries(Object.entries(value));

run(`framed payloads on a real broker${registrySkipNote}${kafkaSkipReason ? ` (${kafkaSkipReason})` : ''}`, () => {
  it('carries framed Avro and Protobuf messages from a publisher to a subscription', { timeout: 90_000 }, async () => {
    const transport = testTransport();
    const messaging = createMessaging({ transport, logger: silentLogger });
    hosts.push(messaging);
    const client = new SchemaRegistryClient({ url: registryUrl });
    const avro = avroChannel(testSubject('shelving'), 2);
    const proto = protobufChannel(testSubject('shelving-proto'));
    const avroFramed = withSchemaRegistry(avro.channel, client, { autoRegister: true, transport });
    const protoFramed = withSchemaRegistry(proto.channel, client, { autoRegister: true, transport });
    const seen: [string, Record<string, unknown>][] = [];
    messaging.subscribe(avroFramed, { groupId: 'avro-readers', handle: (m) => void seen.push(['avro', fields(m)]) });
    messaging.subscribe(protoFramed, { groupId: 'proto-readers', handle: (m) => void seen.push([m.bookId, fields(m)]) });
    await messaging.start();
    await messaging
      .publisher(avroFramed)
      .publishMany([
        avro.Shelved.create({ bookId: 'K-1', copies: 1, note: 'n' }),
        avro.Shelved.create({ bookId: 'K-2', copies: 2, note: '' }),
      ]);
    await messaging
      .publisher(protoFramed)
      .publishMany([proto.Shelved.create({ bookId: 'P-1', copies: 3 }), proto.Unshelved.create({ bookId: 'P-2', reason: 'lost' })]);
    await expect.poll(() => seen.length, { timeout: 60_000 }).toBe(4);
    expect(
      seen
        .filter(([kind]) => kind === 'avro')
        .map(([, value]) => value)
        .sort(byBook),
    ).toEqual([
      { bookId: 'K-1', copies: 1, note: 'n' },
      { bookId: 'K-2', copies: 2, note: '' },
    ]);
    expect(
      seen
        .filter(([kind]) => kind !== 'avro')
        .map(([, value]) => value)
        .sort(byBook),
    ).toMatchObject([
      { bookId: 'P-1', copies: 3 },
      { bookId: 'P-2', reason: 'lost' },
    ]);
    // TopicNameStrategy names the subject after the broker's topic: the namespace included.
    const topic = transport.topic(avro.channel.addressTemplate);
    expect(topic).toMatch(/^t[0-9a-f]{8}\./);
    expect((await registryCall('GET', `/subjects/${encodeURIComponent(`${topic}-value`)}/versions`)).body).toEqual([1]);
  });
});
