// Header counts on a real broker. kafkajs decodes a record's headers in quadratic time before any
// code of ours sees the record (docs/kafka.md, "Header limits"), so the transport caps them
// (`maxHeaders`): a publisher refuses to write a record over the cap, with an error naming the count
// and the cap, and nothing of its batch is written; a kafkajs-driver consumer hands a record over the
// cap on as undecodable (parked at once under a dead-letter policy) and says so in its log. The
// over-cap records are written by a plain kafkajs producer, a writer keiyaku does not control.
import { randomUUID } from 'node:crypto';
import { TooManyHeadersError } from '@keiyaku/kafka';
import { createMessaging, InMemoryDeadLetterStore, type Logger, type Messaging, PublishError } from '@keiyaku/runtime';
import { InMemoryTransport } from '@keiyaku/runtime/memory';
import { Kafka, logLevel } from 'kafkajs';
import { afterEach, describe, expect, it } from 'vitest';
import { BookBorrowed, BookIntegrationEvents } from '../../generated/index.js';
import { waitFor } from '../helpers.js';
import { kafkaBrokers, kafkaSkipReason, onlyOnDriver, testTransport } from './kafka-env.js';
import { record } from './kafka-env-read.js';

const run = kafkaBrokers === '' ? describe.skip : describe;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const LIMIT = 20;
/** `n` headers besides `base`: `x-0` … `x-(n-1)`. */
const withExtra = (base: Record<string, string>, n: number): Record<string, string> => {
  const headers = { ...base };
  for (let i = 0; i < n; i++) headers[`x-${i}`] = `v${i}`;
  return headers;
};
const loan = (copyId: string) =>
  BookBorrowed.create({
    bookId: '6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b',
    copyId,
    borrower: { memberId: 'M-1001' },
    borrowedAt: '2026-11-02T10:15:00Z',
    dueAt: '2026-11-23T10:15:00Z',
    channel: 'desk',
  });

