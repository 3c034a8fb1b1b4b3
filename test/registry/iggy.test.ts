// Framed payloads over Iggy (the in-repo protocol double) with the real registry: a high-level SDK
// channel of a framed channel reads the registry before it sends and before it decodes, and an
// IggyTransport subscription reads what it sent.
import { iggyChannel } from '@keiyaku/iggy';
import { createMessaging, InMemoryDeadLetterStore, silentLogger } from '@keiyaku/runtime';
import { SchemaRegistryClient, withSchemaRegistry } from '@keiyaku/runtime/registry';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { IggyClient } from '../../runtime/iggy/client.js';
import { IggyTransport } from '../../runtime/iggy/transport.js';
import { IggyProtocolDouble } from '../iggy/protocol-double.js';
import { avroChannel } from './contract.js';
import { registrySkipNote, registryUrl, testSubject } from './registry-env.js';

const run = registryUrl === '' ? describe.skip : describe;
let server: IggyProtocolDouble;
beforeEach(async () => {
  server = new IggyProtocolDouble();
  await server.start();
});
afterEach(async () => {
  await server.stop();
});

run(`framed payloads over Iggy${registrySkipNote}`, () => {
  it('an Iggy channel of a framed channel sends framed bytes, receives them, and a transport subscription reads them', async () => {
    const topic = testSubject('shelving');
    const { channel, Shelved } = avroChannel(topic, 1);
    const framed = withSchemaRegistry(channel, new SchemaRegistryClient({ url: registryUrl }), { autoRegister: true });
    const iggy = iggyChannel(framed, { stream: 'keiyaku', topic, partitions: 1 });
    await using client = new IggyClient({ host: '127.0.0.1', port: server.port, heartbeatMs: 0, logger: silentLogger });
    await client.connect();
    const publisher = iggy.publisher(client);
    await publisher.init();
    await publisher.send([Shelved.create({ bookId: 'G-1', copies: 1 }), Shelved.create({ bookId: 'G-2', copies: 2 })]);
    await publisher.waitUntilAllSends();

    // A reader with a client of its own reads the writer's schema by id before decoding.
    const reader = iggyChannel(withSchemaRegistry(channel, new SchemaRegistryClient({ url: registryUrl })), { stream: 'keiyaku', topic });
    const consumer = reader.consumer(client, { kind: 'consumer', id: 'reader' }, (b) =>
      b.withPollingStrategy({ kind: 'first' }).withPollInterval(5),
    );
    await consumer.init();
    const read: string[] = [];
    for await (const { result, message } of reader.receive(consumer)) {
      expect(message.payload[0]).toBe(0);
      read.push(result.ok ? result.value.bookId : `failed ${result.error.reason}: ${result.error.message}`);
      if (read.length === 2) break;
    }
    expect(read).toEqual(['G-1', 'G-2']);

    const transport = new IggyTransport({ host: '127.0.0.1', port: server.port, heartbeatMs: 0, idleWaitMs: 10, logger: silentLogger });
    const host = createMessaging({ logger: silentLogger, transport, deadLetters: new InMemoryDeadLetterStore() });
    const handled: string[] = [];
    host.subscribe(withSchemaRegistry(channel, new SchemaRegistryClient({ url: registryUrl })), {
      groupId: 'shelf-readers',
      handle: (m) => void handled.push(m.bookId),
    });
    await host.start();
    try {
      await expect.poll(() => handled, { timeout: 10_000 }).toEqual(['G-1', 'G-2']);
    } finally {
      await host.stop();
    }
  });
});
