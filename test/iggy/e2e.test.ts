// End to end against a real iggy-server (protocol 0.11), when IGGY_TCP_ADDRESS is set
// (credentials IGGY_USERNAME / IGGY_PASSWORD, default iggy / iggy). `npm run test:iggy` runs
// these alone. Without an address they are skipped, and the reason is printed.
import { randomUUID } from 'node:crypto';
import { IggyClient } from 'keiyaku/iggy';
import { describe, expect, it } from 'vitest';
import { IggyConsumerBuilder } from '../../runtime/iggy/consumer.js';
import { IggyPublisherBuilder } from '../../runtime/iggy/publisher.js';

const address = process.env['IGGY_TCP_ADDRESS'];
const reason = address ? '' : 'IGGY_TCP_ADDRESS is not set (no iggy-server on any registry this project reaches)';
if (reason) process.stdout.write(`\nIggy end-to-end tests skipped: ${reason}\n`);

async function connect(): Promise<IggyClient> {
  const [host, port] = (address ?? '127.0.0.1:8090').split(':');
  const client = new IggyClient({
    host: host!,
    port: Number(port ?? 8090),
    username: process.env['IGGY_USERNAME'] ?? 'iggy',
    password: process.env['IGGY_PASSWORD'] ?? 'iggy',
  });
  await client.connect();
  return client;
}

(reason ? describe.skip : describe)(`Iggy end to end${reason ? ` (skipped: ${reason})` : ''}`, () => {
  const stream = `keiyaku-e2e-${randomUUID().slice(0, 8)}`;

  it('publishes and consumes through a real server', async () => {
    const client = await connect();
    const publisher = IggyPublisherBuilder.create(client, stream, 'orders')
      .createIfMissing({ partitions: 2 })
      .withBackgroundSending({ batchSize: 10 })
      .build();
    await publisher.init();
    await publisher.sendMessages(Array.from({ length: 20 }, (_, i) => ({ payload: new TextEncoder().encode(`m${i}`) })));
    await publisher.waitUntilAllSends();
    const consumer = IggyConsumerBuilder.create(client, stream, 'orders', { kind: 'consumer', id: 'e2e' })
      .withPollingStrategy({ kind: 'first' })
      .build();
    await consumer.init();
    const seen = new Set<string>();
    for await (const message of consumer.receive()) {
      seen.add(new TextDecoder().decode(message.payload));
      if (seen.size === 20) break;
    }
    expect(seen.size).toBe(20);
    await client.close();
  }, 60_000);

  it('keeps stored offsets across a client restart', async () => {
    const first = await connect();
    const a = IggyConsumerBuilder.create(first, stream, 'orders', { kind: 'consumer', id: 'restart' })
      .withPartitions([0])
      .withPollingStrategy({ kind: 'first' })
      .withBatchSize(1)
      .build();
    await a.init();
    const before: bigint[] = [];
    for await (const m of a.receive()) {
      before.push(m.offset);
      if (before.length === 3) break;
    }
    await first.close();
    const second = await connect();
    const b = IggyConsumerBuilder.create(second, stream, 'orders', { kind: 'consumer', id: 'restart' })
      .withPartitions([0])
      .withBatchSize(1)
      .build();
    await b.init();
    for await (const m of b.receive()) {
      expect(m.offset).toBe(before[2]); // the last one handled before the stop was not yet stored
      break;
    }
    await second.close();
  }, 60_000);
});
