// The high-level SDK examples (examples/iggy-sdk: one per example of the C# SDK's high-level SDK guide, in TypeScript) run against the protocol
// test double (not Iggy), with the outcomes checked through the client: payloads, offsets, partitions, stored offsets.
import {
  BufferPool,
  Consumer,
  createConsumerBuilder,
  createPublisherBuilder,
  type DeserializedMessage,
  Identifier,
  IggyClient,
  IggyConsumerBuilder,
  IggyError,
  IggyPublisherBuilder,
  type IggyTypedConsumer,
  IggyTypedConsumerBuilder,
  type IggyTypedPublisher,
  IggyTypedPublisherBuilder,
  JsonSerializer,
  ObjectDisposedError,
  Partitioning,
  PollingStrategy,
  type ReceivedMessage,
  RentedMessageBatchBuilder,
  type RentedReceivedMessage,
  UserHeaders,
} from '@keiyaku/iggy';
import { afterEach, beforeEach, describe, expect, expectTypeOf, it } from 'vitest';
import { consumeMessages } from '../../examples/iggy-sdk/consumer.js';
import { consumeAsGroup } from '../../examples/iggy-sdk/consumer-groups.js';
import { consumeWithManualOffsets } from '../../examples/iggy-sdk/manual-offsets.js';
import { publishMessages } from '../../examples/iggy-sdk/publisher.js';
import { consumeRented } from '../../examples/iggy-sdk/receive-rented.js';
import { publishRentedBatch, sendRentedBatchDirectly } from '../../examples/iggy-sdk/rented-batch.js';
import { consumeOrders, OrderDeserializer, type OrderEvent } from '../../examples/iggy-sdk/typed-consumer.js';
import { type Order, OrderSerializer, publishOrders } from '../../examples/iggy-sdk/typed-publisher.js';
import { publishOrdersAsJson } from '../../examples/iggy-sdk/typed-publisher-json.js';
import { IggyProtocolDouble } from './protocol-double.js';

let server: IggyProtocolDouble;
const clients: IggyClient[] = [];
async function connect(): Promise<IggyClient> {
  const c = new IggyClient({ host: '127.0.0.1', port: server.port, requestTimeoutMs: 1_000, heartbeatMs: 0 });
  await c.connect();
  clients.push(c);
  return c;
}
let client: IggyClient;
beforeEach(async () => {
  server = new IggyProtocolDouble();
  await server.start();
  client = await connect();
});
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  await server.stop();
});

const utf8 = new TextEncoder();
const text = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);

async function topic(stream: string, name: string, partitions: number): Promise<void> {
  await client.createStream(stream);
  await client.createTopic(stream, name, partitions);
}

/** Sends each payload on its own to `partition`. */
async function put(stream: string, name: string, partition: number, payloads: readonly (string | Uint8Array)[]): Promise<void> {
  for (const payload of payloads)
    await client.sendMessages(stream, name, Partitioning.partitionId(partition), [
      { originTimestamp: 1n, payload: typeof payload === 'string' ? utf8.encode(payload) : payload },
    ]);
}

/** Everything stored in a partition, read by an unrelated consumer without committing. */
async function stored(stream: string, name: string, partition: number): Promise<ReceivedMessage[]> {
  const reply = await client.pollMessages({
    consumer: Consumer.new(999),
    stream,
    topic: name,
    partition,
    strategy: PollingStrategy.first(),
    count: 100,
    autoCommit: false,
  });
  return reply.messages.map((m) => ({ ...m, partition }));
}

async function storedOffset(consumer: Consumer, stream: string, name: string, partition: number): Promise<bigint | undefined> {
  return (await client.getConsumerOffset({ consumer, stream, topic: name, partition }))?.storedOffset;
}

const STORE_CONSUMER_OFFSET = 161;
// The examples loop until they have seen `count` messages: when a behaviour breaks they wait, so fail fast.
const FAST = { timeout: 10_000 };

