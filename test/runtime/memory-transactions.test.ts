// Transactions of the memory transport, as a `read_committed` reader of Kafka sees them: records
// sent in a transaction appear at its commit (in order, like one send), an abort leaves nothing,
// consumed offsets given to it are committed for their group at the commit, and a second producer
// with the same transactional id fences the first.
import { isProducerFenced, ProducerFencedError } from '@keiyaku/runtime';
import type { OutgoingRecord } from '@keiyaku/runtime/adapter';
import { InMemoryTransport } from '@keiyaku/runtime/memory';
import { describe, expect, it } from 'vitest';

const text = new TextEncoder();
const record = (address: string, value: string, key?: string): OutgoingRecord => ({
  address,
  value: text.encode(value),
  headers: {},
  ...(key === undefined ? {} : { key }),
});
const values = (transport: InMemoryTransport, address: string) =>
  transport.published(address).map((r) => new TextDecoder().decode(r.value));

describe('memory transport transactions', () => {
  it('appends what a transaction sent only at its commit, in order; an abort drops it', async () => {
    const transport = new InMemoryTransport({ defaultPartitions: 1 });
    const producer = transport.transactionalProducer('t-1');
    expect(producer.transactionalId).toBe('t-1');
    const first = await producer.begin();
    await first.send([record('out', 'a'), record('out', 'b')]);
    await first.send([record('out', 'c')]);
    expect(values(transport, 'out')).toEqual([]);
    await first.commit();
    expect(values(transport, 'out')).toEqual(['a', 'b', 'c']);

    const second = await producer.begin();
    await second.send([record('out', 'lost')]);
    await second.abort();
    await second.abort(); // never throws for a transaction already ended
    expect(values(transport, 'out')).toEqual(['a', 'b', 'c']);
    await expect(second.send([record('out', 'late')])).rejects.toMatchObject({ code: 'transaction_ended' });
    await producer.close();
  });

  it('allows one open transaction at a time', async () => {
    const producer = new InMemoryTransport().transactionalProducer('t-one');
    const open = await producer.begin();
    await expect(producer.begin()).rejects.toMatchObject({ code: 'transaction_open' });
    await open.commit();
    await expect(producer.begin()).resolves.toBeDefined();
  });

  it("commits a group's consumed offsets with the transaction, and the consumer reports what is acknowledged and not committed", async () => {
    const transport = new InMemoryTransport({ defaultPartitions: 1 });
    await transport.producer().send([record('in', '0'), record('in', '1'), record('in', '2')]);
    const consumer = transport.consumer({ address: 'in', groupId: 'g', batchSize: 10 });
    const polled = await consumer.poll(new AbortController().signal);
    expect(polled).toHaveLength(3);
    expect(consumer.uncommitted!()).toEqual([]);
    consumer.ack(polled[0]!);
    consumer.ack(polled[1]!);
    const offsets = consumer.uncommitted!();
    expect(offsets).toEqual([{ address: 'in', partition: 0, offset: '2' }]);

    const producer = transport.transactionalProducer('t-offsets');
    const aborted = await producer.begin();
    await aborted.sendOffsets('g', offsets);
    await aborted.abort();
    expect(consumer.positions()[0]).toMatchObject({ committed: '0' });

    const committed = await producer.begin();
    await committed.send([record('out', 'x')]);
    await committed.sendOffsets('g', offsets);
    await committed.commit();
    consumer.committed!(offsets);
    expect(consumer.positions()[0]).toMatchObject({ committed: '2', acknowledged: '2' });
    expect(consumer.uncommitted!()).toEqual([]);
    await consumer.close();
    // A new member of the group starts at the offsets the transaction committed.
    const next = transport.consumer({ address: 'in', groupId: 'g', batchSize: 10 });
    expect((await next.poll(new AbortController().signal)).map((r) => r.offset)).toEqual(['2']);
    await next.close();
  });

  it('fences the first producer of a transactional id when a second one is made: its open transaction is aborted, its later calls fail', async () => {
    const transport = new InMemoryTransport({ defaultPartitions: 1 });
    const zombie = transport.transactionalProducer('t-fenced');
    const open = await zombie.begin();
    await open.send([record('out', 'zombie')]);
    const successor = transport.transactionalProducer('t-fenced');
    const commit = open.commit();
    await expect(commit).rejects.toBeInstanceOf(ProducerFencedError);
    await expect(commit).rejects.toThrow(/t-fenced was fenced: another instance with the same transactional id took over/);
    await expect(zombie.begin()).rejects.toSatisfy(isProducerFenced);
    expect(values(transport, 'out')).toEqual([]);

    const live = await successor.begin();
    await live.send([record('out', 'successor')]);
    await live.commit();
    expect(values(transport, 'out')).toEqual(['successor']);
    // Other ids are not touched.
    const other = await transport.transactionalProducer('t-other').begin();
    await other.commit();
  });

  it('keeps the note of the last committed transaction per id: an abort drops its note, a fenced producer commits none', async () => {
    const transport = new InMemoryTransport({ defaultPartitions: 1 });
    const producer = transport.transactionalProducer('t-note');
    expect(await producer.lastNote!()).toBeUndefined();

    const first = await producer.begin();
    await first.send([record('out', 'a')]);
    await first.note!('one');
    expect(await producer.lastNote!()).toBeUndefined(); // not before the commit
    await first.commit();
    expect(await producer.lastNote!()).toBe('one');

    const aborted = await producer.begin();
    await aborted.note!('lost');
    await aborted.abort();
    expect(await producer.lastNote!()).toBe('one');

    const second = await producer.begin();
    await second.note!('two');
    await second.note!('three'); // only the transaction's last note counts
    await second.commit();
    expect(await producer.lastNote!()).toBe('three');

    // A new producer with the id reads the last note; the one it fenced commits no more.
    const open = await producer.begin();
    await open.note!('fenced');
    const next = transport.transactionalProducer('t-note');
    expect(await next.lastNote!()).toBe('three');
    await expect(open.commit()).rejects.toBeInstanceOf(ProducerFencedError);
    await expect(producer.lastNote!()).rejects.toBeInstanceOf(ProducerFencedError);
    expect(await next.lastNote!()).toBe('three');
    expect(await transport.transactionalProducer('t-other').lastNote!()).toBeUndefined();
    await next.close();
  });
});
