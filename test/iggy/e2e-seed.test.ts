// The SDK guide's examples (examples/iggy-sdk) against a real iggy-server (see e2e-env.ts). They
// use the guide's fixed stream names, which outlive a run, so the checks are relative: what a run
// adds, and what a caught-up consumer reads next. Skipped with the reason printed without a server.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consumeMessages } from '../../examples/iggy-sdk/consumer.js';
import { publishMessages } from '../../examples/iggy-sdk/publisher.js';
import { publishRentedBatch, sendRentedBatchDirectly } from '../../examples/iggy-sdk/rented-batch.js';
import { publishOrdersAsJson } from '../../examples/iggy-sdk/typed-publisher-json.js';
import type { IggyClient } from '../../runtime/iggy/client.js';
import { IggyConsumerBuilder } from '../../runtime/iggy/consumer.js';
import { connect, skipReason, text } from './e2e-env.js';

if (skipReason) process.stdout.write(`\nIggy SDK guide examples against a server skipped: ${skipReason}\n`);

(skipReason ? describe.skip : describe)(
  `the SDK guide's examples against iggy-server${skipReason ? ` (skipped: ${skipReason})` : ''}`,
  () => {
    let client: IggyClient;
    const messagesIn = async (stream: string, topic: string): Promise<bigint> =>
      (await client.getTopic(stream, topic))!.partitions.reduce((sum, p) => sum + p.messagesCount, 0n);

    beforeAll(async () => {
      client = await connect();
      for (const [stream, topic] of [
        ['my-stream', 'my-topic'],
        ['orders-stream', 'orders-topic'],
      ] as const) {
        if ((await client.getStream(stream)) === undefined) await client.createStream(stream);
        if ((await client.getTopic(stream, topic)) === undefined) await client.createTopic(stream, topic, 1);
      }
    });
    afterAll(async () => {
      await client?.close();
    });

    it('the publisher example sends its two messages, and the consumer example (caught up, server commits) reads them next', async () => {
      // Catch consumer 1 up with what earlier runs left (server-side commit on poll, as in the example).
      for (;;) {
        const reply = await client.pollMessages({
          consumer: { kind: 'consumer', id: 1 },
          stream: 'my-stream',
          topic: 'my-topic',
          partition: 0,
          strategy: { kind: 'next' },
          count: 1_000,
          autoCommit: true,
        });
        if (reply.messages.length === 0) break;
      }
      const before = await messagesIn('my-stream', 'my-topic');
      await publishMessages(client);
      expect(await messagesIn('my-stream', 'my-topic')).toBe(before + 2n);
      const lines: string[] = [];
      await consumeMessages(client, 2, (line) => lines.push(line));
      expect(lines).toEqual([`Offset ${before}: Message 1`, `Offset ${before + 1n}: Message 2`]);
    });

    it('the rented-batch examples send every event, through the publisher and directly', async () => {
      const before = await messagesIn('my-stream', 'my-topic');
      const events = Array.from({ length: 5 }, (_, i) => ({ orderId: randomUUID(), line: i }));
      const viaPublisher = await publishRentedBatch(client, events);
      const direct = await sendRentedBatchDirectly(client, events);
      expect(await messagesIn('my-stream', 'my-topic')).toBe(before + 10n);
      expect(() => viaPublisher.messages).toThrow();
      expect(() => direct.messages).toThrow();
    });

    it('the typed JSON publisher example writes each order as JSON', async () => {
      const orders = [
        { orderId: randomUUID(), total: 12.5 },
        { orderId: randomUUID(), total: 99 },
      ];
      const before = await messagesIn('orders-stream', 'orders-topic');
      await publishOrdersAsJson(client, orders);
      expect(await messagesIn('orders-stream', 'orders-topic')).toBe(before + 2n);
      const reader = IggyConsumerBuilder.create(client, 'orders-stream', 'orders-topic', { kind: 'consumer', id: randomUUID() })
        .withPollingStrategy({ kind: 'offset', value: before })
        .withAutoCommit('disabled')
        .build();
      await reader.init();
      const read: unknown[] = [];
      for await (const message of reader.receive()) {
        read.push(JSON.parse(text(message.payload)));
        if (read.length === 2) break;
      }
      expect(read).toEqual(orders);
    });
  },
);
