// keiyaku's Iggy client connection against the in-repo protocol test double (not Iggy).
import { createServer } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { IggyConnection } from '../../runtime/iggy/connection.js';
import {
  decodePollReply,
  decodeSendReply,
  encodePollMessages,
  encodeSendMessages,
  POLL_MESSAGES,
  SEND_MESSAGES,
} from '../../runtime/iggy/protocol/v0_11/commands/messages.js';
import {
  decodeConsumerOffset,
  encodeGetConsumerOffset,
  encodeStoreConsumerOffset,
  GET_CONSUMER_OFFSET,
  STORE_CONSUMER_OFFSET,
} from '../../runtime/iggy/protocol/v0_11/commands/offsets.js';
import {
  CREATE_STREAM,
  decodeStream,
  encodeCreateStream,
  encodeGetStream,
  GET_STREAM,
} from '../../runtime/iggy/protocol/v0_11/commands/streams.js';
import { CREATE_TOPIC, decodeTopic, encodeCreateTopic } from '../../runtime/iggy/protocol/v0_11/commands/topics.js';
import { encodeReply } from '../../runtime/iggy/protocol/v0_11/header.js';
import { Reader } from '../../runtime/iggy/protocol/wire.js';
import { IggyProtocolDouble } from './protocol-double.js';

let server: IggyProtocolDouble;
let connection: IggyConnection;

beforeEach(async () => {
  server = new IggyProtocolDouble();
  const port = await server.start();
  connection = new IggyConnection({ host: '127.0.0.1', port, requestTimeoutMs: 500, heartbeatMs: 0 });
  await connection.connect();
});
afterEach(async () => {
  await connection.close();
  await server.stop();
});

const text = (value: string): Uint8Array => new TextEncoder().encode(value);

/** Polls up to `count` messages of a partition from its first one, committing nothing. */
async function pollFirst(stream: string, topic: string, partition: number, count: number, consumer: { kind: 'consumer'; id: string }) {
  return decodePollReply(
    await connection.request(
      'poll',
      POLL_MESSAGES.code,
      POLL_MESSAGES.operation,
      encodePollMessages({ consumer, stream, topic, partition, strategy: { kind: 'first' }, count, autoCommit: false }),
    ),
  );
}

