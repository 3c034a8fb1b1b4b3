// Domain events and public contracts are apart by construction: the compiler refuses to
// publish a domain object, or to use a domain event type as a mapper's target.

import { createMessaging, type EventMapperContext, EventRelay, InMemoryEventStore, type Mapper, type Publisher } from '@keiyaku/runtime';
import type { MessageContext } from '@keiyaku/runtime/codegen-v1';
import { InMemoryTransport } from '@keiyaku/runtime/memory';
import { describe, expectTypeOf, it } from 'vitest';
import type { BookEvent } from '../../examples/library/book.js';
import { bookMapper } from '../../examples/library/book-mapper.js';
import { BookBorrowed, BookIntegrationEvents, type BookIntegrationEventsMessage, MemberNotifications } from '../../generated/index.js';

declare const publisher: Publisher<BookIntegrationEventsMessage>;
declare const domainEvent: Extract<BookEvent, { type: 'BookBorrowed' }>;
declare const context: EventMapperContext;

describe('domain events stay private', () => {
  it('a publisher takes contract messages only', () => {
    // @ts-expect-error a domain event is not a contract message
    void publisher.publish(domainEvent);
    // @ts-expect-error neither is an object literal shaped like the contract
    void publisher.publish({ bookId: 'b', copyId: 'c', borrower: { memberId: 'M-1' }, borrowedAt: '', dueAt: '', channel: 'desk' });
    void publisher.publish(
      BookBorrowed.create({ bookId: 'b', copyId: 'c', borrower: { memberId: 'M-1' }, borrowedAt: '', dueAt: '', channel: 'desk' }),
    );
  });

  it('a mapper cannot target a domain event type', () => {
    // @ts-expect-error the target of a mapper must be a contract message
    const leaky: Mapper<BookEvent, BookEvent> = { map: (event) => event };
    void leaky;
    // @ts-expect-error returning the domain event from a contract mapper does not compile
    const wrong: Mapper<BookEvent, BookIntegrationEventsMessage> = { map: (event) => event };
    void wrong;
    expectTypeOf(bookMapper.map(domainEvent, context)).toEqualTypeOf<BookIntegrationEventsMessage | null>();
  });

  it('a producer wires a mapper to a publisher of the same contract only', () => {
    const messaging = createMessaging({ transport: new InMemoryTransport() });
    const events = new InMemoryEventStore<BookEvent>();
    new EventRelay({ name: 'library', source: events, mapper: bookMapper, publisher: messaging.publisher(BookIntegrationEvents) });
    const reminders = messaging.publisher(MemberNotifications, { parameters: { memberId: 'M-1' } });
    // @ts-expect-error a book mapper cannot feed the member-notifications channel
    new EventRelay({ name: 'wrong', source: events, mapper: bookMapper, publisher: reminders });
  });

  it('handlers receive the channel union and a typed context', () => {
    const messaging = createMessaging({ transport: new InMemoryTransport() });
    messaging.subscribe(BookIntegrationEvents, {
      groupId: 'g',
      handle(message, ctx) {
        expectTypeOf(message).toEqualTypeOf<BookIntegrationEventsMessage>();
        expectTypeOf(ctx).toEqualTypeOf<MessageContext<'BookBorrowed' | 'BookReturned'>>();
      },
    });
    // @ts-expect-error accepts names types of this channel only
    messaging.subscribe(BookIntegrationEvents, { groupId: 'h', handle() {} }, { accepts: ['DueDateReminder'] });
  });
});
