/**
 * Every decoder that reads bytes from the network or a store, as fuzz targets: each takes
 * arbitrary bytes and must end in a value or a typed error (a KeiyakuError), never another
 * throw, a hang, an unbounded allocation or a change to a built-in prototype.
 */

import { BookBorrowed, BookIntegrationEvents, BookReturned, DueDateReminder, MemberNotifications } from '../../generated/index.js';
import { type AnyChannel, isKeiyakuError } from '../../runtime/codegen-v1/index.js';
import { openEnvelope } from '../../runtime/core/envelope.js';
import { STRUCTURED_CONTENT_TYPE, toStructured } from '../../runtime/core/structured.js';
import type { IncomingRecord } from '../../runtime/core/transport.js';
import { tlv, writeTlv } from '../../runtime/iggy/protocol/primitives.js';
import { encodeGroupDetails, encodeSync } from '../../runtime/iggy/protocol/v0_11/commands/groups.js';
import { encodeLoginReply } from '../../runtime/iggy/protocol/v0_11/commands/login-register.js';
import { encodeBatch } from '../../runtime/iggy/protocol/v0_11/commands/messages.js';
import { encodeStreamInfo } from '../../runtime/iggy/protocol/v0_11/commands/streams.js';
import { encodeTopicInfo } from '../../runtime/iggy/protocol/v0_11/commands/topics.js';
import { encodeEviction, encodeReply } from '../../runtime/iggy/protocol/v0_11/header.js';
import { protocol_0_11 } from '../../runtime/iggy/protocol/v0_11/index.js';
import { Writer } from '../../runtime/iggy/protocol/wire.js';
import { recordFromIggy } from '../../runtime/iggy/transport.js';
import { UserHeaders } from '../../runtime/iggy/value-factories.js';
import { recordFromKafka } from '../../runtime/kafka/transport.js';
import { parkedFromRow } from '../../runtime/sqlite/dead-letters.js';

export interface FuzzTarget {
  readonly name: string;
  /** Valid inputs that mutations start from. */
  readonly seeds: readonly Uint8Array[];
  /** Decodes `bytes`; returns the value or throws. */
  run(bytes: Uint8Array): unknown;
}

/** A throw that is acceptable: a typed keiyaku error. */
export function isTypedError(error: unknown): boolean {
  return isKeiyakuError(error);
}

const utf8 = new TextEncoder();
const latin1 = new TextDecoder('latin1');
const text = (s: string): Uint8Array => utf8.encode(s);

/** Splits bytes into header pairs: `name=value` lines (names may be `__proto__`, `constructor`, ...). */
function headerPairs(bytes: Uint8Array): [string, string][] {
  return latin1
    .decode(bytes)
    .split('\n')
    .map((line) => {
      const at = line.indexOf('=');
      return (at < 0 ? [line, ''] : [line.slice(0, at), line.slice(at + 1)]) as [string, string];
    });
}

const validBorrowed = BookBorrowed.create({
  bookId: '6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b',
  copyId: 'C-0042',
  borrower: { memberId: 'M-1001', displayName: 'Ada' },
  borrowedAt: '2026-11-02T10:15:00Z',
  dueAt: '2026-11-23T10:15:00Z',
  channel: 'desk',
});
const validReturned = BookReturned.create({
  bookId: '6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b',
  copyId: 'C-0042',
  memberId: 'M-1001',
  returnedAt: '2026-11-20T10:15:00Z',
  condition: 'worn',
  lateFee: { amount: 2.5, currency: 'EUR' },
});
const validReminder = DueDateReminder.create({
  memberId: 'M-1001',
  loans: [{ bookId: '6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b', title: 'Dune', dueAt: '2026-11-23T10:15:00Z' }],
});
const payloadSeeds = [
  BookBorrowed.encode(validBorrowed),
  BookReturned.encode(validReturned),
  DueDateReminder.encode(validReminder),
  text('{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}'),
  text('[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]'),
];
const envelopeSeed = text(
  'ce_type=BookBorrowed\nce_id=0b7e\nce_time=2026-11-02T10:15:00Z\nce_specversion=1.0\ncorrelationId=c-1\n__proto__=x\nconstructor=y',
);

/** Bytes → an incoming record: the first line-separated block are the headers, the rest the value. */
function memoryRecord(bytes: Uint8Array): IncomingRecord {
  const split = bytes.indexOf(0);
  const head = split < 0 ? bytes : bytes.subarray(0, split);
  const headers: Record<string, string> = {};
  for (const [name, value] of headerPairs(head))
    Object.defineProperty(headers, name, { value, enumerable: true, writable: true, configurable: true });
  return {
    address: 'fuzz',
    partition: 0,
    offset: '0',
    timestamp: 0,
    headers,
    value: split < 0 ? new Uint8Array() : bytes.subarray(split + 1),
  };
}

