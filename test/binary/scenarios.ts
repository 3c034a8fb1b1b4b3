// The binary-payload cases every transport runs (memory, Kafka on both drivers, Iggy): Avro and
// Protobuf messages interleaved on one channel and key arrive byte-exact in per-key order with their
// headers and content types; bytes that are not an encoding of their schema fail to decode as
// `malformed` and are parked, kept exactly; a redrive republishes the parked bytes unchanged.
import { type DeadLetterStore, type Messaging, redrive, type Transport } from '@keiyaku/runtime';
import { expect } from 'vitest';
import { waitFor } from '../helpers.js';
import {
  garbageRecords,
  HOSTILE_BYTES,
  hex,
  type ReadingMessage,
  type readingChannel,
  type ScanMessage,
  sample,
} from './binary-contract.js';

type Channel = ReturnType<typeof readingChannel>;

/** Publishes 30 samples (even: Avro readings, odd: Protobuf scans) with headers and checks what the subscriber got. */
export async function roundTrip(host: Messaging, channel: Channel, timeoutMs = 15_000): Promise<void> {
  const got: { message: ReadingMessage | ScanMessage; correlationId?: string; contentType?: string; note?: string }[] = [];
  host.subscribe(channel, {
    groupId: 'readers',
    handle(message, context) {
      got.push({
        message,
        ...(context.correlationId === undefined ? {} : { correlationId: context.correlationId }),
        ...(context.headers['content-type'] === undefined ? {} : { contentType: context.headers['content-type'] }),
        ...(context.headers['note'] === undefined ? {} : { note: context.headers['note'] }),
      });
    },
  });
  await host.start();
  const publisher = host.publisher(channel);
  for (let i = 0; i < 30; i++) await publisher.publish(sample(i), { correlationId: `c-${i}`, headers: { note: `n-${i}` } });
  await waitFor(() => got.length === 30, 'all 30 samples arrived', timeoutMs);
  for (const { message, correlationId, contentType, note } of got) {
    expect(hex(message.blob)).toBe(hex(Uint8Array.from([...HOSTILE_BYTES, message.seq])));
    expect(correlationId).toBe(`c-${message.seq}`);
    expect(note).toBe(`n-${message.seq}`);
    expect(contentType).toBe(message.seq % 2 === 0 ? 'application/avro' : 'application/x-protobuf');
  }
  for (let s = 0; s < 3; s++) {
    const order = got.filter((g) => g.message.sensor === `s-${s}`).map((g) => g.message.seq);
    expect(order).toEqual(Array.from({ length: 10 }, (_, k) => s + 3 * k));
  }
}

/**
 * Sends an undecodable Avro and Protobuf record, then scan 7 (its handler fails once) and reading 8:
 * all three failures parked with their bytes; the redriven scan arrives with the same bytes; the
 * undecodable ones stay parked. Returns the redriven parked record's bytes.
 */
export async function parkAndRedrive(
  host: Messaging,
  transport: Transport,
  deadLetters: DeadLetterStore,
  channel: Channel,
  timeoutMs = 15_000,
): Promise<Uint8Array> {
  let failing = true;
  const handled: (ReadingMessage | ScanMessage)[] = [];
  host.subscribe(
    channel,
    {
      groupId: 'readers',
      handle(message) {
        if (failing && message.seq === 7) throw new Error('downstream refused scan 7');
        handled.push(message);
      },
    },
    { deadLetter: { maxRetries: 0 }, retry: { initialMs: 1, maxMs: 1, jitter: 0 } },
  );
  await host.start();
  const garbage = Uint8Array.from([0x02, 0xff, 0x00, 0xc3, 0x28, 0xfe]);
  const producer = transport.producer();
  await producer.send(garbageRecords(channel.address, garbage));
  await producer.close();
  const publisher = host.publisher(channel);
  await publisher.publish(sample(7));
  await publisher.publish(sample(8));
  await waitFor(async () => (await deadLetters.count()) === 3 && handled.length === 1, 'three parked, 8 handled', timeoutMs);
  const parked = await deadLetters.list();
  const badAvro = parked.find((p) => p.headers['ce_id'] === 'bad-avro')!;
  expect(badAvro.error.name).toBe('ContractDecodeError');
  expect(badAvro.error.message).toContain('Reading: payload is not an Avro keiyaku.test.Reading');
  expect(hex(badAvro.payload)).toBe(hex(garbage));
  const badProtobuf = parked.find((p) => p.headers['ce_id'] === 'bad-protobuf')!;
  expect(badProtobuf.error.name).toBe('ContractDecodeError');
  expect(badProtobuf.error.message).toMatch(/^Scan: /);
  expect(hex(badProtobuf.payload)).toBe(hex(garbage));
  const seven = parked.find((p) => p.type === 'Scan' && !p.headers['ce_id']!.startsWith('bad-'))!;
  const sevenBytes = channel.message('Scan')!.encode(sample(7));
  expect(hex(seven.payload)).toBe(hex(sevenBytes));

  failing = false;
  const result = await redrive(seven.id, { transport, deadLetters, channel: () => channel });
  expect(result.removed).toBe(true);
  await waitFor(() => handled.length === 2, 'the redriven scan is handled', timeoutMs);
  expect(handled[1]).toMatchObject({ sensor: 's-1', seq: 7 });
  expect(hex(handled[1]!.blob)).toBe(hex(sample(7).blob));
  // The undecodable records do not decode now either: a redrive refuses them and they stay parked.
  for (const bad of [badAvro, badProtobuf]) {
    await expect(redrive(bad.id, { transport, deadLetters, channel: () => channel })).rejects.toMatchObject({ code: 'redrive_invalid' });
    expect(hex((await deadLetters.get(bad.id))!.payload)).toBe(hex(garbage));
  }
  return sevenBytes;
}
