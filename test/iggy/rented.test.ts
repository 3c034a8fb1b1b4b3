// Pooled (rented) batches: one buffer per batch, ownership passes to send, disposed batches refuse to be read.
import { IggyClient } from '@keiyaku/iggy';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { IggyConsumerBuilder } from '../../runtime/iggy/consumer.js';
import { BufferPool, ObjectDisposedError, RentedMessageBatchBuilder } from '../../runtime/iggy/pooled-batches.js';
import { IggyPublisherBuilder } from '../../runtime/iggy/publisher.js';
import { IggyProtocolDouble } from './protocol-double.js';

const json = <T>(item: T, writer: { write(bytes: Uint8Array): void }): void => writer.write(new TextEncoder().encode(JSON.stringify(item)));

let server: IggyProtocolDouble;
let client: IggyClient;
beforeEach(async () => {
  server = new IggyProtocolDouble();
  const port = await server.start();
  client = new IggyClient({ host: '127.0.0.1', port, heartbeatMs: 0 });
  await client.connect();
});
afterEach(async () => {
  await client.close();
  await server.stop();
});

describe('rented message batches', () => {
  it('serializes every payload into one pooled buffer and returns it on dispose; reading after that throws', () => {
    const pool = new BufferPool();
    const builder = new RentedMessageBatchBuilder(8, pool);
    for (let i = 0; i < 50; i++) builder.add({ n: i }, json, BigInt(i + 1));
    const batch = builder.build();
    const messages = batch.messages;
    expect(messages).toHaveLength(50);
    expect(new TextDecoder().decode(messages[49]!.payload)).toBe('{"n":49}');
    expect(messages[0]!.payload.buffer).toBe(messages[49]!.payload.buffer); // one buffer
    batch.dispose();
    expect(pool.pooled).toBeGreaterThan(0);
    expect(() => batch.messages).toThrow(ObjectDisposedError);
    expect(() => builder.add({ n: 1 }, json)).toThrow(ObjectDisposedError);
    builder.dispose(); // a no-op after build()
  });

  it('an abandoned builder gives its buffer back', () => {
    const pool = new BufferPool();
    {
      using builder = new RentedMessageBatchBuilder(16, pool);
      builder.add('x', json);
    }
    expect(pool.pooled).toBe(1);
  });

  it('the publisher takes ownership: direct and background sends both dispose the batch, and the data arrives intact', async () => {
    const direct = IggyPublisherBuilder.create(client, 's', 't')
      .createIfMissing({ partitions: 1 })
      .withPartitioning({ kind: 'partition', id: 0 })
      .build();
    await direct.init();
    const a = new RentedMessageBatchBuilder().add({ order: 1 }, json).add({ order: 2 }, json).build();
    await direct.send(a);
    expect(a.disposed).toBe(true);
    const background = IggyPublisherBuilder.create(client, 's', 't')
      .withPartitioning({ kind: 'partition', id: 0 })
      .withBackgroundSending({ batchSize: 10, lingerMs: 1 })
      .build();
    await background.init();
    const b = new RentedMessageBatchBuilder().add({ order: 3 }, json).build();
    await background.send(b);
    expect(b.disposed).toBe(false); // queued as it is, not copied out: its buffer goes to the wire with the flush
    // Rent pooled memory right away: what was queued must not change.
    new RentedMessageBatchBuilder().add({ order: 999 }, json).build();
    await background.waitUntilAllSends();
    expect(b.disposed).toBe(true); // back in the pool after the flush
    const poll = await client.pollMessages({
      consumer: { kind: 'consumer', id: 1 },
      stream: 's',
      topic: 't',
      partition: 0,
      strategy: { kind: 'first' },
      count: 10,
      autoCommit: false,
    });
    expect(poll.messages.map((m) => new TextDecoder().decode(m.payload))).toEqual(['{"order":1}', '{"order":2}', '{"order":3}']);
  });

  it('receiveRented yields payload views that refuse to be read after dispose', async () => {
    const publisher = IggyPublisherBuilder.create(client, 'r', 't')
      .createIfMissing({ partitions: 1 })
      .withPartitioning({ kind: 'partition', id: 0 })
      .build();
    await publisher.init();
    await publisher.send(new RentedMessageBatchBuilder().add({ k: 1 }, json).build());
    const consumer = IggyConsumerBuilder.create(client, 'r', 't', { kind: 'consumer', id: 9 })
      .withPollingStrategy({ kind: 'first' })
      .withPollInterval(5)
      .build();
    await consumer.init();
    for await (const message of consumer.receiveRented()) {
      expect(new TextDecoder().decode(message.payload)).toBe('{"k":1}');
      message.dispose();
      expect(() => message.payload).toThrow(/disposed/);
      break;
    }
  });
});
