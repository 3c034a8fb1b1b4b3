// Contract headers on every path that starts from domain events: a mapper returns
// `withHeaders(message, headers)`, and the outbox writers (SQLite, PostgreSQL) and the message
// producer carry those headers, validated by the codec, to the consumer. The contract
// (test/fixtures/tenant-headers) requires a `tenantId` header on every message.
import { PostgresOutbox } from '@keiyaku/postgres';
import {
  createMessaging,
  type EventMapper,
  type EventMapperContext,
  EventRelay,
  InMemoryDeadLetterStore,
  InMemoryEventStore,
  type Mapped,
  MapperResultError,
  type Messaging,
  silentLogger,
  withHeaders,
} from '@keiyaku/runtime';
import { ContractValidationError } from '@keiyaku/runtime/codegen-v1';
import { InMemoryTransport } from '@keiyaku/runtime/memory';
import { SqliteOutbox } from '@keiyaku/sqlite';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ParcelDelivered, ParcelEvents, type ParcelEventsMessage, ParcelScanned } from '../fixtures/tenant-headers/expected/index.js';
import { waitFor } from '../helpers.js';
import { kafkaBrokers, kafkaSkipReason, testTransport } from '../kafka/kafka-env.js';
import { type FreshDatabase, freshDatabase, postgresSkipNote, postgresUrl } from '../postgres/postgres-env.js';

/** A parcel's domain events; `tenant` is what the contract's `tenantId` header is made from. */
type ParcelEvent =
  | { readonly kind: 'scanned'; readonly parcelId: string; readonly depot: string; readonly tenant: string; readonly urgent?: boolean }
  | { readonly kind: 'delivered'; readonly parcelId: string; readonly tenant: string }
  | { readonly kind: 'weighed'; readonly parcelId: string; readonly grams: number };

/** Gives each message its tenant header (the compiler refuses a ParcelScanned or ParcelDelivered returned without one). */
const parcelMapper: EventMapper<ParcelEvent, ParcelEventsMessage> = {
  map(event) {
    switch (event.kind) {
      case 'scanned': {
        const message = ParcelScanned.create({ parcelId: event.parcelId, depot: event.depot });
        return withHeaders(message, { tenantId: event.tenant, ...(event.urgent ? { priority: 9 } : {}) });
      }
      case 'delivered':
        return withHeaders(ParcelDelivered.create({ parcelId: event.parcelId }), { tenantId: event.tenant });
      case 'weighed':
        return null; // internal to the depot
    }
  },
};

/** An event stored before tenants existed: its type says it has a tenant, the stored JSON has none. */
function untenanted(
  event:
    | { readonly kind: 'scanned'; readonly parcelId: string; readonly depot: string }
    | { readonly kind: 'delivered'; readonly parcelId: string },
): ParcelEvent {
  return event as ParcelEvent;
}

const events: readonly ParcelEvent[] = [
  { kind: 'scanned', parcelId: 'P-1', depot: 'Leeds', tenant: 'acme', urgent: true },
  { kind: 'weighed', parcelId: 'P-1', grams: 900 },
  { kind: 'delivered', parcelId: 'P-1', tenant: 'acme' },
];

interface Seen {
  readonly type: string;
  readonly parcelId: string;
  readonly tenantId: string | undefined;
  readonly priority: string | undefined;
}

/** Subscribes to the parcel channel on `host`, recording each message with the headers its handler saw. */
function record(host: Messaging, groupId: string): Seen[] {
  const seen: Seen[] = [];
  host.subscribe(ParcelEvents, {
    groupId,
    handle(message, context) {
      seen.push({
        type: context.type,
        parcelId: message.parcelId,
        tenantId: context.headers['tenantId'],
        priority: context.headers['priority'],
      });
    },
  });
  return seen;
}

const expectedSeen: Seen[] = [
  { type: 'ParcelScanned', parcelId: 'P-1', tenantId: 'acme', priority: '9' },
  { type: 'ParcelDelivered', parcelId: 'P-1', tenantId: 'acme', priority: undefined },
];

const hosts: Messaging[] = [];
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.stop();
});

