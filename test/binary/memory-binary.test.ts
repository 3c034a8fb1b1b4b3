// Binary (Avro) payloads over the memory transport: the bytes, key order and headers arrive as
// they were sent; a record whose bytes are not Avro of its schema fails to decode as `malformed`
// and is parked like any undecodable record, its bytes kept exactly; a redrive sends them again
// unchanged. And the Kafka transports refuse a binary channel in structured content mode at once.
import { createKafkaTransport, type KafkaDriver } from '@keiyaku/kafka';
import {
  createMessaging,
  InMemoryDeadLetterStore,
  type Messaging,
  redrive,
  StructuredBinaryPayloadError,
  silentLogger,
} from '@keiyaku/runtime';
import { OutboxDispatcher } from '@keiyaku/runtime/adapter';
import { InMemoryTransport } from '@keiyaku/runtime/memory';
import { afterEach, describe, expect, it } from 'vitest';
import { BookIntegrationEvents } from '../../generated/index.js';
import { waitFor } from '../helpers.js';
import { HOSTILE_BYTES, type ReadingMessage, reading, readingChannel } from './binary-contract.js';

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
  it('arrive byte-exact, in per-key order, with their headers and content type', async () => {
    const { host, channel } = rig();
    const got: { message: ReadingMessage; correlationId: string | undefined; contentType: string | undefined }[] = [];
    host.subscribe(channel, {
      groupId: 'readers',
      handle(message, context) {
        got.push({ message, correlationId: context.correlationId, contentType: context.headers['content-type'] });
      },
    });
    await host.start();
    const publisher = host.publisher(channel);
    await Promise.all(Array.from({ length: 30 }, (_, i) => publisher.publish(reading(i), { correlationId: `c-${i}` })));
    await waitFor(() => got.length === 30, 'all 30 readings arrived');
    for (const { message, correlationId, contentType } of got) {
      expect(message.blob).toEqual(Uint8Array.from([...HOSTILE_BYTES, message.seq]));
      expect(correlationId).toBe(`c-${message.seq}`);
      expect(contentType).toBe('application/avro');
    }
    for (let s = 0; s < 3; s++) {
      const order = got.filter((g) => g.message.sensor === `s-${s}`).map((g) => g.message.seq);
      expect(order).toEqual([...order].sort((a, b) => a - b));
      expect(order).toHaveLength(10);
    }
  });

  it('park undecodable bytes as malformed, kept exactly; a redrive of a parked message sends the same bytes', async () => {
    const { transport, deadLetters, host, channel } = rig();
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
    await waitFor(async () => (await deadLetters.count()) === 2 && handled.length === 1, 'both parked, 8 handled');
    const parked = await deadLetters.list();
    const bad = parked.find((p) => p.headers['ce_id'] === 'bad-1')!;
    expect(bad.error.name).toBe('ContractDecodeError');
    expect(bad.error.message).toContain('payload is not Avro');
    expect(bad.payload).toEqual(garbage);
    const seven = parked.find((p) => p.headers['ce_id'] !== 'bad-1')!;
    expect(seven.payload).toEqual(channel.message('Reading')!.encode(reading(7)));

    failing = false;
    const result = await redrive(seven.id, { transport, deadLetters, channel: () => channel });
    expect(result.removed).toBe(true);
    await waitFor(() => handled.length === 2, 'the redriven reading is handled');
    expect(handled[1]!.blob).toEqual(reading(7).blob);
    // The bad record does not decode now either: a redrive refuses it and it stays parked.
    await expect(redrive(bad.id, { transport, deadLetters, channel: () => channel })).rejects.toMatchObject({ code: 'redrive_invalid' });
    expect((await deadLetters.get(bad.id))?.payload).toEqual(garbage);
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
});
