/**
 * The "Consuming with rented buffers" example of the Iggy C# SDK guide, in TypeScript
 * (docs/iggy.md): `receiveRented()` yields messages whose payloads are views into the poll
 * reply, valid until the message is disposed. `for await (using message of …)` disposes each
 * one at the end of its iteration (C#: `using (message) { … }`); reading it afterwards throws
 * `ObjectDisposedError`, so copy out what you keep (`message.payload.slice()`).
 */
import { Consumer, Identifier, type IggyClient, IggyConsumerBuilder, PollingStrategy, type RentedReceivedMessage } from '@keiyaku/iggy';

const utf8 = new TextDecoder();

/** `sink` gets each line and the message it was read from (the test reads the message again after it was disposed). */
export async function consumeRented(
  client: IggyClient,
  count: number,
  sink: (line: string, message: RentedReceivedMessage) => void,
): Promise<void> {
  await using consumer = IggyConsumerBuilder.create(client, Identifier.string('my-stream'), Identifier.string('my-topic'), Consumer.new(1))
    .withPollingStrategy(PollingStrategy.next())
    .withAutoCommit('after-receive')
    .build();
  await consumer.init();

  let received = 0;
  for await (using message of consumer.receiveRented()) {
    // await foreach (var message in consumer.ReceiveRentedAsync()) { using (message) { … } }
    const text = utf8.decode(message.payload); // Encoding.UTF8.GetString(message.Message.Payload.Span)
    sink(`Offset ${message.offset}: ${text}`, message); // Console.WriteLine($"Offset {message.CurrentOffset}: {text}");
    if (++received === count) break;
  }
}