function open(channel: AnyChannel, record: IncomingRecord): unknown {
  const opened = openEnvelope(channel, record);
  if (!opened.decoded.ok && !isTypedError(opened.decoded.error)) throw opened.decoded.error;
  return opened;
}

function kafkaMessage(bytes: Uint8Array) {
  const split = bytes.indexOf(0);
  const head = split < 0 ? bytes : bytes.subarray(0, split);
  const headers: Record<string, Buffer | string | (Buffer | string)[] | undefined> = {};
  headerPairs(head).forEach(([name, value], i) => {
    const buffer = Buffer.from(value, 'latin1');
    const as = i % 4 === 0 ? buffer : i % 4 === 1 ? value : i % 4 === 2 ? [buffer, value] : undefined;
    Object.defineProperty(headers, name, { value: as, enumerable: true, writable: true, configurable: true });
  });
  const value = split < 0 ? null : Buffer.from(bytes.subarray(split + 1));
  return { offset: '7', timestamp: '1700000000000', key: bytes.length % 3 === 0 ? null : Buffer.from(head.subarray(0, 8)), value, headers };
}

const userHeaderSeed = (() => {
  const w = new Writer(64);
  writeTlv(w, [
    [tlv.string('ce_type'), tlv.string('BookBorrowed')],
    [tlv.string('keiyaku_key'), tlv.string('k-1')],
    [tlv.string('__proto__'), tlv.string('x')],
  ]);
  return w.finish().slice();
})();

const batchSeed = encodeBatch([
  { id: 1n, payload: BookBorrowed.encode(validBorrowed), headers: userHeaderSeed, originTimestamp: 1_700_000_000_000_000n },
  { id: 2n, payload: text('{}'), originTimestamp: 1_700_000_000_000_001n },
]).slice();
/** A poll reply: partition, current offset, count, then the batch. */
const pollSeed = (() => {
  const w = new Writer(64);
  w.u32(1).u64(10n).u32(2).bytes(batchSeed);
  return w.finish().slice();
})();
const frameSeeds = [
  encodeReply({ client: 1n, request: 2n, operation: 2, status: 0, body: pollSeed }),
  encodeReply({ client: 1n, request: 2n, operation: 64, status: 0, body: text('result') }),
  encodeReply({ client: 1n, request: 2n, operation: 2, status: 3 }),
  encodeEviction({ client: 1n, reason: 1 }),
].map((f) => f.slice());

const commandSeeds: Record<string, Uint8Array[]> = {
  login: [encodeLoginReply({ userId: 1, session: 2n, serverProtocolVersion: 11264, serverVersion: '0.11.0' }).slice()],
  getStream: [encodeStreamInfo({ id: 1, name: 'library', createdAt: 1n, topicsCount: 1, sizeBytes: 0n, messagesCount: 0n }).slice()],
  getTopic: [encodeTopicInfo({ id: 1, name: 'events', partitions: [{ id: 0, currentOffset: 5n, messagesCount: 6n }] }).slice()],
  pollMessages: [pollSeed],
  getConsumerGroup: [encodeGroupDetails({ id: 1, partitionsCount: 3, name: 'g', members: [{ id: 1, partitions: [0, 1, 2] }] }).slice()],
  syncConsumerGroup: [encodeSync({ generation: 1n, partitions: [0, 1] }).slice()],
};

/** One random SQLite value per column, from the bytes: text, integer, real, blob or null. */
function sqliteRow(bytes: Uint8Array): Record<string, unknown> {
  const columns = [
    'id',
    'channel',
    'address',
    'group_id',
    'type',
    'payload',
    'headers',
    'record_key',
    'partition',
    'record_offset',
    'error_name',
    'error_message',
    'error_stack',
    'attempts',
    'first_failure_at',
    'last_failure_at',
    'parked_at',
    'seq',
  ];
  const parts = headerPairs(bytes).map(([, v]) => v);
  const row: Record<string, unknown> = {};
  columns.forEach((name, i) => {
    const raw = parts[i] ?? '';
    const kind = (bytes[i] ?? 0) % 6;
    const value =
      kind === 0
        ? raw
        : kind === 1
          ? Number.parseInt(raw, 10) || raw.length
          : kind === 2
            ? Number.parseFloat(raw)
            : kind === 3
              ? Buffer.from(raw, 'latin1')
              : kind === 4
                ? null
                : ({
                    ok: {
                      id: 'x',
                      channel: 'c',
                      address: 'a',
                      group_id: 'g',
                      type: 't',
                      payload: Buffer.from('{}'),
                      headers: '{"ce_type":"t"}',
                      error_name: 'E',
                      error_message: 'm',
                      attempts: 1,
                      first_failure_at: 0,
                      last_failure_at: 0,
                      parked_at: 0,
                    } as Record<string, unknown>,
                  }.ok[name] ?? raw);
    row[name] = value;
  });
  return row;
}

