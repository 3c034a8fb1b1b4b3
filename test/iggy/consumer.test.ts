// The high-level IggyConsumer over the protocol test double (not Iggy): the async iterator,
// auto-commit modes, manual offsets, and consumer groups split across two members.
import { IggyClient } from '@keiyaku/iggy';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../runtime/core/clock.js';
import { IggyConsumerBuilder } from '../../runtime/iggy/consumer.js';
import { IggyPublisherBuilder } from '../../runtime/iggy/publisher.js';
import { IggyProtocolDouble } from './protocol-double.js';

let server: IggyProtocolDouble;
const clients: IggyClient[] = [];
async function client(): Promise<IggyClient> {
  const c = new IggyClient({ host: '127.0.0.1', port: server.port, requestTimeoutMs: 1_000, heartbeatMs: 0 });
  await c.connect();
  clients.push(c);
  return c;
}
beforeEach(async () => {
  server = new IggyProtocolDouble();
  await server.start();
  const producer = await client();
  const publisher = IggyPublisherBuilder.create(producer, 'library', 'books').createIfMissing({ partitions: 2 }).build();
  await publisher.init();
  for (let i = 0; i < 6; i++) await publisher.sendMessages([{ id: BigInt(i + 1), payload: new TextEncoder().encode(`m${i}`) }]); // balanced: 0,1,0,1,0,1
});
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  await server.stop();
});

async function take(
  iterator: AsyncGenerator<{ payload: Uint8Array; partition: number; offset: bigint }>,
  count: number,
): Promise<string[]> {
  const out: string[] = [];
  for await (const message of iterator) {
    out.push(`${message.partition}:${message.offset}:${new TextDecoder().decode(message.payload)}`);
    if (out.length === count) break;
  }
  return out;
}