describe('Iggy connection (against the protocol test double)', () => {
  it('pings before login with a non-zero client id and session 0', async () => {
    await connection.ping();
    expect(server.seen[0]).toMatchObject({ code: 1, operation: 2, session: 0n, request: 1n });
    expect(server.seen[0]!.client).not.toBe(0n);
  });

  it('logs in (request 0, Register) and numbers later requests as the protocol says', async () => {
    const reply = await connection.login('iggy', 'iggy');
    expect(reply).toMatchObject({ session: 42n, serverProtocolVersion: '0.11.0', serverVersion: 'protocol-double' });
    await connection.request('create stream', CREATE_STREAM.code, CREATE_STREAM.operation, encodeCreateStream('library'));
    await connection.request('create stream', CREATE_STREAM.code, CREATE_STREAM.operation, encodeCreateStream('audit'));
    await connection.request('get stream', GET_STREAM.code, GET_STREAM.operation, encodeGetStream('library'));
    const [login, create1, create2, get] = server.seen;
    expect(login).toMatchObject({ operation: 1, request: 0n, session: 0n });
    expect([create1!.request, create2!.request]).toEqual([1n, 2n]); // metadata ops: strictly increasing
    expect(get).toMatchObject({ operation: 2, code: 200, request: 3n, session: 42n }); // reads: the current counter, not incremented
    expect(new Set(server.seen.map((s) => s.client)).size).toBe(1);
  });

  it('maps bad credentials (an eviction) to a non-retriable InvalidCredentials error', async () => {
    await expect(connection.login('iggy', 'wrong')).rejects.toMatchObject({
      name: 'IggyError',
      status: 42,
      statusName: 'InvalidCredentials',
      retriable: false,
    });
  });

  it('reports committed rejections and missing things the way the server does', async () => {
    await connection.login('iggy', 'iggy');
    await connection.request('create stream', CREATE_STREAM.code, CREATE_STREAM.operation, encodeCreateStream('library'));
    await expect(
      connection.request('create stream', CREATE_STREAM.code, CREATE_STREAM.operation, encodeCreateStream('library')),
    ).rejects.toMatchObject({ status: 1012 });
    expect(
      decodeStream(await connection.request('get stream', GET_STREAM.code, GET_STREAM.operation, encodeGetStream('nope'))),
    ).toBeUndefined();
  });

  it('sends a batch, polls it back with offsets, stores and reads a consumer offset', async () => {
    await connection.login('iggy', 'iggy');
    await connection.request('create stream', CREATE_STREAM.code, CREATE_STREAM.operation, encodeCreateStream('library'));
    const topic = decodeTopic(
      await connection.request('create topic', CREATE_TOPIC.code, CREATE_TOPIC.operation, encodeCreateTopic('library', 'books', 2)),
    );
    expect(topic?.partitions).toHaveLength(2);
    const sent = decodeSendReply(
      await connection.request(
        'send messages',
        SEND_MESSAGES.code,
        SEND_MESSAGES.operation,
        encodeSendMessages('library', 'books', { kind: 'partition', id: 1 }, [
          { id: 1n, originTimestamp: 10n, payload: text('a') },
          { id: 2n, originTimestamp: 11n, payload: text('b') },
        ]),
      ),
    );
    expect(sent).toEqual([{ streamId: 0, topicId: 0, partitionId: 1, baseOffset: 0n }]);
    const consumer = { kind: 'consumer' as const, id: 'inventory' };
    const poll = await pollFirst('library', 'books', 1, 10, consumer);
    expect(poll.messages.map((m) => [m.offset, m.id, new TextDecoder().decode(m.payload)])).toEqual([
      [0n, 1n, 'a'],
      [1n, 2n, 'b'],
    ]);
    const target = { consumer, stream: 'library', topic: 'books', partition: 1 };
    await connection.request(
      'store offset',
      STORE_CONSUMER_OFFSET.code,
      STORE_CONSUMER_OFFSET.operation,
      encodeStoreConsumerOffset(target, 0n),
    );
    expect(
      decodeConsumerOffset(
        await connection.request('get offset', GET_CONSUMER_OFFSET.code, GET_CONSUMER_OFFSET.operation, encodeGetConsumerOffset(target)),
      ),
    ).toEqual({ partitionId: 1, currentOffset: 1n, storedOffset: 0n });
    const next = decodePollReply(
      await connection.request(
        'poll',
        POLL_MESSAGES.code,
        POLL_MESSAGES.operation,
        encodePollMessages({
          consumer,
          stream: 'library',
          topic: 'books',
          partition: 1,
          strategy: { kind: 'next' },
          count: 10,
          autoCommit: false,
        }),
      ),
    );
    expect(next.messages.map((m) => m.offset)).toEqual([1n]);
  });

  it('treats silence as a failure: a request without a reply times out and drops the connection', async () => {
    await connection.login('iggy', 'iggy');
    server.silenceCode = 200;
    await expect(connection.request('get stream', GET_STREAM.code, GET_STREAM.operation, encodeGetStream('x'))).rejects.toMatchObject({
      name: 'TransportError',
      retriable: true,
    });
    expect(connection.alive).toBe(false);
    await expect(connection.ping()).rejects.toThrow('ping: the connection is down; the request was not sent');
  });

  it('an unsolicited eviction ends the session and is reported', async () => {
    await connection.login('iggy', 'iggy');
    const heard: number[] = [];
    connection.onEviction((error) => heard.push(error.status));
    server.evictAll(13);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(heard).toEqual([30]);
    expect(connection.alive).toBe(false);
    await expect(connection.ping()).rejects.toMatchObject({ name: 'TransportError', retriable: true });
  });

  it('serialises concurrent requests: one in flight at a time, replies matched in order', async () => {
    await connection.login('iggy', 'iggy');
    await connection.request('create stream', CREATE_STREAM.code, CREATE_STREAM.operation, encodeCreateStream('s'));
    const results = await Promise.all(
      ['s', 'missing', 's'].map((name) =>
        connection.request('get stream', GET_STREAM.code, GET_STREAM.operation, encodeGetStream(name)).then(decodeStream),
      ),
    );
    expect(results.map((r) => r?.name)).toEqual(['s', undefined, 's']);
  });
});