describe('withHeaders and what a mapper may return', () => {
  const context: EventMapperContext = { aggregateId: 'P-1', position: 1, timestamp: new Date(0), eventId: 'e-1', metadata: {} };

  it('a mapper that returns something else is a typed error naming what to return', () => {
    const db = new Database(':memory:');
    const outbox = new SqliteOutbox(db);
    outbox.migrate();
    const parcels = outbox.channel(ParcelEvents);
    const broken = (value: unknown): EventMapper<ParcelEvent, ParcelEventsMessage> => ({ map: () => value as Mapped<ParcelEventsMessage> });
    const write = (value: unknown) =>
      db.transaction(() => parcels.writeEvents(db, broken(value), events.slice(0, 1), { aggregateId: 'P-1' }))();
    expect(() => write(undefined)).toThrow(MapperResultError);
    expect(() => write(undefined)).toThrow(/a mapper returned undefined \(a missing return\?\)/);
    expect(() => write({ parcelId: 'P-1', depot: 'Leeds' })).toThrow(/an object that is not a contract message/);
    expect(() => write({ message: { parcelId: 'P-1' }, headers: { tenantId: 'acme' } })).toThrow(MapperResultError);
    expect(() => write('ParcelScanned')).toThrow(/a mapper returned a string/);
    expect(db.prepare('SELECT count(*) AS n FROM keiyaku_outbox').get()).toEqual({ n: 0 });
    expect(parcelMapper.map(events[1]!, context)).toBeNull();
    db.close();
  });
});

describe('SQLite outbox: writeEvents with contract headers', () => {
  it('writes the headers the mapper gives, and the dispatcher delivers them to the consumer', async () => {
    const db = new Database(':memory:');
    const outbox = new SqliteOutbox(db);
    outbox.migrate();
    const parcels = outbox.channel(ParcelEvents);
    const written = db.transaction(() => parcels.writeEvents(db, parcelMapper, events, { aggregateId: 'P-1' }))();
    expect(written).toBe(2);
    const rows = await outbox.list({ state: 'pending' });
    expect(rows.map((r) => [r.type, r.key, r.headers['tenantId'], r.headers['priority']])).toEqual([
      ['ParcelScanned', 'P-1', 'acme', '9'],
      ['ParcelDelivered', 'P-1', 'acme', undefined],
    ]);

    const transport = new InMemoryTransport({ defaultPartitions: 1, idleWaitMs: 5 });
    const host = createMessaging({ logger: silentLogger, transport });
    hosts.push(host);
    const seen = record(host, 'tracking.parcel-timeline');
    host.host(outbox.dispatcher({ transport, logger: silentLogger }, { pollIntervalMs: 10 }));
    await host.start();
    await waitFor(() => seen.length === 2, 'both messages reach the consumer');
    expect(seen).toEqual(expectedSeen);
    await host.stop();
    db.close();
  });

  it('a message without its required header is refused at the write, naming the header, and the transaction writes nothing', () => {
    const db = new Database(':memory:');
    const outbox = new SqliteOutbox(db);
    outbox.migrate();
    const parcels = outbox.channel(ParcelEvents);
    const withoutTenant: ParcelEvent[] = [events[0]!, untenanted({ kind: 'delivered', parcelId: 'P-1' })];
    let thrown: unknown;
    try {
      db.transaction(() => parcels.writeEvents(db, parcelMapper, withoutTenant, { aggregateId: 'P-1' }))();
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ContractValidationError);
    expect(thrown).toMatchObject({ messageType: 'ParcelDelivered', path: 'headers.tenantId', retriable: false });
    expect((thrown as Error).message).toBe("ParcelDelivered is not valid at headers.tenantId: must have required property 'tenantId'");
    expect(db.prepare('SELECT count(*) AS n FROM keiyaku_outbox').get()).toEqual({ n: 0 });
    // A header that breaks its schema is refused the same way, by write() too.
    expect(() =>
      db.transaction(() =>
        parcels.write(db, ParcelScanned.create({ parcelId: 'P-2', depot: 'York' }), { headers: { tenantId: 'acme', priority: 12 } }),
      )(),
    ).toThrow(/ParcelScanned is not valid at headers\.priority/);
    db.close();
  });
});

