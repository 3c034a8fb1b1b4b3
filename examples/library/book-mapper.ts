/**
 * Book domain events → the public `bookIntegrationEvents` contract. Scaffolded by
 * `keiyaku scaffold mapper`, then filled in. Returning null keeps an event internal.
 */
import type { EventMapperContext, Mapper } from '@keiyaku/runtime';
import { BookBorrowed, type BookIntegrationEventsMessage, BookReturned } from '../../generated/index.js';
import type { BookEvent } from './book.js';

const DAY_MS = 24 * 60 * 60 * 1000;

export const bookMapper: Mapper<BookEvent, BookIntegrationEventsMessage> = {
  map(event: BookEvent, context: EventMapperContext): BookIntegrationEventsMessage | null {
    switch (event.type) {
      case 'BookAdded':
        return null; // internal to the library context
      case 'BookBorrowed':
        return BookBorrowed.create({
          bookId: context.aggregateId,
          copyId: event.copyId,
          borrower: { memberId: event.borrowerId, ...(event.borrowerName ? { displayName: event.borrowerName } : {}) },
          borrowedAt: event.at,
          dueAt: new Date(Date.parse(event.at) + event.loanDays * DAY_MS).toISOString(),
          channel: event.via === 'kiosk' ? 'self-service' : event.via,
        });
      case 'BookReturned':
        return BookReturned.create({
          bookId: context.aggregateId,
          copyId: event.copyId,
          memberId: event.borrowerId,
          returnedAt: event.at,
          condition: event.condition,
          ...(event.lateFeeCents ? { lateFee: { amount: event.lateFeeCents / 100, currency: event.currency ?? 'EUR' } } : {}),
        });
      case 'BookLost':
        return null; // handled inside the library context
      default: {
        const unhandled: never = event;
        throw new Error(`no mapping for ${JSON.stringify(unhandled)}`);
      }
    }
  },
};