describe('SDK guide example: IggyPublisher', FAST, () => {
  it('init validates the stream and topic, then both messages go out in one background batch to one partition', async () => {
    await topic('my-stream', 'my-topic', 3);
    await publishMessages(client);
    expect(server.sentBatches).toEqual([{ partition: 0, messages: 2 }]);
    const messages = await stored('my-stream', 'my-topic', 0);
    expect(messages.map((m) => [m.offset, text(m.payload)])).toEqual([
      [0n, 'Message 1'],
      [1n, 'Message 2'],
    ]);
    // The first id comes from a random UUID, the second (0) was minted: both real, both different.
    expect(messages.every((m) => m.id !== 0n)).toBe(true);
    expect(messages[0]!.id).not.toBe(messages[1]!.id);
  });

  it('refuses a stream that does not exist instead of sending anywhere', async () => {
    await expect(publishMessages(client)).rejects.toMatchObject({ name: 'IggyError', status: 1009 });
    expect(server.sentBatches).toEqual([]);
  });
});

describe('SDK guide example: publishing with rented batches', FAST, () => {
  const events = [
    { orderId: 'o-1', total: 10 },
    { orderId: 'o-2', total: 20, note: 'déjà vu ✓' },
    { orderId: 'o-3', total: 30 },
  ];

  it('publisher.send takes ownership: the batch arrives whole and is disposed, and reading it afterwards throws', async () => {
    await topic('my-stream', 'my-topic', 1);
    const batch = await publishRentedBatch(client, events);
    expect(batch.disposed).toBe(true);
    expect(() => batch.messages).toThrow(ObjectDisposedError);
    expect(server.sentBatches).toEqual([{ partition: 0, messages: 3 }]);
    const messages = await stored('my-stream', 'my-topic', 0);
    expect(messages.map((m) => JSON.parse(text(m.payload)))).toEqual(events);
    expect(new Set(messages.map((m) => m.id)).size).toBe(3);
  });

  it('the direct low-level send goes through the client, and `using` disposes the batch after it', async () => {
    await topic('my-stream', 'my-topic', 1);
    const batch = await sendRentedBatchDirectly(client, events);
    expect(batch.disposed).toBe(true);
    expect(() => batch.messages).toThrow(ObjectDisposedError);
    const messages = await stored('my-stream', 'my-topic', 0);
    expect(messages.map((m) => JSON.parse(text(m.payload)))).toEqual(events);
    expect(messages.every((m) => m.id !== 0n)).toBe(true);
  });

  it('writeUtf8 encodes in place, growing the pooled buffer for text that does not fit', () => {
    const pool = new BufferPool();
    const long = `${'é'.repeat(3_000)}𝄞`;
    using batch = new RentedMessageBatchBuilder(16, pool)
      .add(long, (s, writer) => writer.writeUtf8(s))
      .add('ascii', (s, writer) => writer.writeUtf8(s))
      .build();
    expect(batch.messages.map((m) => text(m.payload))).toEqual([long, 'ascii']);
    expect(batch.messages[0]!.payload.length).toBe(6_004);
  });

  it('a serializer that throws leaves no half-written payload behind', () => {
    using builder = new RentedMessageBatchBuilder(64);
    builder.add('first', (s, writer) => writer.writeUtf8(s));
    expect(() =>
      builder.add('broken', (_, writer) => {
        writer.writeUtf8('partial');
        throw new TypeError('cannot serialize');
      }),
    ).toThrow(TypeError);
    builder.add('second', (s, writer) => writer.writeUtf8(s));
    expect(builder.build().messages.map((m) => text(m.payload))).toEqual(['first', 'second']);
  });
});

