// Rented send without copies: a rented batch is laid out in wire order in its pooled buffer, its
// frame headers are written in place, and that buffer itself is the body part that goes to the
// socket; the bytes equal what the copying encoder produces. The publisher takes ownership in
// background mode without copying a payload out, and the buffer returns to the pool after the
// flush. A serializer with write() serializes straight into the send buffer.
import {
  BufferPool,
  Consumer,
  IggyClient,
  IggyConsumerBuilder,
  IggyTypedPublisherBuilder,
  JsonSerializer,
  PollingStrategy,
} from '@keiyaku/iggy';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RentedMessageBatchBuilder, type RentedPayloadWriter } from '../../runtime/iggy/pooled-batches.js';
import { encodeSendMessages, encodeSendMessagesInPlace, sealInPlace } from '../../runtime/iggy/protocol/v0_11/commands/messages.js';
import { IggyPublisherBuilder } from '../../runtime/iggy/publisher.js';
import { IggyProtocolDouble } from './protocol-double.js';

const writeText = (text: string, writer: RentedPayloadWriter): void => writer.writeUtf8(text);
const utf8 = new TextEncoder();

describe('the in-place wire layout', () => {
  it('seals in the batch buffer and sends that buffer as the body, byte for byte what the copying encoder writes', () => {
    const pool = new BufferPool();
    const batch = new RentedMessageBatchBuilder(64, pool)
      .add('first', writeText, 7n)
      .add('second ✓', writeText, 8n, new Uint8Array([1, 2, 3]))
      .add('third', writeText, 9n)
      .build();
    const { batch: wire, header } = batch.wire(sealInPlace);
    const parts = encodeSendMessagesInPlace('s', 't', { kind: 'partition', id: 0 }, wire, header);
    expect(parts).toHaveLength(2);
    expect(parts[1]!.buffer).toBe(batch.messages[0]!.payload.buffer); // the pooled buffer itself goes to the wire
    const joined = Buffer.concat(parts);
    const copied = encodeSendMessages('s', 't', { kind: 'partition', id: 0 }, batch.messages);
    expect(Buffer.from(joined).equals(Buffer.from(copied))).toBe(true);
    expect(batch.wire(sealInPlace).header).toBe(header); // sealed once: a retry sends the same bytes
    batch.dispose();
    expect(pool.pooled).toBe(1);
  });

  it('mints the ids it was not given, once', () => {
    const batch = new RentedMessageBatchBuilder().add('a', writeText).add('b', writeText, 0n).build();
    const { batch: wire, header } = batch.wire(sealInPlace);
    const body = Buffer.concat(encodeSendMessagesInPlace(1, 2, { kind: 'balanced' }, wire, header));
    const frames = body.subarray(body.length - 2 * (48 + 1));
    const idA = frames.readBigUInt64LE(8) | (frames.readBigUInt64LE(16) << 64n);
    const idB = frames.readBigUInt64LE(49 + 8) | (frames.readBigUInt64LE(49 + 16) << 64n);
    expect(idA).not.toBe(0n);
    expect(idB).not.toBe(0n);
    expect(idA).not.toBe(idB);
    expect((idA >> 52n) & 0xfn).toBe(4n); // UUIDv4-shaped, as the copying encoder mints them (byte 6 of the LE u128)
    batch.dispose();
  });
});

describe('publishing rented batches through the protocol double', () => {
  let server: IggyProtocolDouble;
  let client: IggyClient;
  beforeEach(async () => {
    server = new IggyProtocolDouble();
    client = new IggyClient({ host: '127.0.0.1', port: await server.start(), heartbeatMs: 0 });
    await client.connect();
  });
  afterEach(async () => {
    await client.close();
    await server.stop();
  });

  async function read(stream: string, count: number): Promise<string[]> {
    const consumer = IggyConsumerBuilder.create(client, stream, 't', Consumer.new(1)).withPollingStrategy(PollingStrategy.first()).build();
    await consumer.init();
    const out: string[] = [];
    for await (const message of consumer.receive()) {
      out.push(new TextDecoder().decode(message.payload));
      if (out.length === count) break;
    }
    return out;
  }

  it('background mode: owned without a copy, in order with plain messages, back in the pool after the flush', async () => {
    const pool = new BufferPool();
    const publisher = IggyPublisherBuilder.create(client, 'bg', 't')
      .createIfMissing({ partitions: 1 })
      .withBackgroundSending({ batchSize: 1_000, lingerMs: 50 })
      .build();
    await publisher.init();
    await publisher.sendMessages([{ payload: utf8.encode('plain-1') }]);
    const batch = new RentedMessageBatchBuilder(256, pool).add('rented-1', writeText).add('rented-2', writeText).build();
    const view = batch.messages[0]!.payload;
    await publisher.send(batch);
    expect(batch.disposed).toBe(false); // still owned by the queue: nothing was copied out
    await publisher.sendMessages([{ payload: utf8.encode('plain-2') }]);
    await publisher.waitUntilAllSends();
    expect(batch.disposed).toBe(true);
    expect(pool.stats).toEqual({ allocated: 1, reused: 0 });
    expect(pool.pooled).toBe(1);
    expect(view.length).toBe(0); // the earlier view is revoked
    expect(await read('bg', 4)).toEqual(['plain-1', 'rented-1', 'rented-2', 'plain-2']);
  });

  it('a batch that finally fails is reported and still returns to the pool', async () => {
    const pool = new BufferPool();
    const publisher = IggyPublisherBuilder.create(client, 'missing', 't')
      .withBackgroundSending({ lingerMs: 1 })
      .withRetry({ enabled: false })
      .build();
    await client.createStream('missing');
    await client.createTopic('missing', 't', 1);
    await publisher.init();
    await server.stop(); // every send fails from here on
    const batch = new RentedMessageBatchBuilder(64, pool).add('lost', writeText).build();
    await publisher.send(batch);
    await expect(publisher.waitUntilAllSends()).rejects.toMatchObject({ name: 'IggyPublisherError', messages: 1 });
    expect(batch.disposed).toBe(true);
    expect(pool.pooled).toBe(1);
    server = new IggyProtocolDouble(); // for afterEach
    await server.start();
  });

  it('a typed publisher with a write() serializer writes straight into the send buffer', async () => {
    const publisher = IggyTypedPublisherBuilder.create(client, 'typed', 't', new JsonSerializer<{ n: number }>())
      .createIfMissing({ partitions: 1 })
      .build();
    await publisher.init();
    let serialized = 0;
    const serializer = new JsonSerializer<{ n: number }>();
    const counting = {
      serialize: (item: { n: number }): Uint8Array => {
        throw new Error(`serialize() should not be called when write() exists (item ${item.n})`);
      },
      write: (item: { n: number }, writer: RentedPayloadWriter): void => {
        serialized++;
        serializer.write(item, writer);
      },
    };
    const viaWrite = IggyTypedPublisherBuilder.create(client, 'typed', 't', counting).build();
    await viaWrite.init();
    await viaWrite.send([{ n: 1 }, { n: 2 }]);
    await publisher.send({ n: 3 });
    expect(serialized).toBe(2);
    expect(await read('typed', 3)).toEqual(['{"n":1}', '{"n":2}', '{"n":3}']);
  });
});
