// Binary (Avro) payloads over the memory transport: the bytes, key order and headers arrive as
// they were sent; a record whose bytes are not Avro of its schema fails to decode as `malformed`
// and is parked like any undecodable record, its bytes kept exactly; a redrive sends them again
// unchanged. And the Kafka transports refuse a binary channel in structured content mode at once.
import { createKafkaTransport, type KafkaDriver } from '@keiyaku/kafka';
import { createMessaging, InMemoryDeadLetterStore, type Messaging, StructuredBinaryPayloadError, silentLogger } from '@keiyaku/runtime';
import { OutboxDispatcher } from '@keiyaku/runtime/adapter';
import { defineChannel } from '@keiyaku/runtime/codegen-v1';
import { InMemoryTransport } from '@keiyaku/runtime/memory';
import { afterEach, describe, expect, it } from 'vitest';
import { BookIntegrationEvents } from '../../generated/index.js';
import { waitFor } from '../helpers.js';
import { garbageRecords, ReadingMessage, readingChannel } from './binary-contract.js';
import { parkAndRedrive, roundTrip } from './scenarios.js';

const hosts: Messaging[] = [];
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.stop();
});

function rig() {
  const transport = new InMemoryTransport({ defaultPartitions: 3, idleWaitMs: 5 });
  const deadLetters = new InMemoryDeadLetterStore();
  const host = createMessaging({ logger: silentLogger, transport, deadLetters, shutdownBudgetMs: 1_000 });
  hosts.push(host);
  return { transport, deadLetters, host, channel: readingChannel() };
}

describe('binary payloads over the memory transport', () => {
  it('arrive byte-exact (Avro and Protobuf), in per-key order, with their headers and content types', async () => {
    const { host, channel } = rig();
    await roundTrip(host, channel);
  });

  it('park undecodable bytes as malformed, kept exactly; a redrive of a parked message sends the same bytes', async () => {
    const { transport, deadLetters, host, channel } = rig();
    await parkAndRedrive(host, transport, deadLetters, channel);
  });

  it('without a dead-letter policy, undecodable bytes block their lane as any undecodable record does', async () => {
    const { transport, host, channel } = rig();
    const subscription = host.subscribe(
      channel,
      { groupId: 'readers', handle: () => {} },
      { retry: { initialMs: 5, maxMs: 5, jitter: 0 } },
    );
    await host.start();
    const producer = transport.producer();
    await producer.send(garbageRecords(channel.address, Uint8Array.from([0x02, 0xff, 0x00])).slice(0, 1));
    await producer.close();
    await waitFor(() => (subscription.health().stalls[0]?.attempts ?? 0) >= 3, 'the lane is stalled and retried');
    const stall = subscription.health().stalls[0]!;
    expect(stall.reason).toContain('Reading: payload is not an Avro keiyaku.test.Reading');
    expect(subscription.health()).toMatchObject({ state: 'stalled', parked: 0 });
  });
});

describe.each(['kafkajs', 'platformatic'] as const)('structured content mode with binary payloads (driver %s)', (driver: KafkaDriver) => {
  // Nothing here connects: the refusal comes when the publisher, subscription or dispatcher is made.
  const kafka = (options: object) => createKafkaTransport({ driver, brokers: ['127.0.0.1:9'], logger: silentLogger, ...options });

  it('is refused for a publisher, a subscription and an outbox dispatcher, naming the channel, the message and the fix', () => {
    const transport = kafka({ contentMode: 'structured' });
    const host = createMessaging({ logger: silentLogger, transport });
    hosts.push(host);
    const channel = readingChannel();
    const expectRefusal = (make: () => unknown) => {
      let thrown: unknown;
      try {
        make();
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(StructuredBinaryPayloadError);
      expect(thrown).toMatchObject({ code: 'structured_binary_payload', channel: 'readings', messageType: 'Reading', format: 'avro' });
      expect((thrown as Error).message).toContain('channel readings (test.readings) carries Reading, a avro payload');
      expect((thrown as Error).message).toContain('contentMode "binary"');
    };
    expectRefusal(() => host.publisher(channel));
    expectRefusal(() => host.subscribe(channel, { groupId: 'g', handle: () => {} }));
    expectRefusal(() => new OutboxDispatcher({ store: {} as never, transport, logger: silentLogger }, { channels: [channel] as never }));
    // JSON channels keep structured mode.
    expect(() => host.publisher(BookIntegrationEvents)).not.toThrow();
  });

  it('is not refused in binary mode, nor for an address whose own content mode is binary', () => {
    const binary = createMessaging({ logger: silentLogger, transport: kafka({}) });
    const perAddress = createMessaging({
      logger: silentLogger,
      transport: kafka({ contentMode: 'structured', contentModes: { 'test.readings': 'binary' } }),
    });
    hosts.push(binary, perAddress);
    expect(() => binary.publisher(readingChannel())).not.toThrow();
    expect(() => perAddress.publisher(readingChannel())).not.toThrow();
    expect(() => perAddress.subscribe(readingChannel(), { groupId: 'g', handle: () => {} })).not.toThrow();
    expect(() => perAddress.publisher(readingChannel('other.readings'))).toThrow(StructuredBinaryPayloadError);
  });

  it('is refused for a channel with parameters when a concrete address it covers is written structured', () => {
    const regional = defineChannel<ReadingMessage, (params: { region: string }) => string>({
      id: 'regionalReadings',
      address: (params: { region: string }) => `readings.${params.region}.v1`,
      addressTemplate: 'readings.{region}.v1',
      parameters: ['region'],
      parameterRules: {},
      messages: [ReadingMessage],
      bindings: {},
    });
    const structuredEu = createMessaging({ logger: silentLogger, transport: kafka({ contentModes: { 'readings.eu.v1': 'structured' } }) });
    const binary = createMessaging({ logger: silentLogger, transport: kafka({ contentModes: { 'other.eu.v1': 'structured' } }) });
    hosts.push(structuredEu, binary);
    expect(() => structuredEu.publisher(regional)).toThrow(/channel regionalReadings \(readings\.eu\.v1\) carries Reading/);
    expect(() => binary.publisher(regional)).not.toThrow();
  });
});
