// Type-level tests of contract headers from mappers and on the Iggy channel publisher: the headers
// a message is given are its own headers schema's (test/fixtures/tenant-headers requires
// `tenantId`), a message whose schema requires a header cannot be returned without it, and a
// plain Mapper still fits wherever an EventMapper is taken on a channel without required headers.

import type { IggyChannelPublisher } from '@keiyaku/iggy';
import type { PostgresOutbox } from '@keiyaku/postgres';
import { type EventMapper, type Mapped, type Mapper, type MessageWithHeaders, withHeaders } from '@keiyaku/runtime';
import type { SqliteOutbox } from '@keiyaku/sqlite';
import type Database from 'better-sqlite3';
import type pg from 'pg';
import { describe, expectTypeOf, it } from 'vitest';
import { BookIntegrationEvents, type BookIntegrationEventsMessage } from '../../generated/index.js';
import {
  type ParcelDelivered,
  ParcelEvents,
  type ParcelEventsMessage,
  type ParcelScanned,
} from '../fixtures/tenant-headers/expected/index.js';

declare const sqlite: SqliteOutbox;
declare const postgres: PostgresOutbox;
declare const db: Database.Database;
declare const client: pg.PoolClient;
declare const scanned: ParcelScanned;
declare const delivered: ParcelDelivered;
type ParcelEvent = { readonly kind: 'scanned'; readonly tenant: string };
declare const events: readonly ParcelEvent[];

describe('withHeaders', () => {
  it('takes the message’s own contract headers, required ones included', () => {
    expectTypeOf(withHeaders(scanned, { tenantId: 'acme', priority: 3 })).toEqualTypeOf<MessageWithHeaders<ParcelScanned>>();
    expectTypeOf(withHeaders(scanned, { tenantId: 'acme' }).message).toEqualTypeOf<ParcelScanned>();
    // @ts-expect-error tenantId is required by the headers schema
    withHeaders(scanned, { priority: 3 });
    // @ts-expect-error priority is a number in the headers schema
    withHeaders(delivered, { tenantId: 'acme', priority: 'high' });
  });

  it('is what an EventMapper may return beside a message or null', () => {
    const mapper: EventMapper<ParcelEvent, ParcelEventsMessage> = {
      map: (event) => withHeaders(scanned, { tenantId: event.tenant }),
    };
    expectTypeOf(mapper.map).returns.toEqualTypeOf<Mapped<ParcelEventsMessage>>();
    // @ts-expect-error a domain event is neither a message nor a message with headers
    const wrong: EventMapper<ParcelEvent, ParcelEventsMessage> = { map: (event) => ({ message: event, headers: { tenantId: 'a' } }) };
    void wrong;
  });

  it('a message whose headers schema requires a header is refused without its headers', () => {
    // @ts-expect-error ParcelScanned requires tenantId: return withHeaders(message, { tenantId })
    const bare: EventMapper<ParcelEvent, ParcelEventsMessage> = { map: () => scanned };
    void bare;
    expectTypeOf<Mapped<ParcelEventsMessage>>().toEqualTypeOf<MessageWithHeaders<ParcelEventsMessage> | null>();
    // Optional headers only (the repo's contract): a bare message is fine.
    expectTypeOf<Mapped<BookIntegrationEventsMessage>>().toEqualTypeOf<
      BookIntegrationEventsMessage | MessageWithHeaders<BookIntegrationEventsMessage> | null
    >();
  });
});

describe('outbox writers and the Iggy channel publisher with contract headers', () => {
  it('writeEvents takes an EventMapper, or a plain Mapper where no header is required; write takes the message’s typed headers', () => {
    const parcels = sqlite.channel(ParcelEvents);
    const withTenant: EventMapper<ParcelEvent, ParcelEventsMessage> = { map: (event) => withHeaders(scanned, { tenantId: event.tenant }) };
    expectTypeOf(parcels.writeEvents(db, withTenant, events, { aggregateId: 'P-1' })).toEqualTypeOf<number>();
    const plainParcels: Mapper<ParcelEvent, ParcelEventsMessage> = { map: () => null };
    // @ts-expect-error a plain Mapper of a channel whose messages require headers cannot give them
    parcels.writeEvents(db, plainParcels, events, { aggregateId: 'P-1' });
    const plainBooks: Mapper<ParcelEvent, BookIntegrationEventsMessage> = { map: () => null };
    expectTypeOf(sqlite.channel(BookIntegrationEvents).writeEvents(db, plainBooks, events, { aggregateId: 'b-1' })).toEqualTypeOf<number>();
    parcels.write(db, scanned, { headers: { tenantId: 'acme', priority: 1 } });
    // @ts-expect-error priority is a number in the headers schema
    parcels.write(db, scanned, { headers: { tenantId: 'acme', priority: '1' } });
    const onPostgres = postgres.channel(ParcelEvents);
    expectTypeOf(onPostgres.writeEvents(client, withTenant, events, { aggregateId: 'P-1' })).toEqualTypeOf<Promise<number>>();
    // @ts-expect-error tenantId is required by the headers schema
    void onPostgres.write(client, delivered, { headers: {} });
  });

  it('the generated Iggy publisher types the headers of what it sends', () => {
    const publisher = {} as IggyChannelPublisher<ParcelEventsMessage>;
    void publisher.send(scanned, { headers: { tenantId: 'acme' } });
    // @ts-expect-error tenantId is required by the headers schema
    void publisher.send(scanned, { headers: { priority: 2 } });
  });
});
