// Kafka transactions of the Kafka transport against the real broker: what read_committed and
// read_uncommitted readers see of committed and aborted transactions, offsets committed with a
// transaction, and fencing by a second producer with the same transactional id.

import { randomUUID } from 'node:crypto';
import { ProducerFencedError } from '@keiyaku/kafka';
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers.js';
import { kafkaBrokers, kafkaSkipReason, testTransport } from './kafka-env.js';
import { readUntil, record } from './kafka-env-read.js';

const run = kafkaBrokers === '' ? describe.skip : describe;
const admin =
  kafkaBrokers === ''
    ? undefined
    : new Kafka({ brokers: kafkaBrokers.split(','), clientId: 'keiyaku-tests-admin', logLevel: logLevel.NOTHING }).admin();
afterAll(async () => {
  await admin?.disconnect();
});

async function setUp(partitions = 1) {
  const transport = testTransport();
  const address = `tx.${randomUUID().slice(0, 8)}`;
  await transport.provision(address, { kafka: { partitions } });
  return { transport, address };
}

run(`Kafka transactions on a real broker${kafkaSkipReason ? ` (${kafkaSkipReason})` : ''}`, () => {
  it('a committed transaction is read by read_committed readers; an aborted one only by read_uncommitted readers', async () => {
    const { transport, address } = await setUp();
    try {
      const producer = transport.transactionalProducer('writer');
      const committed = await producer.begin();
      await committed.send([record(address, 'c1'), record(address, 'c2')]);
      await committed.commit();
      const aborted = await producer.begin();
      await aborted.send([record(address, 'a1'), record(address, 'a2')]);
      await aborted.abort();
      await aborted.abort(); // a second abort of an ended transaction is a no-op
      const last = await producer.begin();
      await last.send([record(address, 'end')]);
      await last.commit();

      expect(await readUntil(transport, address, 'end')).toEqual(['c1', 'c2']);
      expect(await readUntil(transport, address, 'end', 'read_uncommitted')).toEqual(['c1', 'c2', 'a1', 'a2']);
      // The transport's isolation option is the default of its consumers.
      const uncommitted = testTransport({ namespace: transport.options.namespace!, isolation: 'read_uncommitted' });
      try {
        expect(await readUntil(uncommitted, address, 'end', undefined)).toEqual(['c1', 'c2', 'a1', 'a2']);
      } finally {
        await uncommitted.close();
      }
      await producer.close();
    } finally {
      await transport.close();
    }
  });

  it('offsets given to a transaction are committed for the (namespaced) group only when it commits', async () => {
    const { transport, address } = await setUp();
    try {
      await admin!.connect();
      const topic = transport.topic(address);
      const offsetOf = async (): Promise<string> =>
        (await admin!.fetchOffsets({ groupId: transport.group('orders'), topics: [topic] }))[0]!.partitions[0]!.offset;
      const producer = transport.transactionalProducer('offsets');

      const aborted = await producer.begin();
      await aborted.send([record(address, 'x')]);
      await aborted.sendOffsets('orders', [{ address, partition: 0, offset: '7' }]);
      await aborted.abort();
      expect(await offsetOf()).toBe('-1');

      const tx = await producer.begin();
      await tx.send([record(address, 'y')]);
      await tx.sendOffsets('orders', [{ address, partition: 0, offset: '5' }]);
      expect(await offsetOf()).toBe('-1');
      await tx.commit();
      // The group coordinator learns of the commit from the transaction's markers, a moment later.
      await waitFor(async () => (await offsetOf()) === '5', 'the offset was committed', 10_000);
      await producer.close();
    } finally {
      await transport.close();
    }
  });

  it('a second producer with the same id fences the first: its commit fails with ProducerFencedError and its records are never read', async () => {
    const { transport, address } = await setUp();
    const other = testTransport({ namespace: transport.options.namespace! });
    try {
      const first = transport.transactionalProducer('instance-0');
      const zombie = await first.begin();
      await zombie.send([record(address, 'zombie-1')]);

      const second = other.transactionalProducer('instance-0');
      const tx = await second.begin(); // fences the first and aborts its open transaction
      await tx.send([record(address, 'fresh-1')]);
      await tx.commit();

      await zombie.send([record(address, 'zombie-2')]).catch(() => undefined);
      const failure = await zombie.commit().then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(ProducerFencedError);
      expect(failure).toMatchObject({ code: 'producer_fenced', retriable: false, transactionalId: 'instance-0' });
      expect(String((failure as Error).message)).toContain('another instance with the same transactional id took over');
      await zombie.abort(); // never throws
      await expect(first.begin()).rejects.toBeInstanceOf(ProducerFencedError);

      const end = await second.begin();
      await end.send([record(address, 'end')]);
      await end.commit();
      expect(await readUntil(transport, address, 'end')).toEqual(['fresh-1']);
      await first.close();
      await second.close();
    } finally {
      await other.close();
      await transport.close();
    }
  });

  it('a consumer hands its acknowledged offsets to a transaction and takes the committed ones back', async () => {
    const { transport, address } = await setUp();
    try {
      await admin!.connect();
      const writer = transport.producer();
      await writer.send(Array.from({ length: 10 }, (_, i) => record(address, `r${i}`)));
      const consumer = transport.consumer({ address, groupId: 'relay', batchSize: 100 });
      const records = [];
      while (records.length < 10) records.push(...(await consumer.poll(AbortSignal.timeout(5_000))));
      for (const r of records.slice(0, 6)) consumer.ack(r);
      const offsets = consumer.uncommitted!();
      expect(offsets).toEqual([{ address, partition: 0, offset: '6' }]);

      const producer = transport.transactionalProducer('relay');
      const tx = await producer.begin();
      await tx.send([record(address, 'out')]);
      await tx.sendOffsets('relay', offsets);
      await tx.commit();
      consumer.committed!(offsets);
      expect(consumer.uncommitted!()).toEqual([]);
      expect(consumer.positions()).toEqual([expect.objectContaining({ partition: 0, committed: '6', acknowledged: '6' })]);
      const brokerOffset = async (): Promise<string> =>
        (await admin!.fetchOffsets({ groupId: transport.group('relay'), topics: [transport.topic(address)] }))[0]!.partitions[0]!.offset;
      await waitFor(async () => (await brokerOffset()) === '6', 'the offset was committed', 10_000);

      // The next plain commit carries only what was acknowledged since.
      for (const r of records.slice(6)) consumer.ack(r);
      expect(consumer.uncommitted!()).toEqual([{ address, partition: 0, offset: '10' }]);
      await consumer.commit();
      expect(await brokerOffset()).toBe('10');
      expect(consumer.uncommitted!()).toEqual([]);
      await consumer.close();
      await writer.close();
      await producer.close();
    } finally {
      await transport.close();
    }
  });

  it('a consumer steps over the commit markers after what it acknowledged: no lag left once all is read', async () => {
    const { transport, address } = await setUp();
    try {
      const producer = transport.transactionalProducer('markers');
      for (let i = 0; i < 3; i++) {
        const tx = await producer.begin();
        await tx.send([record(address, `m${i}a`), record(address, `m${i}b`)]);
        await tx.commit();
      }
      // Three transactions of two records, each followed by its commit marker: offsets 0..8.
      const consumer = transport.consumer({ address, groupId: 'markers', batchSize: 100 });
      const read: string[] = [];
      await waitFor(
        async () => {
          for (const r of await consumer.poll(AbortSignal.timeout(500))) {
            read.push(new TextDecoder().decode(r.value));
            consumer.ack(r);
          }
          return consumer.positions()[0]?.acknowledged === '9';
        },
        () => `the consumer acknowledged past the last marker (read ${read.join(',')}, positions ${JSON.stringify(consumer.positions())})`,
        15_000,
      );
      expect(read).toEqual(['m0a', 'm0b', 'm1a', 'm1b', 'm2a', 'm2b']);
      await consumer.commit();
      expect(consumer.positions()).toEqual([expect.objectContaining({ partition: 0, committed: '9', highWatermark: '9', lag: 0 })]);
      await consumer.close();
      await producer.close();
    } finally {
      await transport.close();
    }
  });

  it('producers are idempotent unless idempotent: false, and publish alike either way', async () => {
    const { transport, address } = await setUp();
    const plain = testTransport({ namespace: transport.options.namespace!, idempotent: false });
    try {
      const idempotent = transport.producer();
      await idempotent.send([record(address, 'i1'), record(address, 'i2')]);
      const notIdempotent = plain.producer();
      await notIdempotent.send([record(address, 'p1'), record(address, 'end')]);
      expect(await readUntil(transport, address, 'end')).toEqual(['i1', 'i2', 'p1']);
    } finally {
      await plain.close();
      await transport.close();
    }
  });

  it('one transaction at a time: begin() while one is open is refused', async () => {
    const { transport } = await setUp();
    try {
      const producer = transport.transactionalProducer('single');
      const tx = await producer.begin();
      await expect(producer.begin()).rejects.toThrow(/already has an open transaction/);
      await tx.abort();
      const next = await producer.begin();
      await next.abort();
      await producer.close();
      await expect(producer.begin()).rejects.toMatchObject({ name: 'ClosedError' });
    } finally {
      await transport.close();
    }
  });

  it('a note committed with a transaction is the last note for a new producer with the same id; an aborted one is not', async () => {
    const { transport, address } = await setUp();
    const other = testTransport({ namespace: transport.options.namespace! });
    try {
      const producer = transport.transactionalProducer('noter');
      expect(await producer.lastNote!()).toBeUndefined();
      const first = await producer.begin();
      await first.send([record(address, 'a')]);
      await first.note!('["1","2"]');
      await first.commit();
      expect(await producer.lastNote!()).toBe('["1","2"]');
      const second = await producer.begin();
      await second.send([record(address, 'b')]);
      await second.note!('["3"]');
      await second.commit();
      const aborted = await producer.begin();
      await aborted.note!('["lost"]');
      await aborted.abort();
      // A transaction another id commits in between does not change this id's note.
      const stranger = other.transactionalProducer('stranger');
      const strange = await stranger.begin();
      await strange.note!('["x"]');
      await strange.commit();
      await stranger.close();

      // A new producer (another client) reads the note after taking the id over.
      const successor = other.transactionalProducer('noter');
      expect(await successor.lastNote!()).toBe('["3"]');
      // It fenced the first producer: that one commits no more, and its note is not read.
      const late = await producer.begin();
      const failure = await late.note!('["late"]')
        .then(() => late.commit())
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      expect(failure).toBeInstanceOf(ProducerFencedError);
      await producer.close();
      expect(await successor.lastNote!()).toBe('["3"]');

      // A transaction left open by a producer that then dies is aborted when the next one takes over.
      const open = await successor.begin();
      await open.note!('["open"]');
      const third = transport.transactionalProducer('noter');
      expect(await third.lastNote!()).toBe('["3"]');
      await successor.close();
      await third.close();
      await admin!.connect();
      const topics = await admin!.fetchTopicMetadata({ topics: [transport.topic('keiyaku.transaction-notes')] });
      expect(topics.topics[0]!.partitions).toHaveLength(1);
    } finally {
      await other.close();
      await transport.close();
    }
  }, 90_000);
});
