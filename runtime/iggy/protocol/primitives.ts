/**
 * Shared encodings (fact sheet §2): names, identifiers, consumers,
 * partitioning, polling strategies, the TLV used by user headers and options blocks, and
 * the packed protocol version. Shared by the protocol generations so far.
 */
import { fromUtf8, IggyDecodeError, type Reader, utf8, type Writer } from './wire.js';

/** A stream, topic or group: by numeric id (from 0) or by name. */
export type Identifier = number | string;

/** `[len u8][UTF-8]`, 1..255 bytes. */
export function writeName(w: Writer, name: string, what = 'name'): void {
  const bytes = utf8.encode(name);
  if (bytes.length < 1 || bytes.length > 255) throw new RangeError(`${what} must be 1..255 UTF-8 bytes, got ${bytes.length}`);
  w.u8(bytes.length).bytes(bytes);
}

export function readName(r: Reader, what = 'name'): string {
  const length = r.u8(`${what} length`);
  return fromUtf8(r.bytes(length, what), what);
}

/** `[kind u8][len u8][value]`: kind 1 = u32 id (len 4), kind 2 = name. */
export function writeIdentifier(w: Writer, id: Identifier): void {
  if (typeof id === 'number') {
    if (!Number.isInteger(id) || id < 0 || id > 0xffff_ffff) throw new RangeError(`numeric identifier must be a u32, got ${id}`);
    w.u8(1).u8(4).u32(id);
    return;
  }
  w.u8(2);
  writeName(w, id, 'identifier');
}

export function readIdentifier(r: Reader): Identifier {
  const kind = r.u8('identifier kind');
  const length = r.u8('identifier length');
  if (kind === 1) {
    if (length !== 4) throw new IggyDecodeError(`numeric identifier has length ${length}, not 4`);
    return r.u32('identifier');
  }
  if (kind === 2) return fromUtf8(r.bytes(length, 'identifier'), 'identifier');
  throw new IggyDecodeError(`unknown identifier kind ${kind}`);
}

export type Consumer = { readonly kind: 'consumer'; readonly id: Identifier } | { readonly kind: 'group'; readonly id: Identifier };

export function writeConsumer(w: Writer, consumer: Consumer): void {
  w.u8(consumer.kind === 'consumer' ? 1 : 2);
  writeIdentifier(w, consumer.id);
}

/** `[flag u8][u32]`: the 4 bytes are sent as zero when absent. */
export function writeOptionalPartition(w: Writer, partition: number | undefined): void {
  w.u8(partition === undefined ? 0 : 1).u32(partition ?? 0);
}

export type Partitioning =
  | { readonly kind: 'balanced' }
  | { readonly kind: 'partition'; readonly id: number }
  | { readonly kind: 'key'; readonly key: Uint8Array | string };

export function writePartitioning(w: Writer, partitioning: Partitioning): void {
  switch (partitioning.kind) {
    case 'balanced':
      w.u8(1).u8(0);
      return;
    case 'partition':
      w.u8(2).u8(4).u32(partitioning.id);
      return;
    case 'key': {
      const key = typeof partitioning.key === 'string' ? utf8.encode(partitioning.key) : partitioning.key;
      if (key.length < 1 || key.length > 255) throw new RangeError(`a partitioning key must be 1..255 bytes, got ${key.length}`);
      w.u8(3).u8(key.length).bytes(key);
    }
  }
}

export type PollingStrategy =
  | { readonly kind: 'offset'; readonly value: bigint }
  | { readonly kind: 'timestamp'; readonly value: bigint }
  | { readonly kind: 'first' }
  | { readonly kind: 'last' }
  | { readonly kind: 'next' };

const POLLING_KIND = { offset: 1, timestamp: 2, first: 3, last: 4, next: 5 } as const;

/** Always 9 bytes: `[kind u8][value u64]`. */
export function writePollingStrategy(w: Writer, strategy: PollingStrategy): void {
  w.u8(POLLING_KIND[strategy.kind]).u64('value' in strategy ? strategy.value : 0n);
}

/** TLV value kinds (§2). */
export const TlvKind = {
  Raw: 1,
  String: 2,
  Bool: 3,
  Int8: 4,
  Int16: 5,
  Int32: 6,
  Int64: 7,
  Int128: 8,
  Uint8: 9,
  Uint16: 10,
  Uint32: 11,
  Uint64: 12,
  Uint128: 13,
  Float32: 14,
  Float64: 15,
} as const;

export interface TlvValue {
  readonly kind: number;
  readonly value: Uint8Array;
}

export const tlv = {
  string: (value: string): TlvValue => ({ kind: TlvKind.String, value: utf8.encode(value) }),
  bool: (value: boolean): TlvValue => ({ kind: TlvKind.Bool, value: new Uint8Array([value ? 1 : 0]) }),
  u64: (value: bigint): TlvValue => {
    const bytes = new Uint8Array(8);
    new DataView(bytes.buffer).setBigUint64(0, value, true);
    return { kind: TlvKind.Uint64, value: bytes };
  },
  u32: (value: number): TlvValue => {
    const bytes = new Uint8Array(4);
    new DataView(bytes.buffer).setUint32(0, value, true);
    return { kind: TlvKind.Uint32, value: bytes };
  },
};

/** Pairs of `[key_kind u8][key_len u32][key][value_kind u8][value_len u32][value]`; every length 1..255. */
export function writeTlv(w: Writer, entries: readonly (readonly [TlvValue, TlvValue])[]): void {
  for (const [key, value] of entries) {
    for (const part of [key, value]) {
      if (part.kind < 1 || part.value.length < 1 || part.value.length > 255)
        throw new RangeError('TLV entries need a non-zero kind and 1..255 bytes');
      w.u8(part.kind).u32(part.value.length).bytes(part.value);
    }
  }
}

export function readTlv(r: Reader, length: number): [TlvValue, TlvValue][] {
  const end = r.offset + length;
  const parts: TlvValue[] = [];
  while (r.offset < end) {
    const kind = r.u8('tlv kind');
    const size = r.u32('tlv length');
    if (kind === 0 || size < 1 || size > 255) throw new IggyDecodeError(`bad TLV entry (kind ${kind}, length ${size})`);
    parts.push({ kind, value: r.bytes(size, 'tlv value') });
  }
  if (r.offset !== end || parts.length % 2 !== 0) throw new IggyDecodeError('TLV block does not end on a key/value boundary');
  const out: [TlvValue, TlvValue][] = [];
  for (let i = 0; i < parts.length; i += 2) out.push([parts[i]!, parts[i + 1]!]);
  return out;
}

/** `major << 20 | minor << 10 | patch`; 0.11.0 = 11264. */
export function packVersion(major: number, minor: number, patch: number): number {
  return ((major << 20) | (minor << 10) | patch) >>> 0;
}

export function unpackVersion(packed: number): string {
  return `${packed >>> 20}.${(packed >>> 10) & 0x3ff}.${packed & 0x3ff}`;
}
