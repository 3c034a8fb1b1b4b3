// MessageProducer, the event relay's name before it was renamed (Kafka has producers), and the
// outbox names the adapter packages re-exported: deprecated aliases of the very same class,
// values and types, so code written against the old names compiles and behaves the same.
import {
  createMessaging,
  EventRelay,
  type EventRelayOptions,
  type EventRelayStatus,
  InMemoryEventStore,
  MessageProducer,
  type MessageProducerOptions,
  type MessageProducerStatus,
  OUTBOX_SCHEMA_VERSION,
  OutboxDispatcher,
  OutboxEncoder,
  OutboxError,
  OutboxLockedError,
  type OutboxRow,
  silentLogger,
} from '@keiyaku/runtime';
import { InMemoryTransport } from '@keiyaku/runtime/memory';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { BookEvent } from '../../examples/library/book.js';
import { bookMapper } from '../../examples/library/book-mapper.js';
import { BookIntegrationEvents, type BookIntegrationEventsMessage } from '../../generated/index.js';

describe('MessageProducer (deprecated alias of EventRelay)', () => {
  it('is the same class: constructs, relays, and is an EventRelay', async () => {
    expect(MessageProducer).toBe(EventRelay);
    const transport = new InMemoryTransport();
    const host = createMessaging({ logger: silentLogger, transport });
    const events = new InMemoryEventStore<BookEvent>();
    const options: MessageProducerOptions<BookEvent, BookIntegrationEventsMessage> = {
      name: 'library',
      logger: silentLogger,
      source: events,
      mapper: bookMapper,
      publisher: host.publisher(BookIntegrationEvents),
    };
    const producer: MessageProducer<BookEvent, BookIntegrationEventsMessage> = new MessageProducer(options);
    expect(producer).toBeInstanceOf(EventRelay);
    producer.start();
    events.append('6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b', [
      { type: 'BookBorrowed', copyId: 'C-1', borrowerId: 'M-1001', at: '2026-11-02T10:15:00.000Z', loanDays: 21, via: 'kiosk' },
    ]);
    const published = await transport.drain(BookIntegrationEvents, 1);
    expect(published.map((p) => p.type)).toEqual(['BookBorrowed']);
    const status: MessageProducerStatus = producer.status();
    expect(status.name).toBe('library');
    await producer.stop();
    await host.stop();
  });

  it('its types are the EventRelay types', () => {
    expectTypeOf<MessageProducer<BookEvent, BookIntegrationEventsMessage>>().toEqualTypeOf<
      EventRelay<BookEvent, BookIntegrationEventsMessage>
    >();
    expectTypeOf<MessageProducerOptions<BookEvent, BookIntegrationEventsMessage>>().toEqualTypeOf<
      EventRelayOptions<BookEvent, BookIntegrationEventsMessage>
    >();
    expectTypeOf<MessageProducerStatus>().toEqualTypeOf<EventRelayStatus>();
  });
});

describe('outbox names re-exported by @keiyaku/sqlite and @keiyaku/postgres (deprecated)', () => {
  it('are the runtime’s own values and types', async () => {
    for (const adapter of [await import('@keiyaku/sqlite'), await import('@keiyaku/postgres')]) {
      expect(adapter.OUTBOX_SCHEMA_VERSION).toBe(OUTBOX_SCHEMA_VERSION);
      expect(adapter.OutboxDispatcher).toBe(OutboxDispatcher);
      expect(adapter.OutboxEncoder).toBe(OutboxEncoder);
      expect(adapter.OutboxError).toBe(OutboxError);
      expect(adapter.OutboxLockedError).toBe(OutboxLockedError);
    }
    expectTypeOf<import('@keiyaku/sqlite').OutboxRow>().toEqualTypeOf<OutboxRow>();
    expectTypeOf<import('@keiyaku/postgres').OutboxError>().toEqualTypeOf<OutboxError>();
  });
});