(postgresUrl === '' ? describe.skip : describe)(`PostgreSQL outbox: writeEvents with contract headers${postgresSkipNote}`, () => {
  let db: FreshDatabase;
  beforeAll(async () => {
    db = await freshDatabase('outbox_headers');
    await new PostgresOutbox(db.pool).migrate();
  });
  afterAll(async () => {
    await db?.drop();
  });

  /** Runs `body` inside BEGIN … COMMIT on one client (ROLLBACK when it throws). */
  async function inTransaction<T>(body: (client: import('pg').PoolClient) => Promise<T>): Promise<T> {
    const client = await db.pool.connect();
    try {
      await client.query('BEGIN');
      const result = await body(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK');
      throw error;
    } finally {
      client.release();
    }
  }

  it('a message without its required header is refused before any query, naming the header', async () => {
    const outbox = new PostgresOutbox(db.pool);
    const parcels = outbox.channel(ParcelEvents);
    const failed = inTransaction((client) =>
      parcels.writeEvents(client, parcelMapper, [untenanted({ kind: 'scanned', parcelId: 'P-9', depot: 'Leeds' })], { aggregateId: 'P-9' }),
    );
    await expect(failed).rejects.toBeInstanceOf(ContractValidationError);
    await expect(failed).rejects.toMatchObject({ messageType: 'ParcelScanned', path: 'headers.tenantId' });
    expect((await outbox.counts()).pending).toBe(0);
  });

  const onKafka = kafkaBrokers === '' ? it.skip : it;
  onKafka(
    `writes the headers the mapper gives; dispatched to Kafka, the consumer sees them${kafkaSkipReason ? ` (${kafkaSkipReason})` : ''}`,
    async () => {
      const outbox = new PostgresOutbox(db.pool);
      const parcels = outbox.channel(ParcelEvents);
      expect(await inTransaction((client) => parcels.writeEvents(client, parcelMapper, events, { aggregateId: 'P-1' }))).toBe(2);
      const rows = await outbox.list({ state: 'pending' });
      expect(rows.map((r) => [r.type, r.headers['tenantId'], r.headers['priority']])).toEqual([
        ['ParcelScanned', 'acme', '9'],
        ['ParcelDelivered', 'acme', undefined],
      ]);

      const transport = testTransport();
      const host = createMessaging({ logger: silentLogger, transport, shutdownBudgetMs: 5_000 });
      hosts.push(host);
      const seen = record(host, 'tracking.parcel-timeline');
      host.host(outbox.dispatcher({ transport, logger: silentLogger }, { pollIntervalMs: 50 }));
      await host.start();
      await waitFor(() => seen.length === 2, 'both messages reach the Kafka consumer', 60_000);
      expect(seen).toEqual(expectedSeen);
      expect((await outbox.counts()).pending).toBe(0);
    },
  );
});

describe('parked and redriven with contract headers', () => {
  it('a message from the outbox that is parked keeps its contract headers, and a redrive passes them on', async () => {
    const db = new Database(':memory:');
    const outbox = new SqliteOutbox(db);
    outbox.migrate();
    const parcels = outbox.channel(ParcelEvents);
    db.transaction(() => parcels.writeEvents(db, parcelMapper, events.slice(0, 1), { aggregateId: 'P-1' }))();

    const transport = new InMemoryTransport({ defaultPartitions: 1, idleWaitMs: 5 });
    const deadLetters = new InMemoryDeadLetterStore();
    const host = createMessaging({ logger: silentLogger, transport, deadLetters });
    hosts.push(host);
    let failing = true;
    const seen: (string | undefined)[] = [];
    host.subscribe(
      ParcelEvents,
      {
        groupId: 'tracking.parcel-timeline',
        handle(_message, context) {
          if (failing) throw new Error('timeline database unavailable');
          seen.push(context.headers['tenantId']);
        },
      },
      { deadLetter: { maxRetries: 0 } },
    );
    host.host(outbox.dispatcher({ transport, logger: silentLogger }, { pollIntervalMs: 10 }));
    await host.start();
    await waitFor(async () => (await deadLetters.count()) === 1, 'the message is parked');
    const [parked] = await deadLetters.list();
    expect(parked!.headers).toMatchObject({ tenantId: 'acme', priority: '9', ce_type: 'ParcelScanned' });
    failing = false;
    await host.redrive(parked!.id);
    await waitFor(() => seen.length === 1, 'the redriven message is handled');
    expect(seen).toEqual(['acme']);
    db.close();
  });
});

describe('EventRelay with contract headers', () => {
  it('publishes each message with the headers its mapper gives; the consumer sees them', async () => {
    const transport = new InMemoryTransport({ defaultPartitions: 1, idleWaitMs: 5 });
    const host = createMessaging({ logger: silentLogger, transport });
    hosts.push(host);
    const seen = record(host, 'tracking.parcel-timeline');
    const store = new InMemoryEventStore<ParcelEvent>();
    const producer = host.host(
      new EventRelay({
        name: 'parcels',
        logger: silentLogger,
        source: store,
        mapper: parcelMapper,
        publisher: host.publisher(ParcelEvents, { lingerMs: 0 }),
      }),
    );
    await host.start();
    store.append('P-1', events);
    await waitFor(() => seen.length === 2, 'both messages reach the consumer');
    expect(seen).toEqual(expectedSeen);
    expect(transport.published(ParcelEvents.address).map((r) => [r.key, r.headers['tenantId'], r.headers['ce_causationid']])).toEqual([
      ['P-1', 'acme', 'evt-1'],
      ['P-1', 'acme', 'evt-3'],
    ]);
    await waitFor(() => producer.status().position === 3, 'the checkpoint passes the filtered event');
    expect(producer.status()).toMatchObject({ published: 2, filtered: 1, failures: 0 });
  });

  it('a message without its required header stops the producer at once with the error naming the header; nothing is published', async () => {
    const transport = new InMemoryTransport({ defaultPartitions: 1, idleWaitMs: 5 });
    const host = createMessaging({ logger: silentLogger, transport });
    hosts.push(host);
    const store = new InMemoryEventStore<ParcelEvent>();
    const producer = host.host(
      new EventRelay({
        name: 'parcels',
        logger: silentLogger,
        source: store,
        mapper: parcelMapper,
        publisher: host.publisher(ParcelEvents, { lingerMs: 0 }),
        retry: { initialMs: 5, maxMs: 10, jitter: 0 },
      }),
    );
    await host.start();
    store.append('P-1', [untenanted({ kind: 'scanned', parcelId: 'P-1', depot: 'Leeds' })]);
    await waitFor(() => !producer.status().running, 'the producer gives up (retrying cannot fix a contract violation)');
    expect(producer.status()).toMatchObject({
      position: 0,
      published: 0,
      failures: 1,
      lastError: "ParcelScanned is not valid at headers.tenantId: must have required property 'tenantId'",
    });
    expect(producer.health().reason).toBe(
      "stopped after a failure: ParcelScanned is not valid at headers.tenantId: must have required property 'tenantId'",
    );
    expect(transport.published(ParcelEvents.address)).toEqual([]);
  });
});

describe('Publisher with contract headers', () => {
  it('publishMany carries each message’s own headers and refuses a message without the required one', async () => {
    const transport = new InMemoryTransport({ defaultPartitions: 1, idleWaitMs: 5 });
    const host = createMessaging({ logger: silentLogger, transport });
    hosts.push(host);
    const publisher = host.publisher(ParcelEvents, { lingerMs: 0 });
    await publisher.publishMany([
      [ParcelScanned.create({ parcelId: 'P-1', depot: 'Leeds' }), { headers: { tenantId: 'acme', priority: 1 } }],
      [ParcelDelivered.create({ parcelId: 'P-2' }), { headers: { tenantId: 'globex' } }],
    ]);
    expect(transport.published(ParcelEvents.address).map((r) => [r.headers['tenantId'], r.headers['priority']])).toEqual([
      ['acme', '1'],
      ['globex', undefined],
    ]);
    await expect(publisher.publish(ParcelDelivered.create({ parcelId: 'P-3' }))).rejects.toMatchObject({
      name: 'ContractValidationError',
      path: 'headers.tenantId',
    });
    expect(transport.published(ParcelEvents.address)).toHaveLength(2);
  });
});