describe('SDK guide example: typed publisher', FAST, () => {
  it('a custom serializer: a collection, a single item with headers, and (item, id, headers) entries', async () => {
    await topic('orders-stream', 'orders-topic', 1);
    await publishOrders(client, {
      orders: [
        { orderId: 'o-1', total: 10 },
        { orderId: 'o-2', total: 20 },
      ],
      single: { order: { orderId: 'o-3', total: 30 }, headers: UserHeaders.encode({ priority: 'rush' }) },
      entries: [
        [{ orderId: 'o-4', total: 40 }, 44n, undefined],
        [{ orderId: 'o-5', total: 50 }, 55n, UserHeaders.encode({ source: 'web' })],
      ],
    });
    expect(server.sentBatches.map((b) => b.messages)).toEqual([2, 1, 2]);
    const messages = await stored('orders-stream', 'orders-topic', 0);
    expect(messages.map((m) => (JSON.parse(text(m.payload)) as Order).orderId)).toEqual(['o-1', 'o-2', 'o-3', 'o-4', 'o-5']);
    expect(messages.map((m) => UserHeaders.decode(m.headers))).toEqual([{}, {}, { priority: 'rush' }, {}, { source: 'web' }]);
    expect(messages[3]!.id).toBe(44n);
    expect(messages[4]!.id).toBe(55n);
  });

  it('the built-in JSON serializer', async () => {
    await topic('orders-stream', 'orders-topic', 1);
    const orders: Order[] = [
      { orderId: 'o-1', total: 10 },
      { orderId: 'o-2', total: 20.5 },
    ];
    await publishOrdersAsJson(client, orders);
    const messages = await stored('orders-stream', 'orders-topic', 0);
    expect(messages.map((m) => new JsonSerializer<Order>().deserialize(m.payload))).toEqual(orders);
  });

  it('unlike the C# SDK, the fluent methods keep the typed builder', () => {
    const publisher = IggyTypedPublisherBuilder.create(client, 'orders-stream', 'orders-topic', new OrderSerializer())
      .withPartitioning(Partitioning.partitionId(0))
      .withRetry({ maxAttempts: 3 })
      .build();
    expectTypeOf(publisher).toEqualTypeOf<IggyTypedPublisher<Order>>();
    const consumer = IggyTypedConsumerBuilder.create(client, 'orders-stream', 'orders-topic', Consumer.new(1), new OrderDeserializer())
      .withAutoCommit('disabled')
      .withBatchSize(5)
      .build();
    expectTypeOf(consumer).toEqualTypeOf<IggyTypedConsumer<OrderEvent>>();
    expect(consumer.config).toMatchObject({ autoCommit: 'disabled', batchSize: 5 });
  });
});

describe('SDK guide example: IggyConsumer', FAST, () => {
  it('reads every partition in order with server-side auto-commit: the server stores the offsets, keiyaku stores none', async () => {
    await topic('my-stream', 'my-topic', 2);
    await put('my-stream', 'my-topic', 0, ['a0', 'a1', 'a2']);
    await put('my-stream', 'my-topic', 1, ['b0', 'b1', 'b2']);
    const lines: string[] = [];
    await consumeMessages(client, 6, (line) => lines.push(line));
    expect(lines).toEqual(['Offset 0: a0', 'Offset 1: a1', 'Offset 2: a2', 'Offset 0: b0', 'Offset 1: b1', 'Offset 2: b2']);
    expect(await storedOffset(Consumer.new(1), 'my-stream', 'my-topic', 0)).toBe(2n);
    expect(await storedOffset(Consumer.new(1), 'my-stream', 'my-topic', 1)).toBe(2n);
    expect(server.seen.filter((r) => r.operation === STORE_CONSUMER_OFFSET)).toEqual([]);
  });

  it('a second run resumes after the stored offsets (PollingStrategy.next)', async () => {
    await topic('my-stream', 'my-topic', 1);
    await put('my-stream', 'my-topic', 0, ['m0', 'm1', 'm2']);
    await consumeMessages(client, 3, () => undefined);
    await put('my-stream', 'my-topic', 0, ['m3']);
    const lines: string[] = [];
    await consumeMessages(client, 1, (line) => lines.push(line));
    expect(lines).toEqual(['Offset 3: m3']);
  });
});

describe('SDK guide example: manual offset control', FAST, () => {
  beforeEach(async () => {
    await topic('my-stream', 'my-topic', 1);
    await put('my-stream', 'my-topic', 0, ['m0', 'm1', 'm2', 'm3']);
  });

  it('stores each offset after processing; a new consumer resumes right after the last one stored', async () => {
    const processed: bigint[] = [];
    await consumeWithManualOffsets(client, { count: 3, process: (m) => processed.push(m.offset) });
    expect(processed).toEqual([0n, 1n, 2n]);
    expect(await storedOffset(Consumer.new(1), 'my-stream', 'my-topic', 0)).toBe(2n);
    const next: string[] = [];
    await consumeWithManualOffsets(client, { count: 1, process: (m) => next.push(text(m.payload)) });
    expect(next).toEqual(['m3']);
    expect(await storedOffset(Consumer.new(1), 'my-stream', 'my-topic', 0)).toBe(3n);
  });

  it('storeOffset with resetLastPolled rewinds the consumer; deleteOffset clears the stored offset', async () => {
    const processed: string[] = [];
    await consumeWithManualOffsets(client, {
      count: 3,
      process: (m) => processed.push(`${m.offset}:${text(m.payload)}`),
      rewind: { partition: 0, offset: 0n, count: 2 },
      forget: 0,
    });
    expect(processed).toEqual(['0:m0', '1:m1', '2:m2', '1:m1', '2:m2']);
    expect(await storedOffset(Consumer.new(1), 'my-stream', 'my-topic', 0)).toBeUndefined();
    // Nothing left to delete: the server says so.
    await expect(
      client.deleteConsumerOffset({ consumer: Consumer.new(1), stream: 'my-stream', topic: 'my-topic', partition: 0 }),
    ).rejects.toMatchObject({ status: 3021 });
  });

  it('without rewind, the stored offset stays where processing stopped', async () => {
    await consumeWithManualOffsets(client, { count: 2, process: () => undefined });
    expect(await storedOffset(Consumer.new(1), 'my-stream', 'my-topic', 0)).toBe(1n);
  });
});

