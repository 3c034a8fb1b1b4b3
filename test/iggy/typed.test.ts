// Typed publishing and consuming (JSON serializer, per-message decode status) over the protocol test double.
import { IggyClient } from '@keiyaku/iggy';
import { afterEach, beforeEach, describe, expect, expectTypeOf, it } from 'vitest';
import {
  IggyTypedConsumerBuilder,
  type IggyTypedPublisher,
  IggyTypedPublisherBuilder,
  JsonSerializer,
} from '../../runtime/iggy/typed-builders.js';
import { IggyProtocolDouble } from './protocol-double.js';

interface Order {
  readonly id: string;
  readonly total: number;
}

let server: IggyProtocolDouble;
let client: IggyClient;
beforeEach(async () => {
  server = new IggyProtocolDouble();
  const port = await server.start();
  client = new IggyClient({ host: '127.0.0.1', port, requestTimeoutMs: 1_000, heartbeatMs: 0 });
  await client.connect();
});
afterEach(async () => {
  await client.close();
  await server.stop();
});

describe('typed Iggy publisher and consumer', () => {
  it('keeps the typed builder through fluent calls and sends items, collections and (item, id, headers) tuples', async () => {
    const builder = IggyTypedPublisherBuilder.create<Order>(client, 'shop', 'orders')
      .createIfMissing({ partitions: 1 })
      .withRetry({ maxAttempts: 2 });
    expectTypeOf(builder.build()).toEqualTypeOf<IggyTypedPublisher<Order>>();
    const publisher = builder.build();
    await publisher.init();
    await publisher.send({ id: 'o-1', total: 10 });
    await publisher.send([
      { id: 'o-2', total: 20 },
      { id: 'o-3', total: 30 },
    ]);
    await publisher.send([[{ id: 'o-4', total: 40 }, 44n, undefined]]);
    // A payload that is not JSON, sent raw, to show the decode status.
    await client.sendMessages('shop', 'orders', { kind: 'partition', id: 0 }, [
      { originTimestamp: 1n, payload: new Uint8Array([0x7b, 0xff]) },
    ]);
    const consumer = IggyTypedConsumerBuilder.create(client, 'shop', 'orders', { kind: 'consumer', id: 1 }, new JsonSerializer<Order>())
      .withPollingStrategy({ kind: 'first' })
      .withPollInterval(5)
      .build();
    await consumer.init();
    const outcomes: string[] = [];
    for await (const received of consumer.receiveDeserialized()) {
      if (received.status === 'success') expectTypeOf(received.data).toEqualTypeOf<Order>();
      outcomes.push(
        received.status === 'success'
          ? `${received.data.id}:${received.data.total}${received.message.id === 44n ? ':id44' : ''}`
          : `failed: ${received.error.name}`,
      );
      if (outcomes.length === 5) break;
    }
    expect(outcomes).toEqual(['o-1:10', 'o-2:20', 'o-3:30', 'o-4:40:id44', 'failed: TypeError']);
  });
});
