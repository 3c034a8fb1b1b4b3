/**
 * Fetched `@platformatic/kafka` records as transport records, straight from the decoded record
 * batch (no intermediate message object): headers decoded as UTF-8 in one pass, linear in their
 * number (names a producer repeats in every record compared, not decoded again) (a repeated header joined with commas, as the kafkajs driver does), the value a view on
 * the fetched bytes (no copy).
 */
import type { IncomingRecord } from '@keiyaku/runtime/adapter';

/** One record of a fetched record batch, as `@platformatic/kafka` decodes it. */
export interface PlatformaticRecordIn {
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers: readonly (readonly [Buffer | null, Buffer | null])[];
}

/**
 * @internal A fetched record as a transport record. `offset` and `timestamp` come from the caller,
 * which derives them once per batch (a batch's first offset and timestamp plus the record's deltas).
 */
export function recordFromPlatformatic(
  record: PlatformaticRecordIn,
  address: string,
  partition: number,
  offset: string,
  timestamp: number,
): IncomingRecord {
  const headers: Record<string, string> = {};
  const raw = record.headers;
  for (let i = 0; i < raw.length; i++) {
    const pair = raw[i]!;
    const name = pair[0] === null ? '' : headerName(pair[0], i);
    const text = pair[1] === null ? '' : pair[1].toString('utf8');
    if (Object.hasOwn(headers, name)) headers[name] = `${headers[name]},${text}`;
    // A header named __proto__ is kept as a plain property (an assignment would set the prototype).
    else if (name === '__proto__')
      Object.defineProperty(headers, name, { value: text, enumerable: true, writable: true, configurable: true });
    else headers[name] = text;
  }
  const value = record.value ?? EMPTY;
  const bytes = new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  const key = record.key;
  return key === null
    ? { address, partition, offset, timestamp, headers, value: bytes }
    : { address, partition, offset, timestamp, headers, value: bytes, key: key.toString('utf8') };
}

const EMPTY = Buffer.alloc(0);

/** How many header positions remember their last name (a CloudEvent in binary mode carries six to ten headers). */
const NAMED_POSITIONS = 16;
/** The last header name decoded at each position, its bytes copied (not a view that would keep a fetch response alive). */
const NAMES: ({ readonly bytes: Buffer; readonly text: string } | undefined)[] = [];

/**
 * The header name in `bytes`, at position `at` of its record. Records of one producer carry the
 * same names in the same order: comparing a few bytes is cheaper than decoding (and allocating)
 * the same string again for every record. Same bytes, same text: nothing else changes.
 */
function headerName(bytes: Buffer, at: number): string {
  if (at >= NAMED_POSITIONS) return bytes.toString('utf8');
  const known = NAMES[at];
  if (known !== undefined && sameBytes(known.bytes, bytes)) return known.text;
  const text = bytes.toString('utf8');
  if (bytes.length <= 64) NAMES[at] = { bytes: Buffer.from(bytes), text };
  return text;
}

function sameBytes(a: Buffer, b: Buffer): boolean {
  const n = a.length;
  if (n !== b.length) return false;
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}
