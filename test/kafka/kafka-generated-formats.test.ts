// Generated code for Avro and Protobuf payloads on a real broker, on the driver KAFKA_DRIVER picks:
// the committed output of `keiyaku generate` for test/fixtures/avro and test/fixtures/protobuf
// (golden fixtures, type-checked under strict) publishes and consumes its messages; each arrives as
// a contract message of its type whose bytes are the ones sent.
import { createMessaging, type Messaging, silentLogger } from '@keiyaku/runtime';
import { afterEach, describe, expect, it } from 'vitest';
import { OrderPlaced, Orders } from '../fixtures/avro/expected/index.js';
import { BookBorrowed, Books, Condition, Outcome, ShelfAudited } from '../fixtures/protobuf/expected/index.js';
import { waitFor } from '../helpers.js';
import { kafkaBrokers, kafkaDriver, kafkaSkipReason, testTransport } from './kafka-env.js';

const run = kafkaBrokers === '' ? describe.skip : describe;
const hosts: Messaging[] = [];
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.stop();
});

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

run(`generated Avro and Protobuf code on Kafka, ${kafkaDriver} driver${kafkaSkipReason ? ` (${kafkaSkipReason})` : ''}`, () => {
  it('publishes and consumes the generated messages of both formats, byte for byte', async () => {
    const host = createMessaging({ logger: silentLogger, transport: testTransport() });
    hosts.push(host);
    const orders: unknown[] = [];
    const books: unknown[] = [];
    host.subscribe(Orders, { groupId: 'formats.orders', handle: (message) => void orders.push(message) });
    host.subscribe(Books, { groupId: 'formats.books', handle: (message) => void books.push(message) });
    await host.start();

    const placed = OrderPlaced.create({
      orderId: 'o-1',
      customer: '6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b',
      placedAt: new Date('2026-12-02T09:30:00.000Z'),
      lines: [{ sku: 'S-1', quantity: 2, unitPrice: '19.99' }],
      shipTo: { street: '1 Main St', city: 'Lyon', country: new Uint8Array([70, 82]) },
    });
    const borrowed = BookBorrowed.create({
      bookId: 'B-1',
      condition: Condition.WORN,
      items: [{ sku: 'S-1', quantity: 2, notes: [{ text: 'dog-eared' }] }],
      borrower: { case: 'memberId', value: 'M-7' },
      at: { seconds: 1_767_225_600n, nanos: 0 },
      scalars: { fInt64: -5n, fBytes: new Uint8Array([0, 255, 3]) },
    });
    const audited = ShelfAudited.create({ shelfId: 'SH-9', outcome: Outcome.MISSING, findings: [{ sku: 'S-3', delta: -1n }] });
    await host.publisher(Orders).publish(placed);
    await host.publisher(Books).publishMany([borrowed, audited]);
    await waitFor(() => orders.length === 1 && books.length === 2, 'the three messages arrived', 30_000);

    const [order] = orders;
    expect(OrderPlaced.is(order)).toBe(true);
    if (!OrderPlaced.is(order)) return;
    expect(order.placedAt).toEqual(new Date('2026-12-02T09:30:00.000Z'));
    expect(order.lines[0]?.unitPrice).toBe('19.99');
    expect(hex(Orders.encode(order))).toBe(hex(Orders.encode(placed)));

    // Without a key the two may land on two partitions: found by type, not by order.
    const first = books.find((m) => BookBorrowed.is(m));
    const second = books.find((m) => ShelfAudited.is(m));
    expect(BookBorrowed.is(first) && ShelfAudited.is(second)).toBe(true);
    if (!BookBorrowed.is(first) || !ShelfAudited.is(second)) return;
    expect(first.borrower).toEqual({ case: 'memberId', value: 'M-7' });
    expect(first.scalars?.fInt64).toBe(-5n);
    expect(second.findings[0]?.delta).toBe(-1n);
    expect(hex(Books.encode(first))).toBe(hex(Books.encode(borrowed)));
    expect(hex(Books.encode(second))).toBe(hex(Books.encode(audited)));
  });
});
