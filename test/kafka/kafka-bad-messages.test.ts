// On a real broker: what a bad message gets and what an operator sees. Undecodable bytes are
// parked at once under a dead-letter policy (not after the ~13 minutes of the default schedule),
// their error naming every problem; a type the channel does not declare is skipped and logged
// once; the parked record, health and metrics name the Kafka topic (namespace applied) beside the
// contract address.
import { createMessaging, InMemoryDeadLetterStore, type Logger, type Messaging } from '@keiyaku/runtime';
import { serveOperations } from '@keiyaku/runtime/ops';
import { afterEach, describe, expect, it } from 'vitest';
import { BookBorrowed, BookIntegrationEvents } from '../../generated/index.js';
import { waitFor } from '../helpers.js';
import { kafkaBrokers, kafkaSkipReason, testTransport } from './kafka-env.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const valid = {
  bookId: '6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b',
  copyId: 'C-1',
  borrower: { memberId: 'M-1001' },
  borrowedAt: '2026-11-02T10:15:00Z',
  dueAt: '2026-11-23T10:15:00Z',
  channel: 'desk' as const,
};

(kafkaBrokers === '' ? describe.skip : describe)(`bad messages on Kafka${kafkaSkipReason ? ` (${kafkaSkipReason})` : ''}`, () => {
  it('parks undecodable bytes at once naming every problem, skips an undeclared type logging it once, and shows the topic', async () => {
    const transport = testTransport();
    const deadLetters = new InMemoryDeadLetterStore();
    const warnings: { message: string; fields: Readonly<Record<string, unknown>> }[] = [];
    const logger: Logger = { debug() {}, info() {}, warn: (message, fields = {}) => void warnings.push({ message, fields }), error() {} };
    const host: Messaging = createMessaging({ logger, transport, deadLetters });
    const handled: string[] = [];
    const subscription = host.subscribe(
      BookIntegrationEvents,
      { groupId: 'inventory.bad-messages', handle: (m) => void handled.push(m.copyId) },
      { deadLetter: { maxRetries: 5 } }, // the default schedule: a failing handler would be retried for ~13 minutes
    );
    const publisher = host.publisher(BookIntegrationEvents, { key: () => 'one-key', lingerMs: 0 });
    const ops = await serveOperations(host, { port: 0 });
    cleanups.push(async () => {
      await ops.close();
      await host.stop();
    });
    await host.start();
    const address = BookIntegrationEvents.address;
    const topic = transport.topic(address);
    expect(topic).toMatch(/^t[0-9a-f]{8}\./);
    const producer = transport.producer();
    const headers = (id: string, type: string) => ({ ce_specversion: '1.0', ce_id: id, ce_type: type });
    await producer.send([
      {
        address,
        key: 'one-key',
        value: new TextEncoder().encode(JSON.stringify({ ...valid, copyId: '', dueAt: 'soon', channel: 'pigeon' })),
        headers: headers('bad-1', 'BookBorrowed'),
      },
      { address, key: 'one-key', value: new Uint8Array([0xff]), headers: headers('future-1', 'ShelfMoved') },
      { address, key: 'one-key', value: new Uint8Array([0xfe]), headers: headers('future-2', 'ShelfMoved') },
    ]);
    await producer.close();
    await publisher.publish(BookBorrowed.create({ ...valid, copyId: 'C-after' }));
    await waitFor(() => handled.length === 1, 'the valid record after the bad ones is handled', 60_000);
    expect(handled).toEqual(['C-after']);

    const [parked, ...rest] = await deadLetters.list();
    expect(rest).toEqual([]);
    expect(parked).toMatchObject({ address, topic, type: 'BookBorrowed', attempts: 1, error: { name: 'ContractDecodeError' } });
    expect(parked!.error.message).toContain('$.copyId');
    expect(parked!.error.message).toContain('at $.dueAt: must match format "date-time"');
    expect(parked!.error.message).toContain('at $.channel: must be equal to one of the allowed values: "desk", "self-service", "app"');
    expect(subscription.health()).toMatchObject({ topic, parked: 1, skipped: 2, processed: 1, stalls: [] });
    expect(warnings.filter((w) => w.message.includes('does not declare')).map((w) => w.fields['type'])).toEqual(['ShelfMoved']);

    const metrics = await (await fetch(`${ops.url}/metrics`)).text();
    expect(metrics).toMatch(
      new RegExp(
        `keiyaku_messages_parked_total\\{channel="bookIntegrationEvents",address="${address}",topic="${topic}",group="inventory.bad-messages",partition="\\d+"\\} 1\\n`,
      ),
    );
    const page = await (await fetch(`${ops.url}/`)).text();
    expect(page).toContain(`· topic <code data-topic>${topic}</code>`);
  });
});
