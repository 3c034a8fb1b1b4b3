// The high-level IggyPublisher over the protocol test double (not Iggy): init, background
// batching by count and bytes, retries, failures that reach the caller, client-side partitioning.
import { IggyClient } from '@keiyaku/iggy';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../runtime/core/clock.js';
import { IggyPublisherBuilder, IggyPublisherError } from '../../runtime/iggy/publisher.js';
import { IggyProtocolDouble } from './protocol-double.js';
import { recordingLogger } from './recording-logger.js';

let server: IggyProtocolDouble;
let client: IggyClient;
beforeEach(async () => {
  server = new IggyProtocolDouble();
  const port = await server.start();
  client = new IggyClient({ host: '127.0.0.1', port, requestTimeoutMs: 1_000, heartbeatMs: 0 });
  await client.connect();
});
afterEach(async () => {
  await client.close();
  await server.stop();
});

const payload = (size: number): Uint8Array => new Uint8Array(size).fill(7);

describe('IggyPublisher (against the protocol test double)', () => {
  it('init() refuses a missing stream unless told to create it; creation is idempotent', async () => {
    const strict = IggyPublisherBuilder.create(client, 'library', 'books').build();
    await expect(strict.init()).rejects.toMatchObject({ status: 1009 });
    const creating = IggyPublisherBuilder.create(client, 'library', 'books').createIfMissing({ partitions: 3 }).build();
    await creating.init();
    await IggyPublisherBuilder.create(client, 'library', 'books').createIfMissing().build().init();
    expect((await client.getTopic('library', 'books'))?.partitionsCount).toBe(3);
  });

  it('background sending batches by count, then flushes the rest on waitUntilAllSends', async () => {
    const publisher = IggyPublisherBuilder.create(client, 's', 't')
      .createIfMissing()
      .withPartitioning({ kind: 'partition', id: 0 })
      .withBackgroundSending({ batchSize: 4, lingerMs: 10_000 })
      .build();
    await publisher.init();
    await publisher.sendMessages(Array.from({ length: 10 }, () => ({ payload: payload(10) })));
    // The count gate sent two full batches at once; the rest waits for the linger (10 s) or a flush.
    await expect.poll(() => server.sentBatches.map((b) => b.messages)).toEqual([4, 4]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(server.sentBatches.map((b) => b.messages)).toEqual([4, 4]);
    await publisher.waitUntilAllSends();
    expect(server.sentBatches.map((b) => b.messages)).toEqual([4, 4, 2]);
  });

  it('background sending holds a sender while the queue is at queueCapacity, sending what is queued to make room', async () => {
    const publisher = IggyPublisherBuilder.create(client, 's', 't')
      .createIfMissing()
      .withPartitioning({ kind: 'partition', id: 0 })
      .withBackgroundSending({ batchSize: 1_000, lingerMs: 10_000, queueCapacity: 5 })
      .build();
    await publisher.init();
    await publisher.sendMessages(Array.from({ length: 12 }, (_, i) => ({ payload: new Uint8Array([i + 1]) })));
    // Neither gate (1,000 messages, 10 s) was reached: only the full queue sent anything.
    expect(server.sentBatches.map((b) => b.messages)).toEqual([5, 5]);
    await publisher.waitUntilAllSends();
    expect(server.sentBatches.map((b) => b.messages)).toEqual([5, 5, 2]);
  });

  it('background sending also flushes at the byte limit (0 disables the byte gate)', async () => {
    const bytes = IggyPublisherBuilder.create(client, 's', 't')
      .createIfMissing()
      .withPartitioning({ kind: 'partition', id: 0 })
      .withBackgroundSending({ batchSize: 100, maxBatchBytes: 2_500, lingerMs: 10_000 })
      .build();
    await bytes.init();
    await bytes.sendMessages(Array.from({ length: 5 }, () => ({ payload: payload(1_000) })));
    await expect.poll(() => server.sentBatches.map((b) => b.messages)).toEqual([2, 2]);
    await bytes.waitUntilAllSends();
    expect(server.sentBatches.map((b) => b.messages)).toEqual([2, 2, 1]);
    server.sentBatches.length = 0;
    const unlimited = IggyPublisherBuilder.create(client, 's', 't')
      .withPartitioning({ kind: 'partition', id: 0 })
      .withBackgroundSending({ batchSize: 100, maxBatchBytes: 0, lingerMs: 10_000 })
      .build();
    await unlimited.init();
    await unlimited.sendMessages(Array.from({ length: 5 }, () => ({ payload: payload(1_000) })));
    await unlimited.waitUntilAllSends();
    expect(server.sentBatches.map((b) => b.messages)).toEqual([5]);
  });

  it('retries a transient failure and succeeds', async () => {
    const publisher = IggyPublisherBuilder.create(client, 's', 't')
      .createIfMissing()
      .withPartitioning({ kind: 'partition', id: 0 })
      .withRetry({ maxAttempts: 3, initialDelayMs: 5 })
      .build();
    await publisher.init();
    server.failSends = 2;
    await publisher.sendMessages([{ payload: payload(3) }]);
    expect(server.sentBatches).toHaveLength(1);
  });

  it('a batch that finally fails reaches onError and waitUntilAllSends, never silence', async () => {
    const publisher = IggyPublisherBuilder.create(client, 's', 't')
      .createIfMissing()
      .withPartitioning({ kind: 'partition', id: 0 })
      .withBackgroundSending({ batchSize: 2, lingerMs: 1 })
      .withRetry({ maxAttempts: 2, initialDelayMs: 1 })
      .build();
    await publisher.init();
    const heard: IggyPublisherError[] = [];
    publisher.onError((e) => heard.push(e));
    server.failSends = 10;
    await publisher.sendMessages([{ payload: payload(1) }, { payload: payload(1) }]);
    await expect(publisher.waitUntilAllSends()).rejects.toBeInstanceOf(IggyPublisherError);
    expect(heard.map((e) => e.messages)).toEqual([2]);
  });

  it('resolves balanced and keyed partitioning on the client', async () => {
    const balanced = IggyPublisherBuilder.create(client, 's', 't').createIfMissing({ partitions: 3 }).build();
    await balanced.init();
    for (let i = 0; i < 3; i++) await balanced.sendMessages([{ payload: payload(1) }]);
    expect(server.sentBatches.map((b) => b.partition)).toEqual([0, 1, 2]);
    server.sentBatches.length = 0;
    const keyed = IggyPublisherBuilder.create(client, 's', 't').withPartitioning({ kind: 'key', key: 'book-42' }).build();
    await keyed.init();
    await keyed.sendMessages([{ payload: payload(1) }]);
    await keyed.sendMessages([{ payload: payload(1) }]);
    expect(new Set(server.sentBatches.map((b) => b.partition)).size).toBe(1);
  });

  it('an onError listener that throws is logged, the other listeners still hear the failure, and nothing is left unhandled', async () => {
    const log = recordingLogger();
    await using logged = new IggyClient({
      host: '127.0.0.1',
      port: server.port,
      requestTimeoutMs: 1_000,
      heartbeatMs: 0,
      logger: log.logger,
    });
    await logged.connect();
    const publisher = IggyPublisherBuilder.create(logged, 's', 't')
      .createIfMissing()
      .withPartitioning({ kind: 'partition', id: 0 })
      .withBackgroundSending({ batchSize: 1, lingerMs: 1 })
      .withRetry({ enabled: false })
      .build();
    await publisher.init();
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const heard: string[] = [];
      publisher.onError(() => {
        heard.push('first');
        throw new Error('listener bug');
      });
      publisher.onError((error) => heard.push(`second: ${error.messages}`));
      server.failSends = 1;
      await publisher.sendMessages([{ payload: payload(1) }]);
      await expect(publisher.waitUntilAllSends()).rejects.toBeInstanceOf(IggyPublisherError);
      await new Promise((resolve) => setImmediate(resolve));
      expect(heard).toEqual(['first', 'second: 1']);
      expect(unhandled).toEqual([]);
      expect(log.lines.filter((line) => line.level === 'error')).toEqual([
        {
          level: 'error',
          message: 'iggy: an onError listener of the publisher threw',
          fields: { stream: 's', topic: 't', messages: 1, error: 'listener bug' },
        },
      ]);
      // The publisher goes on: the next batch is sent.
      await publisher.sendMessages([{ payload: payload(1) }]);
      await publisher.waitUntilAllSends();
      expect(server.sentBatches).toHaveLength(1);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it("waits between send attempts on the client's clock, with the configured exponential backoff", async () => {
    const clock = new ManualClock();
    await using timed = new IggyClient({ host: '127.0.0.1', port: server.port, requestTimeoutMs: 1_000, heartbeatMs: 0, clock });
    await timed.connect();
    const publisher = IggyPublisherBuilder.create(timed, 's', 't')
      .createIfMissing()
      .withPartitioning({ kind: 'partition', id: 0 })
      .withRetry({ maxAttempts: 3, initialDelayMs: 1_000, multiplier: 3 })
      .build();
    await publisher.init();
    server.failSends = 2;
    let sent = false;
    const sending = publisher.sendMessages([{ payload: payload(1) }]).then(() => {
      sent = true;
    });
    await waitUntil(() => clock.pending === 1);
    expect(clock.nextWake).toBe(clock.now() + 1_000);
    await clock.advance(999);
    expect(server.failSends).toBe(1); // the second attempt waits for the whole first delay
    await clock.advance(1);
    await waitUntil(() => clock.pending === 1);
    expect(server.failSends).toBe(0);
    expect(clock.nextWake).toBe(clock.now() + 3_000); // × multiplier
    await clock.advance(3_000);
    await sending;
    expect(sent).toBe(true);
    expect(server.sentBatches).toHaveLength(1);
  });
});

/** Waits (on real time, briefly) until `condition` holds: the send attempts go over a real socket. */
async function waitUntil(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(condition()).toBe(true);
}