describe('IggyConsumer (against the protocol test double)', () => {
  it('reads every partition with per-partition cursors and stores offsets after each message', async () => {
    const c = await client();
    const consumer = IggyConsumerBuilder.create(c, 'library', 'books', { kind: 'consumer', id: 'inventory' })
      .withPollingStrategy({ kind: 'first' })
      .withBatchSize(10)
      .withPollInterval(5)
      .build();
    await consumer.init();
    expect(consumer.partitions).toEqual([0, 1]);
    const seen = await take(consumer.receive(), 6);
    expect(seen.sort()).toEqual(['0:0:m0', '0:1:m2', '0:2:m4', '1:0:m1', '1:1:m3', '1:2:m5']);
    const stored = await c.getConsumerOffset({
      consumer: { kind: 'consumer', id: 'inventory' },
      stream: 'library',
      topic: 'books',
      partition: 0,
    });
    expect(stored?.storedOffset).toBeGreaterThanOrEqual(1n);
  });

  it('resumes from stored offsets with the next strategy (a restarted consumer)', async () => {
    const first = await client();
    const a = IggyConsumerBuilder.create(first, 'library', 'books', { kind: 'consumer', id: 'restart' })
      .withPartitions([0])
      .withBatchSize(1)
      .withPollInterval(5)
      .build();
    await a.init();
    expect(await take(a.receive(), 2)).toEqual(['0:0:m0', '0:1:m2']);
    const second = await client();
    const b = IggyConsumerBuilder.create(second, 'library', 'books', { kind: 'consumer', id: 'restart' })
      .withPartitions([0])
      .withBatchSize(10)
      .withPollInterval(5)
      .build();
    await b.init();
    expect(await take(b.receive(), 1)).toEqual(['0:1:m2']); // the last one handled before the break is redelivered: its offset was stored only when asked for the next
  });

  it('manual offsets: storeOffset with resetLastPolled rewinds, deleteOffset forgets', async () => {
    const c = await client();
    const consumer = IggyConsumerBuilder.create(c, 'library', 'books', { kind: 'consumer', id: 'manual' })
      .withPartitions([1])
      .withAutoCommit('disabled')
      .withBatchSize(10)
      .withPollInterval(5)
      .build();
    await consumer.init();
    expect(await take(consumer.receive(), 3)).toEqual(['1:0:m1', '1:1:m3', '1:2:m5']);
    await consumer.storeOffset(0n, 1, true);
    expect(await take(consumer.receive(), 1)).toEqual(['1:1:m3']);
    const target = { consumer: { kind: 'consumer', id: 'manual' } as const, stream: 'library', topic: 'books', partition: 1 };
    expect((await c.getConsumerOffset(target))?.storedOffset).toBe(0n);
    await consumer.deleteOffset(1);
    expect(await c.getConsumerOffset(target)).toBeUndefined();
  });

  it('splits partitions between two members of a consumer group', async () => {
    const [c1, c2] = [await client(), await client()];
    const m1 = IggyConsumerBuilder.create(c1, 'library', 'books', { kind: 'group', id: 'inventory' })
      .withPollingStrategy({ kind: 'first' })
      .withPollInterval(5)
      .build();
    const m2 = IggyConsumerBuilder.create(c2, 'library', 'books', { kind: 'group', id: 'inventory' })
      .withPollingStrategy({ kind: 'first' })
      .withPollInterval(5)
      .build();
    await m1.init();
    await m2.init();
    // m1 joined alone first: after m2 joined, m1 re-syncs on the poll fence (the re-sync sentinel).
    const seen2 = await take(m2.receive(), 3);
    const seen1 = await take(m1.receive(), 3);
    expect(new Set(seen1.map((s) => s.split(':')[0])).size).toBe(1);
    expect(new Set(seen2.map((s) => s.split(':')[0])).size).toBe(1);
    expect(seen1[0]!.split(':')[0]).not.toBe(seen2[0]!.split(':')[0]);
    expect([...seen1, ...seen2].map((s) => s.split(':')[2]).sort()).toEqual(['m0', 'm1', 'm2', 'm3', 'm4', 'm5']);
    await m1.dispose();
    await m2.dispose();
  });

  it("waits the poll interval after an empty poll on the client's clock, and an abort ends the wait", async () => {
    const clock = new ManualClock();
    const timed = new IggyClient({ host: '127.0.0.1', port: server.port, requestTimeoutMs: 1_000, heartbeatMs: 0, clock });
    await timed.connect();
    clients.push(timed);
    const consumer = IggyConsumerBuilder.create(timed, 'library', 'books', { kind: 'consumer', id: 'idle' })
      .withPollingStrategy({ kind: 'offset', value: 100n }) // past the end: every poll is empty
      .withPollInterval(250)
      .build();
    await consumer.init();
    const stop = new AbortController();
    const loop = consumer.receive(stop.signal).next();
    for (let i = 0; i < 200 && clock.pending === 0; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(clock.pending).toBe(1);
    expect(clock.nextWake).toBe(clock.now() + 250);
    const polls = server.seen.filter((request) => request.code === 100).length;
    await clock.advance(250);
    for (let i = 0; i < 200 && clock.pending === 0; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(server.seen.filter((request) => request.code === 100).length).toBe(polls + 1); // one poll per interval, no hot loop
    stop.abort();
    expect(await loop).toEqual({ done: true, value: undefined });
  });

  it('polls ahead: a loop that breaks off drops the poll sent ahead, and the next receive() reads its messages; return() and throw() end the loop', async () => {
    const c = await client();
    const consumer = IggyConsumerBuilder.create(c, 'library', 'books', { kind: 'consumer', id: 'ahead' })
      .withPollingStrategy({ kind: 'first' })
      .withBatchSize(2)
      .withAutoCommit('disabled')
      .withPollInterval(5)
      .build();
    await consumer.init();
    const polls = (): number => server.seen.filter((request) => request.code === 100).length;
    expect(await take(consumer.receive(), 2)).toEqual(['0:0:m0', '0:1:m2']);
    expect(polls()).toBe(2); // partition 0, and partition 1 sent ahead while m0 and m2 were handled
    // The poll sent ahead (partition 1) was dropped and its cursor went back: m1 and m3 are not skipped.
    expect(await take(consumer.receive(), 4)).toEqual(['0:2:m4', '1:0:m1', '1:1:m3', '1:2:m5']);
    const iterator = consumer.receive();
    await expect(iterator.throw(new Error('stop'))).rejects.toThrow('stop');
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
    const single = IggyConsumerBuilder.create(c, 'library', 'books', { kind: 'consumer', id: 'plain' })
      .withPollingStrategy({ kind: 'first' })
      .withBatchSize(2)
      .withAutoCommit('disabled')
      .withPollAhead(false)
      .build();
    await single.init();
    const before = polls();
    expect(await take(single.receive(), 1)).toEqual(['0:0:m0']);
    expect(polls()).toBe(before + 1); // no poll ahead
  });
});
