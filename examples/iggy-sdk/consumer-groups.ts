/**
 * The "Consumer groups" example of the Iggy C# SDK guide, in TypeScript (docs/iggy.md): pass
 * `Consumer.group(...)` and let the builder create and join the group; the server splits the
 * topic's partitions between the members. Disposing the consumer (`await using`) leaves the
 * group.
 */
import { Consumer, Identifier, type IggyClient, IggyConsumerBuilder, PollingStrategy } from '@keiyaku/iggy';

const utf8 = new TextDecoder();

export async function consumeAsGroup(client: IggyClient, count: number, sink: (line: string) => void): Promise<void> {
  // var consumer = IggyConsumerBuilder.Create(client, Identifier.String("my-stream"), Identifier.String("my-topic"), Consumer.Group("my-group"))
  await using consumer = IggyConsumerBuilder.create(
    client,
    Identifier.string('my-stream'),
    Identifier.string('my-topic'),
    Consumer.group('my-group'),
  )
    .withConsumerGroup('my-group', { createIfNotExists: true, joinGroup: true }) // .WithConsumerGroup("my-group", createIfNotExists: true, joinGroup: true)
    .withPollingStrategy(PollingStrategy.next()) // .WithPollingStrategy(PollingStrategy.Next())
    .withAutoCommit('after-receive') // .WithAutoCommitMode(AutoCommitMode.AfterReceive)
    .build(); // .Build();

  await consumer.init(); // await consumer.InitAsync();

  let received = 0;
  for await (const message of consumer.receive()) {
    const payload = utf8.decode(message.payload);
    sink(`Partition ${message.partition}: ${payload}`); // Console.WriteLine($"Partition {message.PartitionId}: {payload}");
    if (++received === count) break;
  }
  // await consumer.DisposeAsync(); happens here, at the end of the `await using` scope: the consumer leaves the group.
}
