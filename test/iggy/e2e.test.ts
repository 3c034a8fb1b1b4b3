// End to end against a real iggy-server speaking protocol 0.11 (see e2e-env.ts for the
// environment). `npm run test:iggy` runs these with the rest of the Iggy suites. Without an
// address they are skipped, and the reason is printed.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BookIntegrationEventsIggy } from '../../generated/iggy.js';
import type { IggyClient } from '../../runtime/iggy/client.js';
import { IggyConsumerBuilder } from '../../runtime/iggy/consumer.js';
import { messageIdFromUuid } from '../../runtime/iggy/envelope-headers.js';
import { IggyError } from '../../runtime/iggy/protocol/errors.js';
import { packVersion } from '../../runtime/iggy/protocol/primitives.js';
import { protocol_0_11 } from '../../runtime/iggy/protocol/v0_11/index.js';
import { IggyPublisherBuilder } from '../../runtime/iggy/publisher.js';
import { borrowed } from '../books.js';
import { connect, skipReason, text, uniqueName, utf8 } from './e2e-env.js';

if (skipReason) process.stdout.write(`\nIggy end-to-end tests skipped: ${skipReason}\n`);

(skipReason ? describe.skip : describe)(`Iggy end to end${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  const stream = uniqueName('keiyaku-e2e');
  let client: IggyClient;
  beforeAll(async () => {
    client = await connect();
  });
  afterAll(async () => {
    await client?.close();
  });

  it('logs in with protocol 0.11; a wrong password and another protocol version are refused with clear errors', async () => {
    const probe = await connect();
    expect(probe.protocol.label).toBe('0.11');
    await probe.close();
    const wrong = connect({ password: 'not-the-password' });
    await expect(wrong).rejects.toBeInstanceOf(IggyError);
    await expect(wrong).rejects.toMatchObject({ retriable: false });
    const future = connect({ protocol: { ...protocol_0_11, label: '0.12', version: packVersion(0, 12, 0) } });
    await expect(future).rejects.toMatchObject({ status: 14003 });
    await expect(future).rejects.toThrow(/keiyaku speaks 0\.12\.0/);
  });

  it('creates and reads streams and topics; a duplicate name is a typed error, a missing one is undefined', async () => {
    const created = await client.createStream(stream);
    expect(created.name).toBe(stream);
    expect((await client.getStream(stream))?.id).toBe(created.id);
    expect(await client.getStream(uniqueName('missing'))).toBeUndefined();
    await expect(client.createStream(stream)).rejects.toMatchObject({ status: 1012, stream });
    const topic = await client.createTopic(stream, 'orders', 3);
    expect(topic.partitions.map((p) => p.id)).toEqual([0, 1, 2]);
    expect((await client.getTopic(stream, 'orders'))?.partitionsCount).toBe(3);
    expect(await client.getTopic(stream, 'missing')).toBeUndefined();
  });

  it('publishes in the background and consumes in order per partition, ids and headers intact', async () => {
    const ids = Array.from({ length: 30 }, () => randomUUID());
    await using publisher = IggyPublisherBuilder.create(client, stream, 'orders')
      .createIfMissing({ partitions: 3 })
      .withPartitioning({ kind: 'key', key: 'customer-7' })
      .withBackgroundSending({ batchSize: 10 })
      .build();
    await publisher.init();
    await publisher.sendMessages(ids.map((id, i) => ({ id: messageIdFromUuid(id), payload: utf8(`order-${i}`) })));
    await publisher.waitUntilAllSends();
    const consumer = IggyConsumerBuilder.create(client, stream, 'orders', { kind: 'consumer', id: 'e2e-order' })
      .withPollingStrategy({ kind: 'first' })
      .withAutoCommit('disabled')
      .build();
    await consumer.init();
    const seen: { id: bigint; payload: string; partition: number; offset: bigint }[] = [];
    for await (const message of consumer.receive()) {
      seen.push({ id: message.id, payload: text(message.payload), partition: message.partition, offset: message.offset });
      if (seen.length === ids.length) break;
    }
    // One key, one partition: the order of sending, offsets 0..29.
    expect(new Set(seen.map((m) => m.partition)).size).toBe(1);
    expect(seen.map((m) => m.payload)).toEqual(ids.map((_, i) => `order-${i}`));
    expect(seen.map((m) => m.offset)).toEqual(ids.map((_, i) => BigInt(i)));
    expect(seen.map((m) => m.id)).toEqual(ids.map(messageIdFromUuid));
  });

  it('stores, reads and deletes consumer offsets; stored offsets survive a client restart', async () => {
    const partition = (await client.getTopic(stream, 'orders'))!.partitions.find((p) => p.currentOffset > 0n)!.id;
    const first = await connect();
    const a = IggyConsumerBuilder.create(first, stream, 'orders', { kind: 'consumer', id: 'restart' })
      .withPartitions([partition])
      .withPollingStrategy({ kind: 'first' })
      .withBatchSize(1)
      .build();
    await a.init();
    const before: bigint[] = [];
    for await (const m of a.receive()) {
      before.push(m.offset);
      if (before.length === 3) break; // offsets 0 and 1 were stored after their handling; 2 was not
    }
    await first.close();
    const target = { consumer: { kind: 'consumer', id: 'restart' } as const, stream, topic: 'orders', partition };
    expect((await client.getConsumerOffset(target))?.storedOffset).toBe(1n);
    const second = await connect();
    const b = IggyConsumerBuilder.create(second, stream, 'orders', { kind: 'consumer', id: 'restart' })
      .withPartitions([partition])
      .withBatchSize(1)
      .build();
    await b.init();
    for await (const m of b.receive()) {
      expect(m.offset).toBe(before[2]);
      break;
    }
    await b.storeOffset(10n, partition);
    expect((await client.getConsumerOffset(target))?.storedOffset).toBe(10n);
    await b.deleteOffset(partition);
    expect(await client.getConsumerOffset(target)).toBeUndefined();
    await second.close();
  });

  it('a consumer group splits the partitions between two members and delivers each message once', async () => {
    const topic = 'shipments';
    await client.createTopic(stream, topic, 4);
    const members = await Promise.all([connect(), connect()]);
    const consumers = members.map((member) =>
      IggyConsumerBuilder.create(member, stream, topic, { kind: 'group', id: 'dispatchers' })
        .withPollingStrategy({ kind: 'next' })
        .withAutoCommit('after-receive')
        .withPollInterval(20)
        .build(),
    );
    for (const consumer of consumers) await consumer.init();
    await using publisher = IggyPublisherBuilder.create(client, stream, topic).withBackgroundSending({ batchSize: 8 }).build();
    await publisher.init();
    await publisher.sendMessages(Array.from({ length: 40 }, (_, i) => ({ payload: utf8(`shipment-${i}`) })));
    await publisher.waitUntilAllSends();
    const byMember: { payload: string; partition: number }[][] = [[], []];
    const deadline = Date.now() + 30_000;
    const controller = new AbortController();
    await Promise.all(
      consumers.map(async (consumer, i) => {
        for await (const message of consumer.receive(controller.signal)) {
          byMember[i]!.push({ payload: text(message.payload), partition: message.partition });
          if (byMember[0]!.length + byMember[1]!.length >= 40 || Date.now() > deadline) controller.abort();
        }
      }),
    );
    const all = byMember.flat().map((m) => m.payload);
    expect(all).toHaveLength(40);
    expect(new Set(all).size).toBe(40);
    const partitionsOf = (i: number) => new Set(byMember[i]!.map((m) => m.partition));
    expect(partitionsOf(0).size).toBeGreaterThan(0);
    expect(partitionsOf(1).size).toBeGreaterThan(0);
    expect([...partitionsOf(0)].filter((p) => partitionsOf(1).has(p))).toEqual([]);
    expect(new Set([...consumers[0]!.partitions, ...consumers[1]!.partitions])).toEqual(new Set([0, 1, 2, 3]));
    for (const consumer of consumers) await consumer.dispose();
    for (const member of members) await member.close();
  });

  it('rented receive and the generated typed binding round-trip through the server', async () => {
    const copyId = `C-${randomUUID().slice(0, 8)}`;
    const publisher = BookIntegrationEventsIggy.publisher(client, (b) => b.withPartitioning({ kind: 'partition', id: 1 }));
    await publisher.init();
    await publisher.send(borrowed(copyId));
    const { stream: libraryStream, topic } = BookIntegrationEventsIggy.placement;
    const rented = IggyConsumerBuilder.create(client, libraryStream, topic, { kind: 'consumer', id: uniqueName('rented') })
      .withPartitions([1])
      .withPollingStrategy({ kind: 'first' })
      .withAutoCommit('disabled')
      .build();
    await rented.init();
    let raw = '';
    for await (const message of rented.receiveRented()) {
      raw = text(message.payload);
      message.dispose();
      if (raw.includes(copyId)) {
        expect(() => message.payload).toThrow();
        break;
      }
    }
    expect(JSON.parse(raw)).toMatchObject({ copyId });
    const typed = BookIntegrationEventsIggy.consumer(client, { kind: 'consumer', id: uniqueName('typed') }, (b) =>
      b.withPartitions([1]).withPollingStrategy({ kind: 'first' }),
    );
    await typed.init();
    for await (const { result } of BookIntegrationEventsIggy.receive(typed)) {
      if (result.ok && result.value.copyId === copyId) {
        expect(BookIntegrationEventsIggy.channel.typeOf(result.value)).toBe('BookBorrowed');
        break;
      }
    }
  });
});
