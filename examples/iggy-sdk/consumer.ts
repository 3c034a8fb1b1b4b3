/**
 * The "IggyConsumer" example of the Iggy C# SDK guide, in TypeScript (docs/iggy.md):
 * configure a consumer, initialize it, then iterate. `receive()` is an async iterator (C#:
 * `ReceiveAsync()`, an `IAsyncEnumerable`); it runs until the loop breaks or its
 * `AbortSignal` aborts, so this example stops after `count` messages and writes its lines to
 * `sink` instead of the console.
 */
import { Consumer, Identifier, type IggyClient, IggyConsumerBuilder, PollingStrategy } from '@keiyaku/iggy';

const utf8 = new TextDecoder();

export async function consumeMessages(client: IggyClient, count: number, sink: (line: string) => void): Promise<void> {
  // var consumer = IggyConsumerBuilder.Create(client, Identifier.String("my-stream"), Identifier.String("my-topic"), Consumer.New(1))
  await using consumer = IggyConsumerBuilder.create(client, Identifier.string('my-stream'), Identifier.string('my-topic'), Consumer.new(1))
    .withPollingStrategy(PollingStrategy.next()) // .WithPollingStrategy(PollingStrategy.Next())
    .withBatchSize(10) // .WithBatchSize(10)
    .withAutoCommit('server-on-poll') // .WithAutoCommitMode(AutoCommitMode.Auto)
    .build(); // .Build();

  await consumer.init(); // await consumer.InitAsync();

  let received = 0;
  for await (const message of consumer.receive()) {
    // await foreach (var message in consumer.ReceiveAsync())
    const payload = utf8.decode(message.payload); // Encoding.UTF8.GetString(message.Message.Payload)
    sink(`Offset ${message.offset}: ${payload}`); // Console.WriteLine($"Offset {message.CurrentOffset}: {payload}");
    if (++received === count) break;
  }
}
