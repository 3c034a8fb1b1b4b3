// What `keiyaku generate` emits for Iggy (generated/iggy.ts), used against the protocol test double (not Iggy).
import { IggyClient } from '@keiyaku/iggy';
import { afterEach, beforeEach, describe, expect, expectTypeOf, it } from 'vitest';
import { BookIntegrationEventsIggy } from '../../generated/iggy.js';
import { BookBorrowed, type BookIntegrationEventsMessage } from '../../generated/index.js';
import { IggyProtocolDouble } from './protocol-double.js';

let server: IggyProtocolDouble;
let client: IggyClient;
beforeEach(async () => {
  server = new IggyProtocolDouble();
  const port = await server.start();
  client = new IggyClient({ host: '127.0.0.1', port, heartbeatMs: 0 });
  await client.connect();
});
afterEach(async () => {
  await client.close();
  await server.stop();
});

describe('generated Iggy binding', () => {
  it('places the channel by its x-iggy binding and round-trips typed messages; a bad payload is a status', async () => {
    expect(BookIntegrationEventsIggy.placement).toEqual({ stream: 'library', topic: 'book-integration-events', partitions: 3 });
    const publisher = BookIntegrationEventsIggy.publisher(client, (b) => b.withPartitioning({ kind: 'partition', id: 0 }));
    await publisher.init();
    await publisher.send(
      BookBorrowed.create({
        bookId: '6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b',
        copyId: 'C-1',
        borrower: { memberId: 'M-1001' },
        borrowedAt: '2026-11-02T10:15:00Z',
        dueAt: '2026-11-23T10:15:00Z',
        channel: 'desk',
      }),
    );
    await client.sendMessages('library', 'book-integration-events', { kind: 'partition', id: 0 }, [
      { originTimestamp: 1n, payload: new TextEncoder().encode('{"bookId":1}') },
    ]);
    const consumer = BookIntegrationEventsIggy.consumer(client, { kind: 'consumer', id: 'inventory' }, (b) =>
      b.withPartitions([0]).withPollingStrategy({ kind: 'first' }).withPollInterval(5),
    );
    await consumer.init();
    const results: string[] = [];
    for await (const { result } of BookIntegrationEventsIggy.receive(consumer)) {
      if (result.ok) {
        expectTypeOf(result.value).toEqualTypeOf<BookIntegrationEventsMessage>();
        results.push(`ok ${BookIntegrationEventsIggy.channel.typeOf(result.value)} ${result.value.copyId}`);
      } else results.push(`failed ${result.error.reason}`);
      if (results.length === 2) break;
    }
    expect(results).toEqual(['ok BookBorrowed C-1', 'failed unknown_type']);
  });
});
