/**
 * Factories for the SDK's value kinds, named after the Iggy SDKs' `Kinds` namespace, so
 * that `Identifier.String("orders")` reads `Identifier.string('orders')`:
 *
 * ```ts
 * IggyConsumerBuilder.create(client, Identifier.string('my-stream'), Identifier.string('my-topic'), Consumer.new(1))
 *   .withPollingStrategy(PollingStrategy.next());
 * IggyPublisherBuilder.create(client, Identifier.numeric(0), Identifier.numeric(0)).withPartitioning(Partitioning.messageKey('order-42'));
 * ```
 *
 * Every name is both a type and a set of factories. The values stay the plain objects and
 * literals the client takes (`'my-stream'`, `{ kind: 'next' }`), so the factories only
 * validate and spell; an object literal works wherever a factory does.
 */
import type * as Wire from './protocol/primitives.js';
import { readTlv, tlv, writeTlv } from './protocol/primitives.js';
import { Reader, Writer } from './protocol/wire.js';

const utf8 = new TextEncoder();

function checkName(name: string, what: string): string {
  const length = utf8.encode(name).length;
  if (length < 1 || length > 255) throw new RangeError(`${what} must be 1..255 UTF-8 bytes, got ${length}`);
  return name;
}

function checkU32(value: number, what: string): number {
  if (!Number.isInteger(value) || value < 0 || value > 0xffff_ffff) throw new RangeError(`${what} must be a u32, got ${value}`);
  return value;
}

function toU64(value: bigint | number, what: string): bigint {
  if (typeof value === 'number' && !Number.isSafeInteger(value)) throw new RangeError(`${what} must be an integer, got ${value}`);
  const big = BigInt(value);
  if (big < 0n || big > 0xffff_ffff_ffff_ffffn) throw new RangeError(`${what} must be a u64, got ${value}`);
  return big;
}

/** A stream, topic or consumer group: by numeric id (from 0) or by name. */
export type Identifier = Wire.Identifier;

export const Identifier = {
  /** By name (1..255 UTF-8 bytes). */
  string(name: string): Identifier {
    return checkName(name, 'an identifier name');
  },
  /** By numeric id (a u32). */
  numeric(id: number): Identifier {
    return checkU32(id, 'a numeric identifier');
  },
} as const;

/** Who consumes: a single consumer (its own offsets) or a consumer group (shared offsets, partitions split between members). */
export type Consumer = Wire.Consumer;

export const Consumer = {
  /** A single consumer with this id; it reads every partition it is given and keeps its own offsets. */
  new(id: Identifier): Consumer {
    return { kind: 'consumer', id: typeof id === 'number' ? checkU32(id, 'a consumer id') : checkName(id, 'a consumer name') };
  },
  /** A consumer group, by name or numeric id; the high-level consumer joins it and reads the partitions the server assigns. */
  group(id: Identifier): Consumer {
    return { kind: 'group', id: typeof id === 'number' ? checkU32(id, 'a consumer group id') : checkName(id, 'a consumer group name') };
  },
} as const;

/** Where a sent batch goes. */
export type Partitioning = Wire.Partitioning;

export const Partitioning = {
  /** No explicit partition: balanced over the topic's partitions (round-robin). */
  none(): Partitioning {
    return { kind: 'balanced' };
  },
  /** Exactly this partition. */
  partitionId(id: number): Partitioning {
    return { kind: 'partition', id: checkU32(id, 'a partition id') };
  },
  /** The partition that the key hashes to (XXH32 of its bytes, modulo the partition count): one key, one partition, in order. */
  messageKey(key: string | Uint8Array): Partitioning {
    const length = typeof key === 'string' ? utf8.encode(key).length : key.length;
    if (length < 1 || length > 255) throw new RangeError(`a partitioning key must be 1..255 bytes, got ${length}`);
    return { kind: 'key', key };
  },
} as const;

/** Where a poll starts. The high-level consumer uses it for the first poll of each partition, then continues from where it left off. */
export type PollingStrategy = Wire.PollingStrategy;

export const PollingStrategy = {
  /** After the consumer's stored offset (from the start when none is stored). */
  next(): PollingStrategy {
    return { kind: 'next' };
  },
  /** From the first message of the partition. */
  first(): PollingStrategy {
    return { kind: 'first' };
  },
  /** The last messages of the partition (as many as the batch size). */
  last(): PollingStrategy {
    return { kind: 'last' };
  },
  /** From this offset. */
  offset(value: bigint | number): PollingStrategy {
    return { kind: 'offset', value: toU64(value, 'an offset') };
  },
  /** From the first message appended at or after this time: a `Date`, or a bigint of µs since the epoch. */
  timestamp(value: bigint | Date): PollingStrategy {
    const micros = value instanceof Date ? BigInt(value.getTime()) * 1000n : toU64(value, 'a timestamp');
    if (micros < 0n) throw new RangeError(`a timestamp must not be before the epoch, got ${String(value)}`);
    return { kind: 'timestamp', value: micros };
  },
} as const;

/** User headers as a record of strings; on the wire they are the protocol's TLV block (the raw `headers` bytes of a message). */
export type UserHeaders = Readonly<Record<string, string>>;

export const UserHeaders = {
  /** The header bytes of a message: every key and value 1..255 UTF-8 bytes (RangeError otherwise). */
  encode(headers: UserHeaders): Uint8Array {
    const entries = Object.entries(headers);
    const w = new Writer(64);
    writeTlv(
      w,
      entries.map(([key, value]) => [tlv.string(key), tlv.string(value)] as const),
    );
    return w.finish();
  },
  /** Headers read back from a received message's `headers` bytes; values that are not strings are read as UTF-8. Throws IggyDecodeError on a malformed block. */
  decode(bytes: Uint8Array): Record<string, string> {
    if (bytes.length === 0) return {};
    const decoder = new TextDecoder();
    return Object.fromEntries(readTlv(new Reader(bytes), bytes.length).map(([k, v]) => [decoder.decode(k.value), decoder.decode(v.value)]));
  },
} as const;
