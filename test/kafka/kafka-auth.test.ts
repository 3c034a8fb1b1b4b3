// A credential the broker rejects is not an outage: it faults loudly instead of retrying forever.
import { createMessaging, silentLogger } from '@keiyaku/runtime';
import { describe, expect, it } from 'vitest';
import { BookBorrowed, BookIntegrationEvents } from '../../generated/index.js';
import { waitFor } from '../helpers.js';
import { kafkaBrokers, kafkaSkipReason, testTransport } from './kafka-env.js';

// The broker started by scripts/kafka has a SASL/PLAIN listener on its port + 2.
const saslBroker = kafkaBrokers === '' ? '' : kafkaBrokers.replace(/:(\d+)$/, (_m, port: string) => `:${Number(port) + 2}`);
const reason =
  kafkaSkipReason ||
  (process.env['KAFKA_BROKERS'] && !process.env['KAFKA_SASL_BROKERS'] ? 'an external broker without KAFKA_SASL_BROKERS' : '');
const brokers = process.env['KAFKA_SASL_BROKERS'] ?? saslBroker;

(reason ? describe.skip : describe)(`Kafka authentication${reason ? ` (${reason})` : ''}`, () => {
  it('accepts the right credentials', async () => {
    const transport = testTransport({ brokers: [brokers], sasl: { mechanism: 'plain', username: 'keiyaku', password: 'keiyaku-secret' } });
    const host = createMessaging({ logger: silentLogger, transport });
    let handled = 0;
    host.subscribe(BookIntegrationEvents, { groupId: 'auth.ok', handle: () => void handled++ });
    await host.start();
    await host.publisher(BookIntegrationEvents).publish(
      BookBorrowed.create({
        bookId: '6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b',
        copyId: 'C-1',
        borrower: { memberId: 'M-1001' },
        borrowedAt: '2026-11-02T10:15:00Z',
        dueAt: '2026-11-23T10:15:00Z',
        channel: 'desk',
      }),
    );
    await waitFor(() => handled === 1, 'the message is handled', 30_000);
    await host.stop();
  });

  it('faults loudly on rejected credentials: start fails with a non-retriable error, publishes fail at once', async () => {
    const transport = testTransport({
      brokers: [brokers],
      sasl: { mechanism: 'plain', username: 'keiyaku', password: 'wrong' },
      retry: { retries: 1, initialRetryTime: 100 },
    });
    const host = createMessaging({ logger: silentLogger, transport });
    const subscription = host.subscribe(BookIntegrationEvents, { groupId: 'auth.bad', handle: () => {} });
    await expect(host.start()).rejects.toMatchObject({ name: 'TransportError', retriable: false });
    expect(subscription.health()).toMatchObject({ state: 'failed', ready: false });
    expect(subscription.health().lastError).toMatch(/SASL|[Aa]uthentication/);
    const publishing = host.publisher(BookIntegrationEvents).publish(
      BookBorrowed.create({
        bookId: '6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b',
        copyId: 'C-1',
        borrower: { memberId: 'M-1001' },
        borrowedAt: '2026-11-02T10:15:00Z',
        dueAt: '2026-11-23T10:15:00Z',
        channel: 'desk',
      }),
    );
    await expect(publishing).rejects.toMatchObject({ name: 'PublishError', attempts: 1 });
    await host.stop();
  });
});