describe('Iggy connection: when request bodies are encoded and how they are written', () => {
  it('encodes a queued request when its turn comes, so waiting requests hold no encoded bytes; a failing encode fails that request only', async () => {
    await connection.login('iggy', 'iggy');
    const ping = connection.protocol.commands.ping;
    const encoded: string[] = [];
    const codec = (name: string, fail = false) => ({
      ...ping,
      encode: (): Uint8Array => {
        encoded.push(name);
        if (fail) throw new RangeError(`cannot encode ${name}`);
        return new Uint8Array(0);
      },
    });
    const calls = [connection.call(codec('first')), connection.call(codec('second', true)), connection.call(codec('third'))].map((call) =>
      call.then(
        () => 'ok',
        (error: Error) => error.message,
      ),
    );
    // Only the request on the wire was encoded; the two behind it wait as what they will send.
    expect(encoded).toEqual(['first']);
    expect(await Promise.all(calls)).toEqual(['ok', 'cannot encode second', 'ok']);
    expect(encoded).toEqual(['first', 'second', 'third']);
  });

  it('writes a large body after its header without joining them, and the server reads it whole', async () => {
    await connection.login('iggy', 'iggy');
    await connection.request('create stream', CREATE_STREAM.code, CREATE_STREAM.operation, encodeCreateStream('big'));
    await connection.request('create topic', CREATE_TOPIC.code, CREATE_TOPIC.operation, encodeCreateTopic('big', 't', 1));
    // 40 × 1 KiB: well over the size below which header and body are joined.
    const payloads = Array.from({ length: 40 }, (_, i) => new Uint8Array(1024).map((_, j) => (i * 7 + j) & 0xff));
    const body = encodeSendMessages(
      'big',
      't',
      { kind: 'partition', id: 0 },
      payloads.map((payload, i) => ({ id: BigInt(i + 1), originTimestamp: 1n, payload })),
    );
    expect(body.length).toBeGreaterThan(40 * 1024);
    await connection.request('send messages', SEND_MESSAGES.code, SEND_MESSAGES.operation, body);
    const poll = await pollFirst('big', 't', 0, 100, { kind: 'consumer', id: 'reader' });
    expect(poll.messages).toHaveLength(40);
    expect(poll.messages.map((m) => Buffer.from(m.payload))).toEqual(payloads.map((p) => Buffer.from(p)));
  });
});

describe('Iggy connection framing (against a raw socket server)', () => {
  // A server that answers every request with the frames `reply` builds, written in the pieces given.
  async function rawServer(reply: (request: Uint8Array) => Uint8Array[]): Promise<{ port: number; close(): Promise<void> }> {
    const sockets = new Set<import('node:net').Socket>();
    const server = createServer((socket) => {
      sockets.add(socket);
      socket.on('data', async (data) => {
        for (const piece of reply(new Uint8Array(data))) {
          socket.write(piece);
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return {
      port: (server.address() as { port: number }).port,
      close: async () => {
        for (const socket of sockets) socket.destroy();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      },
    };
  }

  it('reassembles a reply that arrives in pieces', async () => {
    const raw = await rawServer((request) => {
      const frame = encodeReply({ client: new Reader(request, 128).u128(), request: 1n, operation: 2, status: 0 });
      return [frame.subarray(0, 10), frame.subarray(10, 200), frame.subarray(200)];
    });
    const c = new IggyConnection({ host: '127.0.0.1', port: raw.port, requestTimeoutMs: 1_000, heartbeatMs: 0 });
    await c.connect();
    await expect(c.ping()).resolves.toBeUndefined();
    await c.close();
    await raw.close();
  });

  it('reads a large reply straight into its frame across many reads, byte for byte, and the next reply after it', async () => {
    const body = new Uint8Array(300 * 1024).map((_, i) => (i * 31 + (i >> 8)) & 0xff);
    let replies = 0;
    const raw = await rawServer((request) => {
      const client = new Reader(request, 128).u128();
      replies++;
      if (replies > 1) return [encodeReply({ client, request: 2n, operation: 2, status: 0, body: text('after') })];
      const frame = encodeReply({ client, request: 1n, operation: 2, status: 0, body });
      // The header and a little of the body, then pieces larger than the read buffer, then the tail.
      return [frame.subarray(0, 300), frame.subarray(300, 100_000), frame.subarray(100_000, 250_000), frame.subarray(250_000)];
    });
    const c = new IggyConnection({ host: '127.0.0.1', port: raw.port, requestTimeoutMs: 2_000, heartbeatMs: 0 });
    await c.connect();
    const { ping } = c.protocol.commands;
    const payload = await c.request(ping.name, ping.code, ping.operation);
    expect(payload.byteLength).toBe(body.byteLength);
    expect(Buffer.from(payload).equals(Buffer.from(body))).toBe(true);
    expect(new TextDecoder().decode(await c.request(ping.name, ping.code, ping.operation))).toBe('after');
    await c.close();
    await raw.close();
  });

  it('a frame that does not decode fails the request and drops the connection instead of throwing in the socket handler', async () => {
    const raw = await rawServer(() => {
      const frame = new Uint8Array(256);
      new DataView(frame.buffer).setUint32(48, 256, true);
      frame[60] = 99; // no such command
      return [frame];
    });
    const c = new IggyConnection({ host: '127.0.0.1', port: raw.port, requestTimeoutMs: 1_000, heartbeatMs: 0 });
    await c.connect();
    await expect(c.ping()).rejects.toMatchObject({
      name: 'TransportError',
      retriable: true,
      message: expect.stringContaining('bad frame from the server'),
    });
    expect(c.alive).toBe(false);
    await c.close();
    await raw.close();
  });
});
