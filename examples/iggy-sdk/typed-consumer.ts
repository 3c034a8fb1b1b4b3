/**
 * The "Typed consumer" example of the Iggy C# SDK guide, in TypeScript (docs/iggy.md): a
 * `Deserializer<OrderEvent>` decodes each payload and `receiveDeserialized()` yields every
 * message with a status to check: a payload that does not decode is a
 * `deserialization-failed` status carrying the error, never a throw.
 */
import { Consumer, type Deserializer, Identifier, type IggyClient, IggyTypedConsumerBuilder } from '@keiyaku/iggy';

export interface OrderEvent {
  readonly orderId: string;
  readonly status: string;
}

// class OrderDeserializer : IDeserializer<OrderEvent>
export class OrderDeserializer implements Deserializer<OrderEvent> {
  readonly #utf8 = new TextDecoder('utf-8', { fatal: true });

  // public OrderEvent Deserialize(ReadOnlyMemory<byte> data) => JsonSerializer.Deserialize<OrderEvent>(data.Span)!;
  deserialize(data: Uint8Array): OrderEvent {
    return JSON.parse(this.#utf8.decode(data)) as OrderEvent;
  }
}

export async function consumeOrders(client: IggyClient, count: number, sink: (line: string) => void): Promise<void> {
  // var builder = IggyConsumerBuilder<OrderEvent>.Create(client, Identifier.String("orders-stream"), Identifier.String("orders-topic"), Consumer.Group("order-processors"), new OrderDeserializer());
  const builder = IggyTypedConsumerBuilder.create(
    client,
    Identifier.string('orders-stream'),
    Identifier.string('orders-topic'),
    Consumer.group('order-processors'),
    new OrderDeserializer(),
  );
  builder.withAutoCommit('after-receive'); // builder.WithAutoCommitMode(AutoCommitMode.AfterReceive);
  // (The variable is only needed in C#; here `create(...).withAutoCommit(...).build()` is typed as well.)

  await using consumer = builder.build(); // var consumer = builder.Build();
  await consumer.init(); // await consumer.InitAsync();

  let received = 0;
  for await (const message of consumer.receiveDeserialized()) {
    // await foreach (var message in consumer.ReceiveDeserializedAsync())
    if (message.status === 'success') {
      // if (message.Status == MessageStatus.Success)
      sink(`Order: ${message.data.orderId}`); // Console.WriteLine($"Order: {message.Data?.OrderId}");
    } else {
      // Not in the C# example: say which message was skipped and why.
      sink(`Skipped offset ${message.offset}: ${message.status} (${message.error.name})`);
    }
    if (++received === count) break;
  }
}
