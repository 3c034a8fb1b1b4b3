/**
 * The "Publishing with rented batches" example of the Iggy C# SDK guide, in TypeScript
 * (docs/iggy.md): every payload is written into one buffer rented from the shared pool.
 * `publisher.send(batch)` takes ownership of the batch; for a direct low-level send you pass
 * `batch.messages` to the client yourself and dispose the batch afterwards (`using`). A
 * disposed batch throws `ObjectDisposedError` when read.
 */
import { randomUUID } from 'node:crypto';
import {
  Identifier,
  type IggyClient,
  IggyPublisherBuilder,
  messageIdFromUuid,
  Partitioning,
  type RentedMessageBatch,
  RentedMessageBatchBuilder,
  type RentedPayloadWriter,
} from '@keiyaku/iggy';

// static (e, writer) => { using var json = new Utf8JsonWriter(writer); JsonSerializer.Serialize(json, e); }
// A module-level function that closes over nothing, with the event passed as its state: no closure per message.
// `writeUtf8` encodes the JSON text straight into the pooled buffer.
const writeJson = (e: unknown, writer: RentedPayloadWriter): void => writer.writeUtf8(JSON.stringify(e));

/** Builds one rented batch of `events` and hands it to a publisher. Returns the batch, which the publisher has disposed. */
export async function publishRentedBatch(client: IggyClient, events: readonly unknown[]): Promise<RentedMessageBatch> {
  await using publisher = IggyPublisherBuilder.create(client, Identifier.string('my-stream'), Identifier.string('my-topic'))
    .withPartitioning(Partitioning.none())
    .withBackgroundSending({ enabled: true, batchSize: 100 })
    .build();
  await publisher.init();

  using builder = new RentedMessageBatchBuilder(4096); // using var builder = new RentedMessageBatchBuilder(sizeHint: 4096);

  for (const evt of events) {
    // Serialize straight into the pooled buffer (static lambda + state = no closure allocation)
    builder.add(evt, writeJson, messageIdFromUuid(randomUUID())); // builder.Add(evt, static (e, writer) => { … }, Guid.NewGuid());
  }

  const batch = builder.build(); // var batch = builder.Build();
  await publisher.send(batch); // await publisher.SendAsync(batch); (the publisher owns the batch now: do not dispose it)
  await publisher.waitUntilAllSends();
  return batch;
}

/** The direct low-level send of a rented batch: send `batch.messages` with the client, then dispose. Returns the (disposed) batch. */
export async function sendRentedBatchDirectly(client: IggyClient, events: readonly unknown[]): Promise<RentedMessageBatch> {
  using builder = new RentedMessageBatchBuilder(4096);
  for (const evt of events) builder.add(evt, writeJson, messageIdFromUuid(randomUUID()));

  using batch = builder.build(); // using var batch = builder.Build();
  // await client.SendMessagesAsync(streamId, topicId, partitioning, batch.Messages);
  await client.sendMessages(Identifier.string('my-stream'), Identifier.string('my-topic'), Partitioning.none(), batch.messages);
  return batch; // `using` disposes it as this function returns
}