run(`Kafka header limits${kafkaSkipReason ? ` (${kafkaSkipReason})` : ''}`, () => {
  it('refuses to publish a record over maxHeaders, naming the count and the limit; nothing of its batch is written', async () => {
    const transport = testTransport({ maxHeaders: LIMIT });
    cleanups.push(() => transport.close());
    const address = `headers.${randomUUID().slice(0, 8)}`;
    await transport.provision(address, { kafka: { partitions: 1 } });
    const producer = transport.producer();
    const atLimit = { ...record(address, 'at-limit'), headers: withExtra({ ce_id: 'at-limit' }, LIMIT - 1) };
    const over = { ...record(address, 'over'), headers: withExtra({ ce_id: 'over' }, LIMIT) };

    const refused = await producer.send([record(address, 'before'), over]).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(TooManyHeadersError);
    expect(refused).toMatchObject({ code: 'too_many_headers', retriable: false, count: LIMIT + 1, limit: LIMIT, address });
    expect((refused as Error).message).toBe(
      `a record for ${address} has ${LIMIT + 1} headers, over the limit of ${LIMIT} (the Kafka transport's maxHeaders option); it was not written`,
    );
    // In a transaction too: refused before anything is sent, and the transaction stays usable.
    const transactional = transport.transactionalProducer('headers');
    cleanups.push(() => transactional.close());
    const tx = await transactional.begin();
    await expect(tx.send([over])).rejects.toBeInstanceOf(TooManyHeadersError);
    await tx.send([atLimit]);
    await tx.commit();
    await producer.send([record(address, 'end')]);
    // Only the record at the limit was written (with all its headers), not the batch with the refused one.
    const consumer = transport.consumer({ address, groupId: 'headers.check', batchSize: 10 });
    cleanups.push(() => consumer.close());
    const read: { value: string; headers: number }[] = [];
    await waitFor(
      async () => {
        for (const r of await consumer.poll(AbortSignal.timeout(1_000)))
          read.push({ value: new TextDecoder().decode(r.value), headers: Object.keys(r.headers).length });
        return read.some((r) => r.value === 'end');
      },
      () => `the end marker is read (read ${JSON.stringify(read)})`,
      30_000,
    );
    expect(read).toEqual([
      { value: 'at-limit', headers: LIMIT },
      { value: 'end', headers: 1 },
    ]);
  });

  it('a publisher tells its caller at once (one attempt, not retriable), in either content mode', async () => {
    for (const contentMode of ['binary', 'structured'] as const) {
      // Binary mode writes the six CloudEvents attributes as headers; structured mode puts them in the value.
      const transport = testTransport({ maxHeaders: LIMIT, contentMode });
      const messaging = createMessaging({ transport, logger: silent });
      cleanups.push(() => messaging.stop());
      const publisher = messaging.publisher(BookIntegrationEvents, { maxAttempts: 5, lingerMs: 0 });
      await publisher.publish(loan('C-fits'), { headers: withExtra({}, LIMIT - 8) });
      const failed = await publisher.publish(loan('C-over'), { headers: withExtra({}, LIMIT) }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failed, contentMode).toBeInstanceOf(PublishError);
      expect(failed, contentMode).toMatchObject({ attempts: 1, retriable: false });
      expect((failed as PublishError).cause, contentMode).toBeInstanceOf(TooManyHeadersError);
      expect((failed as Error).message, contentMode).toMatch(new RegExp(`has \\d+ headers, over the limit of ${LIMIT}`));
    }
  });

  it('refuses a maxHeaders that is not a positive whole number', () => {
    for (const maxHeaders of [0, -1, 1.5, Number.NaN])
      expect(() => testTransport({ maxHeaders })).toThrow(expect.objectContaining({ code: 'invalid_max_headers' }));
  });

  const kafkajsOnly = onlyOnDriver('kafkajs', 'delivering a record over maxHeaders as undecodable is the kafkajs consumer’s guard');
  it.skipIf(kafkajsOnly !== '')(
    `a kafkajs consumer parks a record over maxHeaders at once, logs it, and goes on${kafkajsOnly ? ` (${kafkajsOnly})` : ''}`,
    async () => {
      const warnings: { message: string; fields: Readonly<Record<string, unknown>> }[] = [];
      const logger: Logger = { ...silent, warn: (message, fields = {}) => void warnings.push({ message, fields }) };
      const transport = testTransport({ maxHeaders: LIMIT, logger });
      const deadLetters = new InMemoryDeadLetterStore();
      const host: Messaging = createMessaging({ logger, transport, deadLetters });
      cleanups.push(() => host.stop());
      const handled: string[] = [];
      host.subscribe(
        BookIntegrationEvents,
        { groupId: 'inventory.headers', handle: (m) => void handled.push(m.copyId) },
        { deadLetter: { maxRetries: 5 } }, // a failing handler would be retried for minutes; an undecodable record is parked at once
      );
      await host.start();
      const topic = transport.topic(BookIntegrationEvents.address);
      // A writer keiyaku does not control: a valid event with 30 headers too many, then a valid one.
      const raw = new Kafka({ brokers: kafkaBrokers.split(','), clientId: 'keiyaku-tests-raw', logLevel: logLevel.NOTHING }).producer();
      await raw.connect();
      cleanups.push(() => raw.disconnect());
      // The records as keiyaku writes them (binary mode: six CloudEvents headers), taken from a memory transport.
      const memory = new InMemoryTransport();
      const source = createMessaging({ transport: memory, logger: silent });
      await source.publisher(BookIntegrationEvents, { lingerMs: 0 }).publishMany([loan('C-flooded'), loan('C-after')]);
      await source.stop();
      const [flooded, after] = memory.published(BookIntegrationEvents).map((p) => p.record);
      const floodedValue = Buffer.from(flooded!.value);
      await raw.send({
        topic,
        acks: -1,
        messages: [
          { key: 'k', value: floodedValue, headers: withExtra(flooded!.headers, LIMIT + 10) },
          { key: 'k', value: Buffer.from(after!.value), headers: { ...after!.headers } },
        ],
      });
      await waitFor(() => handled.includes('C-after'), 'the record after the flooded one is handled', 60_000);
      expect(handled).toEqual(['C-after']);
      const parked = await deadLetters.list();
      expect(parked).toHaveLength(1);
      expect(parked[0]).toMatchObject({ topic, attempts: 1, headers: {}, error: { name: 'ContractDecodeError' } });
      expect(Buffer.from(parked[0]!.payload).equals(floodedValue)).toBe(true);
      const line = warnings.find((w) => w.message.includes('over the limit'));
      expect(line?.message).toMatch(
        new RegExp(
          `^kafka: record \\d+/0 on ${topic.replaceAll('.', '\\.')} has ${LIMIT + 16} headers, over the limit of ${LIMIT} \\(maxHeaders\\)`,
        ),
      );
      expect(line?.fields).toMatchObject({ headers: LIMIT + 16, maxHeaders: LIMIT, offset: '0' });
    },
    90_000,
  );

  it('reads a record at the default limit (1,000 headers) with every header', async () => {
    const transport = testTransport();
    cleanups.push(() => transport.close());
    const address = `headers.${randomUUID().slice(0, 8)}`;
    await transport.provision(address, { kafka: { partitions: 1 } });
    const producer = transport.producer();
    await producer.send([{ ...record(address, 'full'), headers: withExtra({ ce_id: 'full' }, 999) }, record(address, 'end')]);
    const consumer = transport.consumer({ address, groupId: 'headers.full', batchSize: 10 });
    cleanups.push(() => consumer.close());
    const read: { value: string; headers: Readonly<Record<string, string>> }[] = [];
    await waitFor(
      async () => {
        for (const r of await consumer.poll(AbortSignal.timeout(1_000)))
          read.push({ value: new TextDecoder().decode(r.value), headers: r.headers });
        return read.some((r) => r.value === 'end');
      },
      'the end marker is read',
      30_000,
    );
    expect(read.map((r) => r.value)).toEqual(['full', 'end']);
    expect(Object.keys(read[0]!.headers)).toHaveLength(1_000);
    expect(read[0]!.headers['x-998']).toBe('v998');
  });
});

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };
