// The one redrive (runtime/stores/dead-letter/redrive.ts) that Messaging, the operations page and the
// CLI share, over the in-memory transport: the target resolved as the publisher resolves it, a
// missing destination refused, the record removed only after the acknowledgement, and of ten
// concurrent redrives of one record (through the operations page, token and CSRF) exactly one sends.
import { KafkaTransport } from '@keiyaku/kafka';
import { migratePostgres, PostgresDeadLetterStore } from '@keiyaku/postgres';
import {
  createMessaging,
  type DeadLetterStore,
  InMemoryDeadLetterStore,
  type ParkedMessage,
  type ParkRequest,
  planRedrive,
  REDRIVEN_FROM_HEADER,
  RedriveError,
  redrive,
  silentLogger,
  type TransportProducer,
} from '@keiyaku/runtime';
import { InMemoryTransport } from '@keiyaku/runtime/memory';
import { serveOperations } from '@keiyaku/runtime/ops';
import { afterEach, describe, expect, it } from 'vitest';
import { BookIntegrationEvents, DueDateReminder, MemberNotifications } from '../../generated/index.js';
import { borrowed } from '../books.js';
import { freshDatabase, postgresSkipNote, postgresUrl } from '../postgres/postgres-env.js';

const TOKEN = 'redrive-token-0123456789abcdef';
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A BookBorrowed as it went over the wire (payload bytes and headers from the real publisher). */
async function wire(copyId: string): Promise<Pick<ParkRequest, 'payload' | 'headers' | 'key'>> {
  const transport = new InMemoryTransport();
  const host = createMessaging({ transport, logger: silentLogger });
  await host.publisher(BookIntegrationEvents, { lingerMs: 0 }).publish(borrowed(copyId));
  const [sent] = transport.published(BookIntegrationEvents);
  await host.stop();
  return { payload: sent!.record.value, headers: { ...sent!.record.headers }, key: sent!.record.key! };
}

async function park(store: DeadLetterStore, overrides: Partial<ParkRequest> = {}): Promise<ParkedMessage> {
  return store.park(
    {
      channel: 'bookIntegrationEvents',
      address: 'library.book-integration-events',
      groupId: 'inventory.book-availability',
      type: 'BookBorrowed',
      ...(await wire('C-redrive')),
      error: { name: 'Error', message: 'inventory database unavailable' },
      attempts: 3,
      firstFailureAt: new Date(0),
      lastFailureAt: new Date(1),
      ...overrides,
    },
    new Date(2),
  );
}

/** The in-memory store without its own claim: the redrive claims in this process. */
function withoutClaim(store: InMemoryDeadLetterStore): DeadLetterStore {
  return {
    park: (r, at) => store.park(r, at),
    list: (f) => store.list(f),
    get: (id) => store.get(id),
    remove: (id) => store.remove(id),
    count: (f) => store.count(f),
  };
}

