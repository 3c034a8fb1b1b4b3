// Type-level tests: contract values are branded, so only generated factories and
// decoders produce them. Checked by tsc through vitest's typecheck mode.
import type { DecodeResult, MessageContext } from '@keiyaku/runtime/codegen-v1';
import { describe, expectTypeOf, it } from 'vitest';
import {
  BookBorrowed,
  type BookBorrowedPayload,
  type BookIntegrationEventsHandler,
  type BookIntegrationEventsMessage,
  type BookIntegrationEventsMessageType,
  BookReturned,
  dispatchBookIntegrationEvents,
  MemberNotifications,
} from '../generated/index.js';

declare const payload: BookBorrowedPayload;
declare function publish(message: BookIntegrationEventsMessage): void;

describe('contract messages are branded', () => {
  it('refuses an object literal shaped like a domain event', () => {
    const domainEvent = {
      bookId: '6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b',
      copyId: 'C-1',
      borrower: { memberId: 'M-1001' },
      borrowedAt: '2026-11-02T10:15:00Z',
      dueAt: '2026-11-23T10:15:00Z',
      channel: 'desk' as const,
    };
    // @ts-expect-error a plain object is not a contract message
    publish(domainEvent);
    // @ts-expect-error neither is a payload-typed value
    publish(payload);
    publish(BookBorrowed.create(domainEvent));
  });

  it('gives factories and decoders the branded type', () => {
    expectTypeOf(BookBorrowed.create(payload)).toEqualTypeOf<BookBorrowed>();
    expectTypeOf(BookBorrowed.decode(new Uint8Array())).toEqualTypeOf<DecodeResult<BookBorrowed>>();
    expectTypeOf<BookBorrowed>().toMatchTypeOf<BookIntegrationEventsMessage>();
    expectTypeOf<BookIntegrationEventsMessageType>().toEqualTypeOf<'BookBorrowed' | 'BookReturned'>();
  });

  it('keeps payloads read-only', () => {
    const message = BookBorrowed.create(payload);
    // @ts-expect-error contract messages are read-only
    message.copyId = 'C-2';
    // @ts-expect-error nested objects too
    message.borrower.memberId = 'M-2';
    expectTypeOf(message.channel).toEqualTypeOf<'desk' | 'self-service' | 'app'>();
    expectTypeOf(message.renewals).toEqualTypeOf<number | undefined>();
    expectTypeOf(message.note).toEqualTypeOf<string | null | undefined>();
  });

  it('checks create() input against the payload type', () => {
    // @ts-expect-error enum values are literal unions
    BookBorrowed.create({ ...payload, channel: 'carrier-pigeon' });
    // @ts-expect-error required fields are required
    BookReturned.create({ bookId: 'x' });
  });
});

describe('dispatch and handlers', () => {
  it('requires every case', () => {
    const message = BookBorrowed.create(payload);
    const n = dispatchBookIntegrationEvents(message, { BookBorrowed: () => 1, BookReturned: () => 2 });
    expectTypeOf(n).toEqualTypeOf<number>();
    // @ts-expect-error BookReturned is missing: the compiler checks exhaustiveness
    dispatchBookIntegrationEvents(message, { BookBorrowed: () => 1 });
    dispatchBookIntegrationEvents(message, {
      BookBorrowed: (m) => expectTypeOf(m).toEqualTypeOf<BookBorrowed>(),
      BookReturned: (m) => expectTypeOf(m).toEqualTypeOf<BookReturned>(),
    });
  });

  it('types handler implementations', () => {
    const handler: BookIntegrationEventsHandler = {
      groupId: 'inventory.book-availability',
      accepts: ['BookReturned'],
      handle(message, context) {
        expectTypeOf(message).toEqualTypeOf<BookIntegrationEventsMessage>();
        expectTypeOf(context).toEqualTypeOf<MessageContext<'BookBorrowed' | 'BookReturned'>>();
      },
    };
    expectTypeOf(handler.groupId).toEqualTypeOf<string>();
    // @ts-expect-error accepts only names message types of the channel
    const wrong: BookIntegrationEventsHandler = { groupId: 'g', accepts: ['DueDateReminder'], handle() {} };
    void wrong;
  });

  it('makes parameterised addresses functions of their parameters', () => {
    expectTypeOf(MemberNotifications.address).parameter(0).toEqualTypeOf<{ readonly memberId: string }>();
    // @ts-expect-error memberId is required
    MemberNotifications.address({});
  });
});
