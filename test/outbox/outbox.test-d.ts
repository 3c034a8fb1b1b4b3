// Type-level tests of the outbox writers: generic over the channel's message union, so only that
// channel's contract messages (never domain events, never another channel's messages) go in.

import type { PostgresOutbox } from '@keiyaku/postgres';
import type { Mapper } from '@keiyaku/runtime';
import type { SqliteOutbox } from '@keiyaku/sqlite';
import type Database from 'better-sqlite3';
import type pg from 'pg';
import { describe, expectTypeOf, it } from 'vitest';
import {
  type BookBorrowed,
  BookIntegrationEvents,
  type BookIntegrationEventsMessage,
  type DueDateReminder,
} from '../../generated/index.js';

declare const sqlite: SqliteOutbox;
declare const postgres: PostgresOutbox;
declare const db: Database.Database;
declare const client: pg.PoolClient;
declare const borrowed: BookBorrowed;
declare const reminder: DueDateReminder;
type DomainEvent = { readonly type: 'BookAdded'; readonly title: string };
declare const mapper: Mapper<DomainEvent, BookIntegrationEventsMessage>;
declare const events: readonly DomainEvent[];

describe('outbox writers', () => {
  it('take the channel’s contract messages and nothing else', () => {
    const books = sqlite.channel(BookIntegrationEvents);
    books.write(db, borrowed);
    // @ts-expect-error a message of another channel
    books.write(db, reminder);
    // @ts-expect-error a domain event is not a contract message
    books.write(db, { type: 'BookAdded', title: 'x' });
    expectTypeOf(books.writeEvents(db, mapper, events, { aggregateId: 'b-1' })).toEqualTypeOf<number>();
    // @ts-expect-error writeEvents needs the aggregate id
    books.writeEvents(db, mapper, events, {});
  });

  it('on PostgreSQL, take the caller’s client and return promises', () => {
    const books = postgres.channel(BookIntegrationEvents, { key: (m) => m.bookId });
    expectTypeOf(books.write(client, borrowed)).toEqualTypeOf<Promise<void>>();
    expectTypeOf(books.writeMany(client, [borrowed, [borrowed, { correlationId: 'c-1' }]])).toEqualTypeOf<Promise<number>>();
    // @ts-expect-error a message of another channel
    void books.write(client, reminder);
  });
});