describe('redrive', () => {
  it('resolves the target as the publisher does: the Kafka binding topic and the namespace, channel parameters checked', async () => {
    const kafka = new KafkaTransport({ brokers: ['127.0.0.1:1'], namespace: 'staging', logger: silentLogger });
    expect(kafka.destination('courier.location-pings', { kafka: { topic: 'fleet.courier-location-pings.v1' } })).toBe(
      'staging.fleet.courier-location-pings.v1',
    );
    // Sends learn it as provision makes them learn it.
    expect(kafka.topic('courier.location-pings')).toBe('staging.fleet.courier-location-pings.v1');
    expect(kafka.destination('library.book-integration-events', BookIntegrationEvents.bindings)).toBe(
      'staging.library.book-integration-events',
    );

    const transport = new InMemoryTransport();
    const store = new InMemoryDeadLetterStore();
    const channels = { bookIntegrationEvents: BookIntegrationEvents, memberNotifications: MemberNotifications };
    const options = { transport, deadLetters: store, channel: (id: string) => channels[id as keyof typeof channels] };
    const transportReminder = new InMemoryTransport();
    const host = createMessaging({ transport: transportReminder, logger: silentLogger });
    await host.publisher(MemberNotifications, { lingerMs: 0 }).publish(
      DueDateReminder.create({
        memberId: 'M-7007',
        loans: [{ bookId: '6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b', dueAt: '2026-11-23T10:15:00Z' }],
      }),
      {
        parameters: { memberId: 'M-7007' },
      },
    );
    const [sent] = transportReminder.published('library.members.M-7007.notifications');
    await host.stop();
    const reminder = await park(store, {
      channel: 'memberNotifications',
      address: 'library.members.M-7007.notifications',
      type: 'DueDateReminder',
      payload: sent!.value,
      headers: sent!.headers,
    });
    await transport.provision('library.members.M-7007.notifications', {});
    expect(await planRedrive(reminder.id, options)).toMatchObject({
      channel: 'memberNotifications',
      address: 'library.members.M-7007.notifications',
      destination: 'library.members.M-7007.notifications',
      transport: 'memory',
      exists: true,
    });
    const astray = await park(store, { channel: 'memberNotifications', address: 'library.members', type: 'DueDateReminder' });
    await expect(planRedrive(astray.id, options)).rejects.toMatchObject({ code: 'redrive_invalid' });
    const unknown = await park(store, { channel: 'noSuchChannel' });
    await expect(redrive(unknown.id, options)).rejects.toMatchObject({ code: 'redrive_unknown_channel' });
    expect(await store.get(unknown.id)).toBeDefined();
  });

  it('refuses a destination that does not exist (nothing is created) and keeps the record; sends once it exists', async () => {
    const transport = new InMemoryTransport();
    const store = new InMemoryDeadLetterStore();
    const host = createMessaging({ transport, deadLetters: store, logger: silentLogger });
    host.publisher(BookIntegrationEvents);
    const parked = await park(store);
    const refused = await host.redrive(parked.id).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RedriveError);
    expect(refused).toMatchObject({ code: 'redrive_target_missing', target: { destination: 'library.book-integration-events' } });
    expect((refused as Error).message).toMatch(/memory library\.book-integration-events .* does not exist; a redrive never creates it/);
    expect(await transport.destinationExists('library.book-integration-events')).toBe(false);
    expect(await store.get(parked.id)).toBeDefined();

    await transport.provision('library.book-integration-events', BookIntegrationEvents.bindings);
    const result = await host.redrive(parked.id);
    expect(result).toMatchObject({ removed: true, messageId: parked.headers['ce_id'], target: { exists: true } });
    const [again] = transport.published(BookIntegrationEvents);
    expect(again!.record.headers).toMatchObject({ ...parked.headers, [REDRIVEN_FROM_HEADER]: parked.id });
    expect(again!.record.key).toBe(parked.key);
    expect(await store.get(parked.id)).toBeUndefined();
    await host.stop();
  });

  it('refuses a target that is not the topic the record was read from (another namespace, transport or binding)', async () => {
    const transport = new InMemoryTransport();
    await transport.provision('library.book-integration-events', BookIntegrationEvents.bindings);
    const store = new InMemoryDeadLetterStore();
    const options = { transport, deadLetters: store, channel: () => BookIntegrationEvents };
    const elsewhere = await park(store, { topic: 'staging.library.book-integration-events' });
    await expect(planRedrive(elsewhere.id, options)).rejects.toMatchObject({ code: 'redrive_target_mismatch' });
    await expect(redrive(elsewhere.id, options)).rejects.toThrow(
      /was read from staging\.library\.book-integration-events, but the address library\.book-integration-events of channel bookIntegrationEvents resolves to memory library\.book-integration-events here/,
    );
    expect(await store.get(elsewhere.id)).toBeDefined();
    const same = await park(store, { topic: 'library.book-integration-events' });
    await expect(redrive(same.id, options)).resolves.toMatchObject({ removed: true });
  });

  it('removes the record only after the acknowledgement; a send that fails leaves it parked and claimable again', async () => {
    const transport = new InMemoryTransport();
    await transport.provision('library.book-integration-events', BookIntegrationEvents.bindings);
    const store = new InMemoryDeadLetterStore();
    const parked = await park(store);
    let ack!: () => void;
    let fail = true;
    const sends: number[] = [];
    const real = transport.producer();
    const producer: TransportProducer = {
      async send(records) {
        sends.push(records.length);
        if (fail) throw Object.assign(new Error('broker said no'), { retriable: false });
        await new Promise<void>((resolve) => {
          ack = resolve;
        });
        await real.send(records);
      },
      close: () => real.close(),
    };
    const options = { transport, deadLetters: store, channel: () => BookIntegrationEvents, producer };
    await expect(redrive(parked.id, options)).rejects.toMatchObject({ code: 'redrive_failed' });
    expect(await store.get(parked.id)).toBeDefined();
    fail = false;
    const pending = redrive(parked.id, options);
    while (sends.length < 2) await new Promise((resolve) => setTimeout(resolve, 1));
    // Sent, not yet acknowledged: still parked, and a second redrive is refused meanwhile.
    expect(await store.get(parked.id)).toBeDefined();
    await expect(redrive(parked.id, options)).rejects.toMatchObject({ code: 'redrive_in_progress' });
    ack();
    await expect(pending).resolves.toMatchObject({ removed: true });
    expect(await store.get(parked.id)).toBeUndefined();
    expect(transport.published('library.book-integration-events')).toHaveLength(1);
    await expect(redrive(parked.id, options)).rejects.toMatchObject({ code: 'dead_letter_not_found' });
  });

  it('uses the store’s own claim and release when it has them', async () => {
    const transport = new InMemoryTransport();
    await transport.provision('library.book-integration-events', BookIntegrationEvents.bindings);
    const inner = new InMemoryDeadLetterStore();
    const calls: string[] = [];
    const claimed = new Set<string>();
    const store: DeadLetterStore = {
      ...withoutClaim(inner),
      async claim(id) {
        calls.push(`claim ${id}`);
        if (claimed.has(id)) return undefined;
        claimed.add(id);
        return inner.get(id);
      },
      async release(id) {
        calls.push(`release ${id}`);
        claimed.delete(id);
      },
    };
    const parked = await park(store);
    const bad = await park(store, { payload: new TextEncoder().encode('{"copyId":1}') });
    const options = { transport, deadLetters: store, channel: () => BookIntegrationEvents };
    await expect(redrive(bad.id, options)).rejects.toMatchObject({ code: 'redrive_invalid' });
    await expect(redrive(parked.id, options)).resolves.toMatchObject({ removed: true });
    expect(calls).toEqual([`claim ${bad.id}`, `release ${bad.id}`, `claim ${parked.id}`]);
  });

  for (const [name, makeStore] of [
    ['a store without its own claim', () => withoutClaim(new InMemoryDeadLetterStore())],
    ['the in-memory store', () => new InMemoryDeadLetterStore()],
  ] as const)
    it(`ten concurrent redrives of one dead letter through the operations page publish it once (${name})`, async () => {
      const transport = new InMemoryTransport({ idleWaitMs: 5 });
      const store = makeStore();
      const host = createMessaging({ transport, deadLetters: store, logger: silentLogger });
      host.publisher(BookIntegrationEvents);
      await transport.provision('library.book-integration-events', BookIntegrationEvents.bindings);
      const server = await serveOperations(host, { port: 0, token: TOKEN });
      cleanups.push(async () => {
        await server.close();
        await host.stop();
      });
      const parked = await park(store);
      const page = await (await fetch(`${server.url}/dead-letters/${parked.id}`)).text();
      const csrf = new RegExp(`action="/dead-letters/${parked.id}/redrive"[^]*?name="csrf" value="([^"]+)"`).exec(page)![1]!;
      const responses = await Promise.all(
        Array.from({ length: 10 }, () =>
          fetch(`${server.url}/dead-letters/${parked.id}/redrive`, {
            method: 'POST',
            redirect: 'manual',
            headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' },
            body: new URLSearchParams({ csrf, token: TOKEN }).toString(),
          }).then(async (r) => ({ status: r.status, text: await r.text() })),
        ),
      );
      const statuses = responses.map((r) => r.status);
      expect(statuses.filter((s) => s === 303)).toHaveLength(1);
      for (const r of responses.filter((x) => x.status !== 303)) {
        expect([404, 409]).toContain(r.status);
        expect(r.text).toMatch(/being redriven by someone else|no parked message with id/i);
      }
      expect(transport.published('library.book-integration-events')).toHaveLength(1);
      expect(await store.get(parked.id)).toBeUndefined();
    });

  (postgresUrl === '' ? it.skip : it)(
    `ten concurrent redrives of one record on the PostgreSQL store: one sends${postgresSkipNote}`,
    async () => {
      const database = await freshDatabase('redrive_claims');
      try {
        await migratePostgres(database.pool);
        const store = new PostgresDeadLetterStore(database.pool);
        const transport = new InMemoryTransport();
        await transport.provision('library.book-integration-events', BookIntegrationEvents.bindings);
        const parked = await park(store);
        const options = { transport, deadLetters: store, channel: () => BookIntegrationEvents };
        const outcomes = await Promise.allSettled(Array.from({ length: 10 }, () => redrive(parked.id, options)));
        expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
        for (const o of outcomes)
          if (o.status === 'rejected') expect(['redrive_in_progress', 'dead_letter_not_found']).toContain((o.reason as RedriveError).code);
        expect(transport.published('library.book-integration-events')).toHaveLength(1);
        expect(await store.get(parked.id)).toBeUndefined();
      } finally {
        await database.drop();
      }
    },
  );
});
