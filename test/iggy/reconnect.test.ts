// The client replaces a connection that died (server restart) on its next command, as the C#
// SDK's reconnection does; publishers wait meanwhile and consumers rejoin their groups.
// Against the in-repo protocol test double (not Iggy), restarted on the same port.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ClosedError } from '../../runtime/core/errors.js';
import { IggyClient } from '../../runtime/iggy/client.js';
import { IggyConsumerBuilder } from '../../runtime/iggy/consumer.js';
import { IggyPublisherBuilder, type IggyPublisherError } from '../../runtime/iggy/publisher.js';
import { waitFor } from '../helpers.js';
import { IggyProtocolDouble } from './protocol-double.js';
import { recordingLogger } from './recording-logger.js';

let server: IggyProtocolDouble;
let port: number;
/** What the clients report: reconnects, evictions and rejoins go to the injected logger, never to stderr. */
let log: ReturnType<typeof recordingLogger>;
beforeEach(async () => {
  log = recordingLogger();
  server = new IggyProtocolDouble();
  port = await server.start();
});
afterEach(async () => {
  await server.stop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function restart(downMs: number): Promise<void> {
  await server.stop();
  await sleep(downMs);
  await server.start(port);
}

describe('reconnection (against the protocol test double)', () => {
  it('the next command after a server restart reconnects and registers again under the same client id', async () => {
    await using client = new IggyClient({
      host: '127.0.0.1',
      port,
      heartbeatMs: 0,
      logger: log.logger,
      reconnection: { initialDelayMs: 20 },
    });
    await client.connect();
    await client.createStream('kept');
    const before = client.connection.clientId;
    expect(client.generation).toBe(1);
    await restart(50);
    expect(client.connection.alive).toBe(false);
    expect((await client.getStream('kept'))?.name).toBe('kept');
    expect(client.generation).toBe(2);
    // The same client id: a server that kept the session across its restart gives its group memberships back to it.
    expect(client.connection.clientId).toBe(before);
    const registrations = server.seen.filter((request) => request.operation === 1).map((request) => request.client);
    expect(registrations).toEqual([before, before]);
    // Reported through the injected logger: the loss as a warning, the new login as info.
    expect(log.lines.map((line) => [line.level, line.message])).toEqual([
      ['warn', 'iggy: the connection is lost; reconnecting'],
      ['info', 'iggy: reconnected and logged in again'],
    ]);
    expect(log.lines[0]!.fields).toMatchObject({ server: `127.0.0.1:${port}`, clientId: String(before), generation: 1 });
    expect(log.lines[1]!.fields).toMatchObject({ generation: 2 });
  });

  it('commands wait while the server is down and go out when it is back', async () => {
    await using client = new IggyClient({
      host: '127.0.0.1',
      port,
      heartbeatMs: 0,
      logger: log.logger,
      reconnection: { initialDelayMs: 20, maxDelayMs: 50 },
    });
    await client.connect();
    await server.stop();
    await waitFor(() => !client.connection.alive, 'the client sees the connection drop');
    const started = Date.now();
    const pending = client.createStream('after-outage');
    await sleep(300);
    await server.start(port);
    expect((await pending).name).toBe('after-outage');
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  });

  it('with reconnection disabled, a command on the dead connection fails (retriable) and one after close() as closed', async () => {
    await using client = new IggyClient({ host: '127.0.0.1', port, heartbeatMs: 0, logger: log.logger, reconnection: { enabled: false } });
    await client.connect();
    await restart(10);
    await waitFor(() => !client.connection.alive, 'the client sees the connection drop');
    await expect(client.getStream('anything')).rejects.toMatchObject({ name: 'TransportError', retriable: true });
    await client.close();
    await expect(client.getStream('anything')).rejects.toBeInstanceOf(ClosedError);
    expect(client.generation).toBe(1);
  });

  it('a bounded number of attempts gives up with the connection error', async () => {
    await using client = new IggyClient({
      host: '127.0.0.1',
      port,
      heartbeatMs: 0,
      logger: log.logger,
      reconnection: { maxRetries: 3, initialDelayMs: 10 },
    });
    await client.connect();
    await server.stop();
    await waitFor(() => !client.connection.alive, 'the client sees the connection drop');
    await expect(client.getStream('anything')).rejects.toThrow(/cannot connect/);
    // Every failed attempt but the last is told at debug level, with the wait before the next; giving up is an error.
    expect(log.lines.filter((line) => line.level === 'debug').map((line) => line.fields['attempt'])).toEqual([1, 2]);
    expect(log.lines.filter((line) => line.level === 'debug').map((line) => line.fields['delayMs'])).toEqual([10, 20]);
    expect(log.lines.at(-1)).toMatchObject({ level: 'error', message: 'iggy: reconnecting failed (after 3 attempt(s))' });
  });

  it('a background publisher loses nothing across a server restart', async () => {
    await using client = new IggyClient({
      host: '127.0.0.1',
      port,
      heartbeatMs: 0,
      logger: log.logger,
      reconnection: { initialDelayMs: 20 },
    });
    await client.connect();
    await using publisher = IggyPublisherBuilder.create(client, 'orders', 'created')
      .createIfMissing({ partitions: 1 })
      .withPartitioning({ kind: 'partition', id: 0 })
      .withBackgroundSending({ batchSize: 10, lingerMs: 1 })
      .build();
    const failures: IggyPublisherError[] = [];
    publisher.onError((error) => failures.push(error));
    await publisher.init();
    const payload = (i: number) => new TextEncoder().encode(`order-${i}`);
    for (let i = 0; i < 100; i++) await publisher.sendMessages([{ payload: payload(i) }]);
    const outage = restart(200);
    for (let i = 100; i < 200; i++) await publisher.sendMessages([{ payload: payload(i) }]);
    await outage;
    await publisher.waitUntilAllSends();
    expect(failures).toEqual([]);
    const reader = IggyConsumerBuilder.create(client, 'orders', 'created', { kind: 'consumer', id: 'check' })
      .withPollingStrategy({ kind: 'first' })
      .withAutoCommit('disabled')
      .withBatchSize(1_000)
      .build();
    await reader.init();
    const seen = new Set<string>();
    for await (const message of reader.receive()) {
      seen.add(new TextDecoder().decode(message.payload));
      if (seen.size === 200) break;
    }
    expect(seen.size).toBe(200);
  });

  it('a group consumer whose client was reconnected by someone else joins again before it polls', async () => {
    await using client = new IggyClient({
      host: '127.0.0.1',
      port,
      heartbeatMs: 0,
      logger: log.logger,
      reconnection: { initialDelayMs: 20 },
    });
    await client.connect();
    const publisher = IggyPublisherBuilder.create(client, 'books', 'borrowed').createIfMissing({ partitions: 2 }).build();
    await publisher.init();
    await publisher.sendMessages([{ payload: new TextEncoder().encode('one') }]);
    const consumer = IggyConsumerBuilder.create(client, 'books', 'borrowed', { kind: 'group', id: 'shelf' })
      .withPollingStrategy({ kind: 'first' })
      .withPollInterval(5)
      .build();
    await consumer.init();
    const iterator = consumer.receive();
    expect(new TextDecoder().decode((await iterator.next()).value!.payload)).toBe('one');
    await restart(20);
    await publisher.sendMessages([{ payload: new TextEncoder().encode('two') }]); // reconnects the shared client
    expect(client.generation).toBe(2);
    const joinsBefore = server.seen.filter((request) => request.operation === 148).length;
    expect(new TextDecoder().decode((await iterator.next()).value!.payload)).toBe('two');
    expect(server.seen.filter((request) => request.operation === 148).length).toBe(joinsBefore + 1);
    expect(log.lines.filter((line) => line.message === 'iggy: joined the consumer group again').map((line) => line.fields)).toEqual([
      expect.objectContaining({ stream: 'books', topic: 'borrowed', group: 'shelf', generation: 2 }),
    ]);
    await iterator.return(undefined);
  });
});