describe('SDK guide example: consumer groups', FAST, () => {
  beforeEach(async () => {
    await topic('my-stream', 'my-topic', 2);
    await put('my-stream', 'my-topic', 0, ['a0', 'a1', 'a2']);
    await put('my-stream', 'my-topic', 1, ['b0', 'b1', 'b2']);
  });

  it('creates and joins the group, reads the partitions the server assigns, stores after each message and leaves on dispose', async () => {
    const lines: string[] = [];
    await consumeAsGroup(client, 6, (line) => lines.push(line));
    expect(lines).toEqual([
      'Partition 0: a0',
      'Partition 0: a1',
      'Partition 0: a2',
      'Partition 1: b0',
      'Partition 1: b1',
      'Partition 1: b2',
    ]);
    const group = await client.getConsumerGroup('my-stream', 'my-topic', 'my-group');
    expect(group?.name).toBe('my-group');
    expect(group?.members).toEqual([]); // left on dispose
    // After-receive: an offset is stored when the loop asks for the next message, so the last one
    // (the loop broke after it) is not stored yet and comes again: at least once.
    expect(await storedOffset(Consumer.group('my-group'), 'my-stream', 'my-topic', 0)).toBe(2n);
    expect(await storedOffset(Consumer.group('my-group'), 'my-stream', 'my-topic', 1)).toBe(1n);
    const again: string[] = [];
    await consumeAsGroup(await connect(), 1, (line) => again.push(line));
    expect(again).toEqual(['Partition 1: b2']);
  });
});

describe('SDK guide example: consuming with rented buffers', FAST, () => {
  it('payloads read inside the loop; each message is disposed after its iteration and refuses to be read again', async () => {
    await topic('my-stream', 'my-topic', 1);
    await put('my-stream', 'my-topic', 0, ['r0', 'r1', 'r2']);
    const lines: string[] = [];
    const messages: RentedReceivedMessage[] = [];
    await consumeRented(client, 3, (line, message) => {
      lines.push(line);
      messages.push(message);
    });
    expect(lines).toEqual(['Offset 0: r0', 'Offset 1: r1', 'Offset 2: r2']);
    expect(messages).toHaveLength(3);
    for (const message of messages) {
      expect(() => message.payload).toThrow(ObjectDisposedError);
      expect(() => message.headers).toThrow(ObjectDisposedError);
    }
    expect(messages.map((m) => m.offset)).toEqual([0n, 1n, 2n]); // metadata stays readable
    expect(await storedOffset(Consumer.new(1), 'my-stream', 'my-topic', 0)).toBe(1n); // after-receive, as with receive()
  });
});

