/**
 * The "Manual offset control" example of the Iggy C# SDK guide, in TypeScript
 * (docs/iggy.md): with auto-commit disabled, store each offset yourself after processing the
 * message. `storeOffset(offset, partition, true)` also moves the consumer's position (C#:
 * `resetLastPolled: true`), so the next poll of that partition resumes right after the
 * stored offset; `deleteOffset(partition)` clears the stored offset.
 */
import { Consumer, Identifier, type IggyClient, IggyConsumerBuilder, PollingStrategy, type ReceivedMessage } from '@keiyaku/iggy';

export interface ManualOffsets {
  /** Messages to process (and store) before stopping. */
  readonly count: number;
  /** Process(message) */
  readonly process: (message: ReceivedMessage) => void;
  /** Then go back: store `offset` on `partition` with resetLastPolled and process `count` more from right after it. */
  readonly rewind?: { readonly partition: number; readonly offset: bigint; readonly count: number };
  /** Finally clear the stored offset of this partition. */
  readonly forget?: number;
}

export async function consumeWithManualOffsets(client: IggyClient, { count, process, rewind, forget }: ManualOffsets): Promise<void> {
  await using consumer = IggyConsumerBuilder.create(client, Identifier.string('my-stream'), Identifier.string('my-topic'), Consumer.new(1))
    .withPollingStrategy(PollingStrategy.next())
    .withAutoCommit('disabled') // .WithAutoCommitMode(AutoCommitMode.Disabled)
    .build();
  await consumer.init();

  let handled = 0;
  for await (const message of consumer.receive()) {
    // await foreach (var message in consumer.ReceiveAsync())
    process(message); // Process(message);
    await consumer.storeOffset(message.offset, message.partition); // await consumer.StoreOffsetAsync(message.CurrentOffset, message.PartitionId);
    if (++handled === count) break;
  }

  if (rewind) {
    // await consumer.StoreOffsetAsync(offset, partitionId, resetLastPolled: true);
    await consumer.storeOffset(rewind.offset, rewind.partition, true);
    let replayed = 0;
    for await (const message of consumer.receive()) {
      process(message);
      await consumer.storeOffset(message.offset, message.partition);
      if (++replayed === rewind.count) break;
    }
  }

  if (forget !== undefined) await consumer.deleteOffset(forget); // await consumer.DeleteOffsetAsync(partitionId);
}
