// ReceiveRented as the SDK guide says it: one pooled reply buffer per poll, shared by that poll's
// messages, back in the pool when the last of them is disposed; after that every payload view taken
// earlier refuses reads. Against the in-repo protocol double.
import { BufferPool, Consumer, IggyClient, IggyConsumerBuilder, ObjectDisposedError, PollingStrategy } from '@keiyaku/iggy';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RentedReceivedMessage } from '../../runtime/iggy/consumer.js';
import { IggyProtocolDouble } from './protocol-double.js';

const text = new TextDecoder();
let server: IggyProtocolDouble;
let client: IggyClient;

beforeEach(async () => {
  server = new IggyProtocolDouble();
  const port = await server.start();
  client = new IggyClient({ host: '127.0.0.1', port, heartbeatMs: 0 });
  await client.connect();
  await client.createStream('s');
  await client.createTopic('s', 't', 1);
  const now = BigInt(Date.now()) * 1000n;
  await client.sendMessages(
    's',
    't',
    { kind: 'partition', id: 0 },
    Array.from({ length: 8 }, (_, i) => ({ payload: new TextEncoder().encode(`payload-${i}`), originTimestamp: now })),
  );
});
afterEach(async () => {
  await client.close();
  await server.stop();
});

/** A single consumer from the first offset; `pollAhead` false unless asked, so each test sees one poll at a time. */
async function consumer(batchSize: number, pollAhead = false) {
  const built = IggyConsumerBuilder.create(client, 's', 't', Consumer.new(1))
    .withPollingStrategy(PollingStrategy.first())
    .withBatchSize(batchSize)
    .withAutoCommit('disabled')
    .withPollAhead(pollAhead)
    .build();
  await built.init();
  return built;
}

/** What reading a view gives: its text, or the error its slice() throws. */
function read(view: Uint8Array): string {
  try {
    return text.decode(view.slice());
  } catch (error) {
    return `refused: ${(error as Error).name}`;
  }
}

describe('receiveRented over a pooled reply buffer', () => {
  it('shares one buffer per poll; it returns to the pool when the last message is disposed, and every earlier view refuses reads', async () => {
    const pool = new BufferPool();
    const messages: RentedReceivedMessage[] = [];
    const views: Uint8Array[] = [];
    for await (const message of (await consumer(4)).receiveRented(undefined, pool)) {
      messages.push(message);
      views.push(message.payload, message.payload.subarray(0, 3));
      if (messages.length === 4) break;
    }
    expect(pool.stats).toEqual({ allocated: 1, reused: 0 }); // one reply buffer for the poll's four messages
    expect(messages.map((m) => m.payload.buffer)).toEqual(Array(4).fill(messages[0]!.payload.buffer));
    expect(views.filter((_, i) => i % 2 === 0).map(read)).toEqual(['payload-0', 'payload-1', 'payload-2', 'payload-3']);

    for (const message of messages.slice(0, 3)) message.dispose();
    expect(pool.pooled).toBe(0); // one message still holds the buffer
    expect(() => messages[0]!.payload).toThrow(ObjectDisposedError);
    expect(read(views[6]!)).toBe('payload-3');

    messages[3]!.dispose();
    expect(pool.pooled).toBe(1); // the last one returned it
    expect(views.map(read)).toEqual(Array(8).fill('refused: TypeError'));
    expect(views.every((v) => v.length === 0)).toBe(true);
    expect(text.decode(views[0]!)).toBe(''); // decoding a revoked view yields nothing, never recycled bytes
    expect(() => messages[3]!.headers).toThrow(ObjectDisposedError);
    expect(messages.map((m) => m.offset)).toEqual([0n, 1n, 2n, 3n]); // metadata stays readable
  });

  it('the next poll reuses the returned buffer, and nothing it holds shows through an old view', async () => {
    const pool = new BufferPool();
    const old: Uint8Array[] = [];
    const seen: string[] = [];
    for await (using message of (await consumer(2)).receiveRented(undefined, pool)) {
      old.push(message.payload);
      seen.push(text.decode(message.payload));
      if (seen.length === 6) break;
    }
    expect(seen).toEqual(['payload-0', 'payload-1', 'payload-2', 'payload-3', 'payload-4', 'payload-5']);
    expect(pool.stats).toEqual({ allocated: 1, reused: 2 }); // three polls, one allocation
    expect(pool.pooled).toBe(1);
    expect(old.map(read)).toEqual(Array(6).fill('refused: TypeError'));
  });

  it('messages of a poll that the loop never handed out are released when it breaks off', async () => {
    const pool = new BufferPool();
    for await (using message of (await consumer(8)).receiveRented(undefined, pool)) {
      expect(text.decode(message.payload)).toBe('payload-0');
      break; // seven messages of this poll are never handed out
    }
    expect(pool.pooled).toBe(1);
  });

  it('polling ahead: the poll sent ahead of a loop that breaks off goes back to the pool, and its messages come again', async () => {
    const pool = new BufferPool();
    const reader = await consumer(3, true);
    const polls = (): number => server.seen.filter((request) => request.code === 100).length;
    const seen: string[] = [];
    for await (using message of reader.receiveRented(undefined, pool)) {
      seen.push(text.decode(message.payload));
      if (seen.length === 3) break; // the poll sent ahead (payloads 3-5) is never handed out
    }
    expect(polls()).toBe(2); // the first poll, and the one sent while its messages were handled
    expect(pool.pooled).toBe(pool.stats.allocated); // every buffer back, the dropped poll's too
    for await (using message of reader.receiveRented(undefined, pool)) {
      seen.push(text.decode(message.payload));
      if (seen.length === 8) break;
    }
    expect(seen).toEqual(Array.from({ length: 8 }, (_, i) => `payload-${i}`));
  });

  it('receive() (the copying path) gives each poll a reply buffer of its own: payloads kept past the loop stay readable', async () => {
    const kept: Uint8Array[] = [];
    for await (const message of (await consumer(4)).receive()) {
      kept.push(message.payload);
      if (kept.length === 4) break;
    }
    expect(kept.map(read)).toEqual(['payload-0', 'payload-1', 'payload-2', 'payload-3']);
  });
});
