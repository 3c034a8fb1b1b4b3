// CloudEvents structured content mode on a real broker: what a structured transport writes is
// one JSON event per record with `content-type: application/cloudevents+json` beside the contract
// headers (checked with a raw kafkajs consumer); a consumer reads both modes whatever mode it
// writes, so records written in binary mode (every record written before this option) stay
// readable, and switching one side's mode needs no coordinated release.
import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { createMessaging, type Messaging, silentLogger } from 'keiyaku/runtime';
import { afterEach, describe, expect, it } from 'vitest';
import { BookBorrowed, BookIntegrationEvents } from '../../generated/index.js';
import { waitFor } from '../helpers.js';
import { kafkaBrokers, kafkaSkipReason, testTransport } from './kafka-env.js';

const run = kafkaBrokers === '' ? describe.skip : describe;
const hosts: Messaging[] = [];
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.stop();
});

const borrowed = (i: number) =>
  BookBorrowed.create({
    bookId: `6f1c2b8e-3a4d-4e5f-9a0b-${String(i % 5).padStart(12, '0')}`,
    copyId: `C-${i}`,
    borrower: { memberId: 'M-1001', displayName: 'Ada "the first" Lovelace' },
    borrowedAt: '2026-11-02T10:15:00Z',
    dueAt: '2026-11-23T10:15:00Z',
    channel: 'desk',
  });

run(`Kafka structured content mode${kafkaSkipReason ? ` (${kafkaSkipReason})` : ''}`, () => {
  it('writes one JSON event per record beside the contract headers, as a plain Kafka consumer sees it', async () => {
    const transport = testTransport({ contentMode: 'structured' });
    const host = createMessaging({ logger: silentLogger, transport });
    hosts.push(host);
    await host.start();
    await host.publisher(BookIntegrationEvents).publish(borrowed(1), { correlationId: 'corr-1', headers: { correlationId: 'h-1' } });

    const kafka = new Kafka({ brokers: kafkaBrokers.split(','), clientId: 'keiyaku-tests-raw', logLevel: logLevel.NOTHING });
    const consumer = kafka.consumer({ groupId: `raw-${randomUUID()}`, maxWaitTimeInMs: 100 });
    const seen: { headers: Record<string, string>; value: Record<string, unknown>; key: string }[] = [];
    await consumer.connect();
    await consumer.subscribe({ topic: transport.topic(BookIntegrationEvents.address), fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        const headers = Object.fromEntries(Object.entries(message.headers ?? {}).map(([k, v]) => [k, String(v)]));
        seen.push({ headers, value: JSON.parse(message.value!.toString('utf8')), key: message.key!.toString('utf8') });
      },
    });
    try {
      await waitFor(() => seen.length === 1, 'the raw consumer got the record', 30_000);
    } finally {
      await consumer.disconnect();
    }
    const [record] = seen;
    expect(record!.headers).toEqual({ correlationId: 'h-1', 'content-type': 'application/cloudevents+json' });
    expect(record!.key).toBe('6f1c2b8e-3a4d-4e5f-9a0b-000000000001');
    expect(record!.value).toMatchObject({
      specversion: '1.0',
      type: 'BookBorrowed',
      source: 'keiyaku',
      correlationid: 'corr-1',
      data: { copyId: 'C-1', borrower: { displayName: 'Ada "the first" Lovelace' } },
    });
    expect(record!.value['id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('reads both modes in one topic, per-key order kept, whatever mode the reader writes', async () => {
    const namespace = `t${randomUUID().slice(0, 8)}`;
    const binary = testTransport({ namespace });
    const structured = testTransport({ namespace, contentMode: 'structured' });
    const writer = createMessaging({ logger: silentLogger, transport: binary });
    const structuredWriter = createMessaging({ logger: silentLogger, transport: structured });
    hosts.push(writer, structuredWriter);
    const got: Record<string, { copyId: string; correlationId: string | undefined; headers: unknown }[]> = { binary: [], structured: [] };
    for (const [name, host] of [
      ['binary', writer],
      ['structured', structuredWriter],
    ] as const) {
      host.subscribe(BookIntegrationEvents, {
        groupId: `reader.${name}`,
        handle(message, context) {
          got[name]!.push({ copyId: message.copyId, correlationId: context.correlationId, headers: context.headers['correlationId'] });
        },
      });
    }
    await writer.start();
    await structuredWriter.start();
    const fromBinary = writer.publisher(BookIntegrationEvents);
    const fromStructured = structuredWriter.publisher(BookIntegrationEvents);
    for (let i = 0; i < 20; i++) {
      // One book's events alternate between the two writers: order holds per key across modes.
      const publisher = i % 2 === 0 ? fromBinary : fromStructured;
      await publisher.publish(borrowed(i), { correlationId: `c-${i}`, headers: { correlationId: `h-${i}` } });
    }
    await waitFor(() => got['binary']!.length === 20 && got['structured']!.length === 20, 'both readers got all 20', 30_000);
    for (const name of ['binary', 'structured']) {
      const list = got[name]!;
      expect(list.map((m) => m.correlationId).sort()).toEqual(Array.from({ length: 20 }, (_, i) => `c-${i}`).sort());
      expect(list.every((m) => m.headers === `h-${m.copyId.slice(2)}`)).toBe(true);
      for (let b = 0; b < 5; b++) {
        const order = list.filter((m) => Number(m.copyId.slice(2)) % 5 === b).map((m) => Number(m.copyId.slice(2)));
        expect(order).toEqual([...order].sort((x, y) => x - y));
      }
    }
  });
});
