// The typed Iggy client over the protocol test double (not Iggy): streams, topics, messages, offsets, errors with context.
import { IggyClient, messageIdFromUuid } from '@keiyaku/iggy';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { IggyProtocolDouble } from './protocol-double.js';

let server: IggyProtocolDouble;
let client: IggyClient;
beforeEach(async () => {
  server = new IggyProtocolDouble();
  const port = await server.start();
  client = new IggyClient({ host: '127.0.0.1', port, requestTimeoutMs: 1_000, heartbeatMs: 0 });
});
afterEach(async () => {
  await client.close();
  await server.stop();
});

const text = (value: string): Uint8Array => new TextEncoder().encode(value);

describe('IggyClient (against the protocol test double)', () => {
  it('logs in, creates a stream and a topic, sends and polls by name', async () => {
    expect((await client.connect()).session).toBe(42n);
    expect(await client.getStream('library')).toBeUndefined();
    expect((await client.createStream('library')).name).toBe('library');
    const topic = await client.createTopic('library', 'book-integration-events', 3);
    expect(topic.partitions.map((p) => p.id)).toEqual([0, 1, 2]);
    const id = messageIdFromUuid('6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b');
    const [confirmation] = await client.sendMessages('library', 'book-integration-events', { kind: 'partition', id: 2 }, [
      { id, originTimestamp: 1n, payload: text('{"copyId":"C-1"}') },
    ]);
    expect(confirmation).toMatchObject({ partitionId: 2, baseOffset: 0n });
    const poll = await client.pollMessages({
      consumer: { kind: 'consumer', id: 1 },
      stream: 'library',
      topic: 'book-integration-events',
      partition: 2,
      strategy: { kind: 'offset', value: 0n },
      count: 5,
      autoCommit: true,
    });
    expect(poll.messages.map((m) => [m.id, new TextDecoder().decode(m.payload)])).toEqual([[id, '{"copyId":"C-1"}']]);
    const offset = await client.getConsumerOffset({
      consumer: { kind: 'consumer', id: 1 },
      stream: 'library',
      topic: 'book-integration-events',
      partition: 2,
    });
    expect(offset?.storedOffset).toBe(0n);
  });

  it('puts the stream, topic and partition into errors', async () => {
    await client.connect();
    await client.createStream('library');
    await expect(
      client.pollMessages({
        consumer: { kind: 'consumer', id: 1 },
        stream: 'library',
        topic: 'nope',
        partition: 0,
        strategy: { kind: 'first' },
        count: 1,
        autoCommit: false,
      }),
    ).rejects.toMatchObject({
      name: 'IggyError',
      status: 2010,
      statusName: 'TopicIdNotFound',
      stream: 'library',
      topic: 'nope',
      partition: 0,
    });
    await expect(client.createStream('library')).rejects.toThrow(
      /create stream failed: StreamNameAlreadyExists \(1012\) on stream library/,
    );
  });

  it('turns a UUID into the 128-bit message id and refuses anything else', () => {
    expect(messageIdFromUuid('00000000-0000-0000-0000-000000000001')).toBe(1n);
    expect(messageIdFromUuid('01000000-0000-0000-0000-000000000000')).toBe(1n << 120n);
    expect(() => messageIdFromUuid('not-a-uuid')).toThrow(/not a UUID/);
  });
});
