// Recovery after an eviction or a dead connection: reconnect, log in again, rejoin the group,
// resume from stored offsets — over the protocol test double (not Iggy).
import { createMessaging, InMemoryDeadLetterStore, silentLogger } from '@keiyaku/runtime';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BookIntegrationEvents } from '../../generated/index.js';
import { IggyClient } from '../../runtime/iggy/client.js';
import { IggyConsumerBuilder } from '../../runtime/iggy/consumer.js';
import { IggyPublisherBuilder } from '../../runtime/iggy/publisher.js';
import { IggyTransport } from '../../runtime/iggy/transport.js';
import { borrowed } from '../books.js';
import { waitFor } from '../helpers.js';
import { IggyProtocolDouble } from './protocol-double.js';
import { recordingLogger } from './recording-logger.js';

let server: IggyProtocolDouble;
/** Reconnects, evictions and rejoins are reported here (never on stderr). */
let log: ReturnType<typeof recordingLogger>;
beforeEach(async () => {
  log = recordingLogger();
  server = new IggyProtocolDouble();
  await server.start();
});
afterEach(async () => {
  await server.stop();
});

describe('Iggy recovery', () => {
  it('a keiyaku subscription on Iggy rejoins after its member is evicted and loses nothing', async () => {
    const transport = new IggyTransport({
      host: '127.0.0.1',
      port: server.port,
      requestTimeoutMs: 1_000,
      heartbeatMs: 0,
      logger: log.logger,
      idleWaitMs: 10,
    });
    const host = createMessaging({ logger: silentLogger, transport, deadLetters: new InMemoryDeadLetterStore() });
    const seen = new Set<string>();
    host.subscribe(
      BookIntegrationEvents,
      { groupId: 'inventory.book-availability', handle: (m) => void seen.add(m.copyId) },
      { batchSize: 2 },
    );
    await host.start();
    const publisher = host.publisher(BookIntegrationEvents, { key: (m) => m.bookId });
    await publisher.publishMany(['C-1', 'C-2', 'C-3'].map(borrowed));
    await waitFor(() => seen.size === 3, 'the first three arrive');
    server.evictAll(13);
    await publisher.publishMany(['C-4', 'C-5', 'C-6'].map(borrowed));
    await waitFor(() => seen.size === 6, 'the rest arrive after the rejoin', 10_000);
    expect([...seen].sort()).toEqual(['C-1', 'C-2', 'C-3', 'C-4', 'C-5', 'C-6']);
    // The eviction, the reconnect and the rejoin went to the transport's logger (and nothing to stderr).
    const told = log.lines.map((line) => line.message);
    expect(told).toContain('iggy: the server evicted this client; it reconnects on its next command');
    expect(told).toContain('iggy: the connection is lost; reconnecting');
    expect(
      log.lines.filter((line) => line.message === 'iggy: joined the consumer group again').map((line) => line.fields['group']),
    ).toContain('inventory.book-availability');
    await host.stop();
  });

  it('the high-level consumer reconnects, logs in and rejoins its group after an eviction', async () => {
    const producer = new IggyClient({ host: '127.0.0.1', port: server.port, heartbeatMs: 0, logger: log.logger });
    await producer.connect();
    const publisher = IggyPublisherBuilder.create(producer, 's', 't').createIfMissing({ partitions: 1 }).build();
    await publisher.init();
    await publisher.sendMessages([{ payload: new TextEncoder().encode('before') }]);
    const client = new IggyClient({ host: '127.0.0.1', port: server.port, heartbeatMs: 0, logger: log.logger, requestTimeoutMs: 1_000 });
    await client.connect();
    const consumer = IggyConsumerBuilder.create(client, 's', 't', { kind: 'group', id: 'g' })
      .withPollingStrategy({ kind: 'first' })
      .withPollInterval(5)
      .build();
    await consumer.init();
    const seen: string[] = [];
    const iterator = consumer.receive();
    seen.push(new TextDecoder().decode((await iterator.next()).value!.payload));
    const firstClient = client.connection.clientId;
    await publisher.sendMessages([{ payload: new TextEncoder().encode('after') }]);
    // The server evicts the consumer's client while it stores the offset of 'before' (asked for by
    // the next call): the store fails there and then, whatever the timing of the machine.
    server.evictOn = 161; // STORE_CONSUMER_OFFSET
    seen.push(new TextDecoder().decode((await iterator.next()).value!.payload));
    seen.push(new TextDecoder().decode((await iterator.next()).value!.payload));
    // 'before' comes again: its offset could not be stored before the eviction (at least once).
    expect(seen).toEqual(['before', 'before', 'after']);
    // A new connection and login, under the same client id (the server keys sessions and memberships by it).
    expect(client.generation).toBe(2);
    expect(client.connection.clientId).toBe(firstClient);
    // What the consumer's client went through, in order, through the injected logger.
    const consumerLines = log.lines.filter((line) => line.fields['clientId'] === String(firstClient) || line.fields['consumer'] === 'g');
    expect(consumerLines.map((line) => [line.level, line.message])).toEqual([
      ['warn', 'iggy: the server evicted this client; it reconnects on its next command'],
      ['warn', 'iggy: the consumer recovers from a failed poll or commit; it resumes from the stored offsets'],
      ['warn', 'iggy: the connection is lost; reconnecting'],
      ['info', 'iggy: reconnected and logged in again'],
      ['info', 'iggy: joined the consumer group again'],
    ]);
    expect(consumerLines.at(-1)!.fields).toMatchObject({ stream: 's', topic: 't', group: 'g', generation: 2 });
    expect(server.evictOn).toBeUndefined();
    await iterator.return(undefined);
    await client.close();
    await producer.close();
  });
});

