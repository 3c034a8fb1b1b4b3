// The operations server over a real Kafka broker: positions and counters in /metrics from the
// broker's watermarks and the group's commits; and a transport that cannot reach its brokers is
// cut off in health and on /readyz, with the rebuilds it makes counted.
import { createKafkaTransport } from '@keiyaku/kafka';
import { createMessaging, silentLogger } from '@keiyaku/runtime';
import { serveOperations } from '@keiyaku/runtime/ops';
import { describe, expect, it } from 'vitest';
import { BookIntegrationEvents } from '../../generated/index.js';
import { borrowed } from '../books.js';
import { waitFor } from '../helpers.js';
import { kafkaBrokers, kafkaDriver, kafkaSkipReason, testTransport } from './kafka-env.js';

(kafkaBrokers === '' ? describe.skip : describe)(`operations over Kafka${kafkaSkipReason ? ` (${kafkaSkipReason})` : ''}`, () => {
  it('reports lag, committed offsets and high watermarks from the broker, and the transport as connected', async () => {
    const transport = testTransport();
    const host = createMessaging({ logger: silentLogger, transport, shutdownBudgetMs: 5_000 });
    const publisher = host.publisher(BookIntegrationEvents, { key: (m) => m.bookId, lingerMs: 0 });
    const handled: string[] = [];
    host.subscribe(BookIntegrationEvents, { groupId: 'inventory.book-availability', handle: (m) => void handled.push(m.copyId) });
    const server = await serveOperations(host, { port: 0 });
    try {
      await host.start();
      await publisher.publishMany([borrowed('C-1'), borrowed('C-2'), borrowed('C-3')]);
      await waitFor(() => handled.length === 3, 'all three handled', 30_000);
      await waitFor(
        () => host.health().subscriptions[0]!.positions.some((p) => p.committed === '3' && p.highWatermark === '3' && p.lag === 0),
        'the group committed all three',
        30_000,
      );
      const ready = await fetch(`${server.url}/readyz`);
      expect(ready.status).toBe(200);
      const body = (await ready.json()) as { transport: unknown };
      expect(body.transport).toMatchObject({ name: 'kafka', ready: true, details: { rebuilds: 0 } });
      const metrics = await (await fetch(`${server.url}/metrics`)).text();
      expect(metrics).toMatch(/keiyaku_partition_high_watermark\{[^}]*group="inventory\.book-availability"[^}]*\} 3\n/);
      expect(metrics).toMatch(/keiyaku_consumer_committed_offset\{[^}]*group="inventory\.book-availability"[^}]*\} 3\n/);
      expect(metrics).toMatch(/keiyaku_messages_handled_total\{[^}]*\} 3\n/);
      expect(metrics).toContain('keiyaku_transport_ready{transport="kafka"} 1\n');
      expect(metrics).toContain('keiyaku_transport_rebuilds_total{transport="kafka"} 0\n');
    } finally {
      await server.close();
      await host.stop();
      await transport.close();
    }
  }, 90_000);

  it('is cut off (not ready, with the reason) while no broker answers, and rebuilds its client in place', async () => {
    const transport = createKafkaTransport({
      driver: kafkaDriver,
      brokers: ['127.0.0.1:1'], // nothing listens there
      logger: silentLogger,
      namespace: 'cutoff',
      rebuildAfterMs: 1_000,
      maxRebuildIntervalMs: 2_000,
      retry: { retries: 0, initialRetryTime: 100, maxRetryTime: 200 },
      client: { connectionTimeout: 300, requestTimeout: 500 },
      maxWaitTimeInMs: 100,
    });
    const host = createMessaging({ logger: silentLogger, transport, shutdownBudgetMs: 3_000 });
    host.subscribe(BookIntegrationEvents, { groupId: 'inventory.book-availability', handle: () => {} });
    const server = await serveOperations(host, { port: 0 });
    try {
      // start() provisions the topic first, which fails without a broker: start the consumer's side only.
      await host.start().catch(() => undefined);
      const consumer = transport.consumer({ address: 'library.book-integration-events', groupId: 'probe', batchSize: 10 });
      await waitFor(() => transport.health().ready === false, 'the transport knows it is cut off', 20_000);
      const health = transport.health();
      expect(health.reason).toMatch(/^consumer of group cutoff\.probe cut off from the brokers since \d{4}-\d\d-\d\dT/);
      const ready = await fetch(`${server.url}/readyz`);
      expect(ready.status).toBe(503);
      expect(((await ready.json()) as { reasons: string[] }).reasons).toContainEqual(
        expect.stringMatching(/^transport kafka is cut off: consumer of group cutoff\.probe cut off/),
      );
      await waitFor(() => ((transport.health().details?.['rebuilds'] as number) ?? 0) >= 1, 'a rebuild happened', 20_000);
      const metrics = await (await fetch(`${server.url}/metrics`)).text();
      expect(metrics).toContain('keiyaku_transport_ready{transport="kafka"} 0\n');
      expect(metrics).toMatch(/keiyaku_transport_rebuilds_total\{transport="kafka"\} [1-9]/);
      await consumer.close();
    } finally {
      await server.close();
      await host.stop();
      await transport.close();
    }
  }, 60_000);
});
