/**
 * The "Typed publisher" example of the Iggy C# SDK guide, in TypeScript (docs/iggy.md): a
 * `Serializer<Order>` turns each order into payload bytes. Besides a collection, `send`
 * takes one item (with an optional id and headers) or `[item, id, headers]` entries.
 */
import { Identifier, type IggyClient, IggyTypedPublisherBuilder, type Serializer, type TypedEntry } from '@keiyaku/iggy';

export interface Order {
  readonly orderId: string;
  readonly total: number;
}

// class OrderSerializer : ISerializer<Order>
export class OrderSerializer implements Serializer<Order> {
  readonly #utf8 = new TextEncoder();

  // public void Serialize(Order data, IBufferWriter<byte> writer) => writer.Write(JsonSerializer.SerializeToUtf8Bytes(data));
  serialize(data: Order): Uint8Array {
    return this.#utf8.encode(JSON.stringify(data));
  }
}

export interface PublishOrders {
  /** Sent as one collection. */
  readonly orders: readonly Order[];
  /** Sent as a single item with these user-header bytes (see `UserHeaders.encode`). */
  readonly single?: { readonly order: Order; readonly headers?: Uint8Array };
  /** Sent as `[order, id, headers]` entries. */
  readonly entries?: readonly TypedEntry<Order>[];
}

export async function publishOrders(client: IggyClient, { orders, single, entries }: PublishOrders): Promise<void> {
  // var publisher = IggyPublisherBuilder<Order>.Create(client, Identifier.String("orders-stream"), Identifier.String("orders-topic"), new OrderSerializer()).Build();
  await using publisher = IggyTypedPublisherBuilder.create(
    client,
    Identifier.string('orders-stream'),
    Identifier.string('orders-topic'),
    new OrderSerializer(),
  ).build();

  await publisher.init(); // await publisher.InitAsync();
  await publisher.send(orders); // await publisher.SendAsync(new List<Order> { /* ... */ });

  // SendAsync(order, messageId: null, userHeaders: null)
  if (single) await publisher.send(single.order, { headers: single.headers });
  // SendAsync(a collection of (data, messageId, userHeaders) tuples)
  if (entries) await publisher.send(entries);
}
