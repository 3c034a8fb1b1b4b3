/**
 * The "Typed publisher" example of the Iggy C# SDK guide with the built-in JSON serializer,
 * in TypeScript (docs/iggy.md): `JsonSerializer<T>` (C#: `SystemTextJsonSerializer<T>`)
 * needs no serializer class of your own.
 */
import { Identifier, type IggyClient, IggyTypedPublisherBuilder, JsonSerializer } from '@keiyaku/iggy';
import type { Order } from './typed-publisher.js';

export async function publishOrdersAsJson(client: IggyClient, orders: readonly Order[]): Promise<void> {
  // var publisher = IggyPublisherBuilder<Order>.Create(client, Identifier.String("orders-stream"), Identifier.String("orders-topic"), new SystemTextJsonSerializer<Order>()).Build();
  await using publisher = IggyTypedPublisherBuilder.create(
    client,
    Identifier.string('orders-stream'),
    Identifier.string('orders-topic'),
    new JsonSerializer<Order>(),
  ).build();

  await publisher.init();
  await publisher.send(orders);
}
