/**
 * The "IggyPublisher" example of the Iggy C# SDK guide, in TypeScript (docs/iggy.md):
 * configure a publisher, initialize it, then send. `init()` validates the stream and topic
 * (this builder does not create them: see `createIfMissing`).
 */
import { randomUUID } from 'node:crypto';
import { Identifier, type IggyClient, IggyPublisherBuilder, messageIdFromUuid, Partitioning, type PublisherMessage } from '@keiyaku/iggy';

const utf8 = new TextEncoder();

export async function publishMessages(client: IggyClient): Promise<void> {
  // var publisher = IggyPublisherBuilder.Create(client, Identifier.String("my-stream"), Identifier.String("my-topic"))
  // `await using` replaces the closing `await publisher.DisposeAsync();`: it also disposes when a line throws.
  await using publisher = IggyPublisherBuilder.create(client, Identifier.string('my-stream'), Identifier.string('my-topic'))
    .withPartitioning(Partitioning.none()) // .WithPartitioning(Partitioning.None())
    .withBackgroundSending({ enabled: true, batchSize: 100 }) // .WithBackgroundSending(enabled: true, batchSize: 100)
    .withRetry({ maxAttempts: 3 }) // .WithRetry(maxAttempts: 3)
    .build(); // .Build();

  await publisher.init(); // await publisher.InitAsync();

  const messages: PublisherMessage[] = [
    { id: messageIdFromUuid(randomUUID()), payload: utf8.encode('Message 1') }, // new(Guid.NewGuid(), "Message 1"u8.ToArray())
    { id: 0n, payload: utf8.encode('Message 2') }, // new(0, "Message 2"u8.ToArray()): 0 lets an id be minted
  ];

  await publisher.sendMessages(messages); // await publisher.SendMessagesAsync(messages);

  // Drain the background queue, then dispose (at the end of this scope)
  await publisher.waitUntilAllSends(); // await publisher.WaitUntilAllSendsAsync();
}
