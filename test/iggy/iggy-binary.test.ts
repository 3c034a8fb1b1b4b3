// Binary (Avro) payloads over the Iggy transport, against the in-repo protocol double: readings
// arrive byte-exact (0x00, invalid UTF-8), per-key order and headers kept, the codec's content
// type on the wire; a message whose bytes are not Avro of its schema fails to decode as
// `malformed` and is parked with its bytes; a redrive republishes the parked bytes unchanged.
import { IggyTransport } from '@keiyaku/iggy';
import { createMessaging, InMemoryDeadLetterStore, type Messaging, redrive, silentLogger } from '@keiyaku/runtime';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HOSTILE_BYTES, type ReadingMessage, reading, readingChannel } from '../binary/binary-contract.js';
import { waitFor } from '../helpers.js';
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
  it('arrive byte-exact, in per-key order, with their headers and content type', async () => {
    const { host, channel } = rig();
    const got: { message: ReadingMessage; correlationId: string | undefined; contentType: string | undefined; note: string | undefined }[] =
      [];
    host.subscribe(channel, {
      groupId: 'readers',
      handle(message, context) {
        got.push({
          message,
          correlationId: context.correlationId,
          contentType: context.headers['content-type'],
          note: context.headers['note'],
        });
      },
    });
    await host.start();
    const publisher = host.publisher(channel);
    await Promise.all(
      Array.from({ length: 30 }, (_, i) => publisher.publish(reading(i), { correlationId: `c-${i}`, headers: { note: `n-${i}` } })),
    );
    await waitFor(() => got.length === 30, 'all 30 readings arrived', 15_000);
    for (const { message, correlationId, contentType, note } of got) {
      expect(message.blob).toEqual(Uint8Array.from([...HOSTILE_BYTES, message.seq]));
      expect(correlationId).toBe(`c-${message.seq}`);
      expect(note).toBe(`n-${message.seq}`);
      expect(contentType).toBe('application/avro');
    }
    for (let s = 0; s < 3; s++) {
      const order = got.filter((g) => g.message.sensor === `s-${s}`).map((g) => g.message.seq);
      expect(order).toEqual(Array.from({ length: 10 }, (_, k) => s + 3 * k));
    }
  });

  it('park undecodable bytes as malformed, kept exactly; a redrive sends the parked bytes again', async () => {
    const { transport, deadLetters, host, channel } = rig();
    let failing = true;
    const handled: ReadingMessage[] = [];
    host.subscribe(
      channel,
      {
        groupId: 'readers',
        handle(message) {
          if (failing && message.seq === 7) throw new Error('downstream refused reading 7');
          handled.push(message);
        },
      },
      { deadLetter: { maxRetries: 0 }, retry: { initialMs: 1, maxMs: 1, jitter: 0 } },
    );
    await host.start();
    const garbage = Uint8Array.from([0x02, 0xff, 0x00, 0xc3, 0x28, 0xfe]);
    const producer = transport.producer();
    await producer.send([
      {
        address: channel.address,
        key: 's-0',
        value: garbage,
        headers: { ce_specversion: '1.0', ce_id: 'bad-1', ce_type: 'Reading', 'content-type': 'application/avro' },
      },
    ]);
    await producer.close();
    const publisher = host.publisher(channel);
    await publisher.publish(reading(7));
    await publisher.publish(reading(8));
    await waitFor(async () => (await deadLetters.count()) === 2 && handled.length === 1, 'both parked, 8 handled', 15_000);
    const parked = await deadLetters.list();
    const bad = parked.find((p) => p.headers['ce_id'] === 'bad-1')!;
    expect(bad.error).toMatchObject({ name: 'ContractDecodeError' });
    expect(bad.error.message).toContain('payload is not Avro');
    expect(bad.payload).toEqual(garbage);
    const seven = parked.find((p) => p.headers['ce_id'] !== 'bad-1')!;
    expect(seven.payload).toEqual(channel.message('Reading')!.encode(reading(7)));

    failing = false;
    const result = await redrive(seven.id, { transport, deadLetters, channel: () => channel });
    expect(result.removed).toBe(true);
    await waitFor(() => handled.length === 2, 'the redriven reading is handled', 15_000);
    expect(handled[1]!.blob).toEqual(reading(7).blob);
  });
});
