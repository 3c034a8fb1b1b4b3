// Binary payloads (Avro and Protobuf) over the Iggy transport, against the in-repo protocol double: they
// arrive byte-exact (0x00, invalid UTF-8), per-key order and headers kept, the codec's content
// type on the wire; a message whose bytes are not Avro of its schema fails to decode as
// `malformed` and is parked with its bytes; a redrive republishes the parked bytes unchanged.
import { IggyTransport } from '@keiyaku/iggy';
import { createMessaging, InMemoryDeadLetterStore, type Messaging, silentLogger } from '@keiyaku/runtime';
import { afterAll, afterEach, beforeAll, describe, it } from 'vitest';
import { readingChannel } from '../binary/binary-contract.js';
import { parkAndRedrive, roundTrip } from '../binary/scenarios.js';
import { IggyProtocolDouble } from './protocol-double.js';

const server = new IggyProtocolDouble();
beforeAll(async () => {
  await server.start();
});
afterAll(async () => {
  await server.stop();
});
const hosts: Messaging[] = [];
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.stop();
});

let topics = 0;
function rig() {
  const transport = new IggyTransport({
    host: '127.0.0.1',
    port: server.port,
    requestTimeoutMs: 2_000,
    heartbeatMs: 0,
    idleWaitMs: 10,
    logger: silentLogger,
  });
  const deadLetters = new InMemoryDeadLetterStore();
  const host = createMessaging({ logger: silentLogger, transport, deadLetters, shutdownBudgetMs: 1_000 });
  hosts.push(host);
  return { transport, deadLetters, host, channel: readingChannel(`readings-${++topics}`) };
}

describe('binary payloads over Iggy (protocol double)', () => {
  it('arrive byte-exact (Avro and Protobuf), in per-key order, with their headers and content types', async () => {
    const { host, channel } = rig();
    await roundTrip(host, channel);
  });

  it('park undecodable bytes as malformed, kept exactly; a redrive sends the parked bytes again', async () => {
    const { transport, deadLetters, host, channel } = rig();
    await parkAndRedrive(host, transport, deadLetters, channel);
  });
});