describe('transient errors on a live connection', () => {
  it('a group consumer waits a poll interval, joins again and goes on, on the same connection', async () => {
    const client = new IggyClient({ host: '127.0.0.1', port: server.port, heartbeatMs: 0, logger: log.logger });
    await client.connect();
    const publisher = IggyPublisherBuilder.create(client, 's', 't').createIfMissing({ partitions: 1 }).build();
    await publisher.init();
    await publisher.sendMessages(['a', 'b'].map((text) => ({ payload: new TextEncoder().encode(text) })));
    const consumer = IggyConsumerBuilder.create(client, 's', 't', { kind: 'group', id: 'g' })
      .withPollingStrategy({ kind: 'first' })
      .withAutoCommit('disabled')
      .withPollInterval(20)
      .build();
    await consumer.init();
    const joinsBefore = server.seen.filter((request) => request.operation === 148).length;
    server.failPolls = 3;
    const started = Date.now();
    const seen: string[] = [];
    for await (const message of consumer.receive()) {
      seen.push(new TextDecoder().decode(message.payload));
      if (seen.length === 2) break;
    }
    expect(seen).toEqual(['a', 'b']);
    expect(server.failPolls).toBe(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(55); // one poll interval per failure, no hot loop
    expect(client.generation).toBe(1); // no reconnect: the connection was fine
    expect(server.seen.filter((request) => request.operation === 148).length).toBe(joinsBefore + 3);
    await client.close();
  });

  it('a keiyaku subscription on Iggy rides out transient poll errors without reconnecting', async () => {
    const transport = new IggyTransport({
      host: '127.0.0.1',
      port: server.port,
      requestTimeoutMs: 1_000,
      heartbeatMs: 0,
      logger: log.logger,
      idleWaitMs: 10,
    });
    const host = createMessaging({ logger: silentLogger, transport, deadLetters: new InMemoryDeadLetterStore() });
    const seen = new Set<string>();
    host.subscribe(BookIntegrationEvents, { groupId: 'inventory.book-availability', handle: (m) => void seen.add(m.copyId) });
    await host.start();
    const publisher = host.publisher(BookIntegrationEvents, { key: (m) => m.bookId });
    await publisher.publishMany(['C-1', 'C-2'].map(borrowed));
    await waitFor(() => seen.size === 2, 'the first two arrive');
    const logins = server.seen.filter((request) => request.operation === 1).length;
    server.failPolls = 5;
    await publisher.publishMany(['C-3', 'C-4'].map(borrowed));
    await waitFor(() => seen.size === 4, 'the rest arrive after the transient errors');
    expect(server.failPolls).toBe(0);
    expect(server.seen.filter((request) => request.operation === 1).length).toBe(logins);
    await host.stop();
  });

  it('the transport refuses an empty payload before sending anything', async () => {
    const transport = new IggyTransport({ host: '127.0.0.1', port: server.port, heartbeatMs: 0, logger: log.logger });
    const producer = transport.producer();
    await expect(
      producer.send([
        { address: 'orders', headers: {}, value: new TextEncoder().encode('x') },
        { address: 'orders', headers: {}, value: new Uint8Array(0) },
      ]),
    ).rejects.toMatchObject({ name: 'TransportError', retriable: false, address: 'orders' });
    expect(server.sentBatches).toEqual([]);
    await producer.close();
    await transport.close();
  });
});