describe('SDK guide example: typed consumer', FAST, () => {
  it('yields a status per message: decoded orders, and failed decodes that are reported, not thrown', async () => {
    await topic('orders-stream', 'orders-topic', 1);
    await put('orders-stream', 'orders-topic', 0, [
      '{"orderId":"o-1","status":"placed"}',
      '{"orderId":"o-2","status":"paid"}',
      '{"orderId":', // not JSON
      new Uint8Array([0x7b, 0xff, 0x7d]), // not UTF-8
      '{"orderId":"o-3","status":"shipped"}',
    ]);
    const lines: string[] = [];
    await consumeOrders(client, 5, (line) => lines.push(line));
    expect(lines).toEqual([
      'Order: o-1',
      'Order: o-2',
      'Skipped offset 2: deserialization-failed (SyntaxError)',
      'Skipped offset 3: deserialization-failed (TypeError)',
      'Order: o-3',
    ]);
    const group = await client.getConsumerGroup('orders-stream', 'orders-topic', 'order-processors');
    expect(group?.members).toEqual([]);
    expect(await storedOffset(Consumer.group('order-processors'), 'orders-stream', 'orders-topic', 0)).toBe(3n);
  });

  it('a failed status carries the error and the raw message; a success carries the data', async () => {
    await topic('orders-stream', 'orders-topic', 1);
    await put('orders-stream', 'orders-topic', 0, ['{"orderId":"o-1","status":"placed"}', 'nope']);
    await using consumer = IggyTypedConsumerBuilder.create(
      client,
      'orders-stream',
      'orders-topic',
      Consumer.new(7),
      new JsonSerializer<OrderEvent>(),
    )
      .withPollingStrategy(PollingStrategy.first())
      .withPollInterval(5)
      .build();
    await consumer.init();
    const seen: DeserializedMessage<OrderEvent>[] = [];
    for await (const message of consumer.receiveDeserialized()) {
      seen.push(message);
      if (seen.length === 2) break;
    }
    const [ok, failed] = seen;
    expect(ok).toMatchObject({ status: 'success', data: { orderId: 'o-1', status: 'placed' }, offset: 0n, partition: 0 });
    expect(failed?.status).toBe('deserialization-failed');
    expect(failed?.data).toBeUndefined();
    expect(failed?.error).toBeInstanceOf(SyntaxError);
    expect(text(failed!.message.payload)).toBe('nope');
  });
});