const structuredSeed = ((): Uint8Array => {
  const headers = { ce_specversion: '1.0', ce_id: 'id-1', ce_type: 'BookBorrowed', ce_source: 's', 'content-type': 'application/json' };
  const value = toStructured(headers, BookBorrowed.encode(validBorrowed)).value;
  return new Uint8Array(value.buffer, value.byteOffset, value.byteLength).slice();
})();

export const targets: readonly FuzzTarget[] = [
  ...[BookBorrowed, BookReturned, DueDateReminder].map((descriptor) => ({
    name: `generated codec ${descriptor.type}.decode`,
    seeds: payloadSeeds,
    run: (bytes: Uint8Array) => {
      const result = descriptor.decode(bytes);
      if (!result.ok && !isTypedError(result.error)) throw result.error;
      return result;
    },
  })),
  {
    name: 'generated channel decode (any type name)',
    seeds: payloadSeeds,
    run: (bytes: Uint8Array) => {
      const types = ['BookBorrowed', 'BookReturned', 'DueDateReminder', '__proto__', 'constructor', 'toString', ''];
      const channel = bytes.length % 2 === 0 ? BookIntegrationEvents : MemberNotifications;
      const result = (channel as AnyChannel).decode(bytes, types[bytes.length % types.length]!);
      if (!result.ok && !isTypedError(result.error)) throw result.error;
      return result;
    },
  },
  {
    name: 'generated headers codec EventHeaders',
    seeds: [envelopeSeed],
    run: (bytes: Uint8Array) => BookBorrowed.headers!.decode(memoryRecord(bytes).headers),
  },
  {
    name: 'memory envelope (headers + payload)',
    seeds: [new Uint8Array([...envelopeSeed, 0, ...payloadSeeds[0]!])],
    run: (bytes: Uint8Array) => open(BookIntegrationEvents as AnyChannel, memoryRecord(bytes)),
  },
  {
    name: 'kafka record and envelope',
    seeds: [new Uint8Array([...envelopeSeed, 0, ...payloadSeeds[0]!])],
    run: (bytes: Uint8Array) => open(BookIntegrationEvents as AnyChannel, recordFromKafka(kafkaMessage(bytes), 'fuzz', 0)),
  },
  {
    name: 'structured CloudEvent (JSON event format) and envelope',
    seeds: [structuredSeed],
    run: (bytes: Uint8Array) =>
      open(BookIntegrationEvents as AnyChannel, {
        address: 'fuzz',
        partition: 0,
        offset: '0',
        timestamp: 0,
        headers: { 'content-type': STRUCTURED_CONTENT_TYPE, correlationId: 'c' },
        value: bytes,
      }),
  },
  {
    name: 'iggy user headers, record and envelope',
    seeds: [userHeaderSeed],
    run: (bytes: Uint8Array) =>
      open(
        BookIntegrationEvents as AnyChannel,
        recordFromIggy({ offset: 1n, timestamp: 1_700_000_000_000_000n, payload: payloadSeeds[0]!, headers: bytes }, 'fuzz', 0),
      ),
  },
  { name: 'iggy UserHeaders.decode', seeds: [userHeaderSeed], run: (bytes: Uint8Array) => UserHeaders.decode(bytes) },
  {
    name: 'iggy frame: frameSize + decodeFrame + payloadOf',
    seeds: frameSeeds,
    run: (bytes: Uint8Array) => {
      if (bytes.length >= protocol_0_11.headerSize) protocol_0_11.frameSize(bytes.subarray(0, protocol_0_11.headerSize));
      const frame = protocol_0_11.decodeFrame(bytes);
      return protocol_0_11.payloadOf(frame, 'fuzz');
    },
  },
  { name: 'iggy login reply', seeds: commandSeeds['login']!, run: (bytes: Uint8Array) => protocol_0_11.login.decode(bytes) },
  ...Object.entries(protocol_0_11.commands).map(([name, command]) => ({
    name: `iggy ${command.name} reply`,
    seeds: commandSeeds[name] ?? [pollSeed],
    run: (bytes: Uint8Array) => (command.decode as (payload: Uint8Array) => unknown)(bytes),
  })),
  { name: 'sqlite dead-letter record reader', seeds: [envelopeSeed], run: (bytes: Uint8Array) => parkedFromRow(sqliteRow(bytes)) },
];