describe('SDK additions used by the examples', FAST, () => {
  it('kind factories spell the client values and refuse what the protocol cannot carry', () => {
    expect(Identifier.string('orders')).toBe('orders');
    expect(Identifier.numeric(7)).toBe(7);
    expect(() => Identifier.string('')).toThrow(RangeError);
    expect(() => Identifier.string('x'.repeat(256))).toThrow(RangeError);
    expect(() => Identifier.numeric(-1)).toThrow(RangeError);
    expect(() => Identifier.numeric(1.5)).toThrow(RangeError);
    expect(Consumer.new(1)).toEqual({ kind: 'consumer', id: 1 });
    expect(Consumer.group('g')).toEqual({ kind: 'group', id: 'g' });
    expect(() => Consumer.group('')).toThrow(RangeError);
    expect(Partitioning.none()).toEqual({ kind: 'balanced' });
    expect(Partitioning.partitionId(2)).toEqual({ kind: 'partition', id: 2 });
    expect(Partitioning.messageKey('order-42')).toEqual({ kind: 'key', key: 'order-42' });
    expect(() => Partitioning.messageKey(new Uint8Array(0))).toThrow(RangeError);
    expect(() => Partitioning.partitionId(2 ** 32)).toThrow(RangeError);
    expect(PollingStrategy.next()).toEqual({ kind: 'next' });
    expect(PollingStrategy.first()).toEqual({ kind: 'first' });
    expect(PollingStrategy.last()).toEqual({ kind: 'last' });
    expect(PollingStrategy.offset(5)).toEqual({ kind: 'offset', value: 5n });
    expect(PollingStrategy.timestamp(new Date(1_700_000_000_123))).toEqual({ kind: 'timestamp', value: 1_700_000_000_123_000n });
    expect(PollingStrategy.timestamp(42n)).toEqual({ kind: 'timestamp', value: 42n });
    expect(() => PollingStrategy.offset(-1)).toThrow(RangeError);
    expect(() => PollingStrategy.offset(2n ** 64n)).toThrow(RangeError);
    expect(UserHeaders.decode(UserHeaders.encode({ a: '1', ключ: 'значение' }))).toEqual({ a: '1', ключ: 'значение' });
    expect(UserHeaders.decode(new Uint8Array(0))).toEqual({});
    expect(() => UserHeaders.encode({ empty: '' })).toThrow(RangeError);
  });

  it('JsonSerializer takes a replacer and a reviver (e.g. for bigints), and refuses values without a JSON form', () => {
    const serde = new JsonSerializer<{ amount: bigint }>({
      replacer: (_key, value) => (typeof value === 'bigint' ? `${value}n` : value),
      reviver: (_key, value) => (typeof value === 'string' && /^\d+n$/.test(value) ? BigInt(value.slice(0, -1)) : value),
    });
    const bytes = serde.serialize({ amount: 12345678901234567890n });
    expect(text(bytes)).toBe('{"amount":"12345678901234567890n"}');
    expect(serde.deserialize(bytes)).toEqual({ amount: 12345678901234567890n });
    expect(() => new JsonSerializer<undefined>().serialize(undefined)).toThrow(TypeError);
  });

  it('createPublisherBuilder / createConsumerBuilder: untyped without a (de)serializer, typed with one', () => {
    const publisher = createPublisherBuilder(client, 's', 't');
    expect(publisher).toBeInstanceOf(IggyPublisherBuilder);
    const typedPublisher = createPublisherBuilder(client, 's', 't', new OrderSerializer());
    expect(typedPublisher).toBeInstanceOf(IggyTypedPublisherBuilder);
    expectTypeOf(typedPublisher.build()).toEqualTypeOf<IggyTypedPublisher<Order>>();
    const consumer = createConsumerBuilder(client, 's', 't', Consumer.new(1));
    expect(consumer).toBeInstanceOf(IggyConsumerBuilder);
    const typedConsumer = createConsumerBuilder(client, 's', 't', Consumer.new(1), new OrderDeserializer());
    expect(typedConsumer).toBeInstanceOf(IggyTypedConsumerBuilder);
    expectTypeOf(typedConsumer.build()).toEqualTypeOf<IggyTypedConsumer<OrderEvent>>();
  });

  it('withConsumerGroup names the group to create for a numeric group id', async () => {
    await topic('my-stream', 'my-topic', 1);
    await put('my-stream', 'my-topic', 0, ['n0']);
    await using consumer = IggyConsumerBuilder.create(client, 'my-stream', 'my-topic', Consumer.group(0))
      .withConsumerGroup('numbered')
      .withPollingStrategy(PollingStrategy.first())
      .build();
    await consumer.init();
    expect((await client.getConsumerGroup('my-stream', 'my-topic', 0))?.name).toBe('numbered');
    expect(consumer.partitions).toEqual([0]);
  });

  it('withConsumerGroup: createIfNotExists false refuses a missing group; joinGroup false reads only where the client is a member', async () => {
    await topic('my-stream', 'my-topic', 1);
    await put('my-stream', 'my-topic', 0, ['j0']);
    const strict = IggyConsumerBuilder.create(client, 'my-stream', 'my-topic', Consumer.group('absent'))
      .withConsumerGroup('absent', { createIfNotExists: false })
      .build();
    await expect(strict.init()).rejects.toBeInstanceOf(IggyError);

    const outsider = IggyConsumerBuilder.create(client, 'my-stream', 'my-topic', Consumer.group('managed'))
      .withConsumerGroup('managed', { joinGroup: false })
      .build();
    await outsider.init();
    expect(outsider.partitions).toEqual([]); // created, not joined
    expect((await client.getConsumerGroup('my-stream', 'my-topic', 'managed'))?.members).toEqual([]);

    await client.joinConsumerGroup('my-stream', 'my-topic', 'managed'); // membership managed elsewhere
    await using member = IggyConsumerBuilder.create(client, 'my-stream', 'my-topic', Consumer.group('managed'))
      .withConsumerGroup('managed', { joinGroup: false })
      .withPollingStrategy(PollingStrategy.first())
      .build();
    await member.init();
    expect(member.partitions).toEqual([0]);
    for await (const message of member.receive()) {
      expect(text(message.payload)).toBe('j0');
      break;
    }
    await member.dispose();
    // It did not join, so it does not leave: the membership stays with whoever made it.
    expect((await client.getConsumerGroup('my-stream', 'my-topic', 'managed'))?.members).toHaveLength(1);
  });

  it('using a consumer before init, or a publisher after dispose, throws a typed error', async () => {
    await topic('my-stream', 'my-topic', 1);
    const consumer = IggyConsumerBuilder.create(client, 'my-stream', 'my-topic', Consumer.new(1)).build();
    await expect(consumer.receive().next()).rejects.toMatchObject({ code: 'iggy_not_initialized' });
    const publisher = IggyPublisherBuilder.create(client, 'my-stream', 'my-topic').build();
    await expect(publisher.sendMessages([{ payload: utf8.encode('x') }])).rejects.toMatchObject({ code: 'iggy_not_initialized' });
    await publisher.init();
    await publisher.dispose();
    await expect(publisher.sendMessages([{ payload: utf8.encode('x') }])).rejects.toMatchObject({ name: 'ClosedError' });
  });
});
