/**
 * The CloudEvents envelope every keiyaku transport writes (`@keiyaku/runtime`'s
 * `encodeEnvelope`: `ce_specversion`, `ce_id`, `ce_type`, `ce_source`, `ce_time`,
 * `content-type`, …), carried as Iggy user headers: every header a string header, the partition
 * key in `keiyaku_key`, and `ce_id` (a UUID) as the 128-bit message id. The transport and the
 * generated channels of the high-level SDK both write and read messages this way, so either
 * reads what the other wrote.
 */
import { randomUUID } from 'node:crypto';
import { type IncomingRecord, KeiyakuError } from '@keiyaku/runtime/adapter';
import { IggyDecodeError } from './protocol/wire.js';
import { UserHeaders } from './value-factories.js';

/** The user header that carries the record's partition key. */
export const KEY_HEADER = 'keiyaku_key';

/** The most UTF-8 bytes of an Iggy user header's name and of its value. */
export const MAX_HEADER_BYTES = 255;

/**
 * A header Iggy cannot carry: its name or value is longer than {@link MAX_HEADER_BYTES} UTF-8
 * bytes. Sending the message again cannot help (`retriable: false`), so the publisher fails it
 * at once, before anything is sent.
 */
export class IggyHeaderError extends KeiyakuError {
  override readonly name = 'IggyHeaderError';
  /** The header's name (`keiyaku_key` for the record's partition key); cut to 64 characters when the name itself is too long. */
  readonly header: string;
  /** Which part is too long. */
  readonly part: 'name' | 'value';
  /** Its length in UTF-8 bytes. */
  readonly bytes: number;
  /** The address of the message, when known. */
  readonly address: string | undefined;

  constructor(header: string, part: 'name' | 'value', bytes: number, address?: string) {
    const shown = header.length > 64 ? `${header.slice(0, 64)}…` : header;
    const what = header === KEY_HEADER && part === 'value' ? `the partition key (header ${KEY_HEADER})` : `header ${JSON.stringify(shown)}`;
    super(
      'iggy_header_too_long',
      `Iggy cannot carry ${what}${address === undefined ? '' : ` of a message to ${address}`}: its ${part} is ${bytes} UTF-8 bytes, at most ${MAX_HEADER_BYTES} are allowed; shorten it (or carry the value in the payload)`,
      { retriable: false },
    );
    this.header = shown;
    this.part = part;
    this.bytes = bytes;
    this.address = address;
  }
}

/** UTF-8 length of `text` when it may be over the limit (a string of at most 85 UTF-16 units is at most 255 bytes). */
function overLimit(text: string): number | undefined {
  if (text.length * 3 <= MAX_HEADER_BYTES) return undefined;
  const bytes = Buffer.byteLength(text, 'utf8');
  return bytes > MAX_HEADER_BYTES ? bytes : undefined;
}

/**
 * The record's headers (empty values left out) and its key, as Iggy user headers; undefined when
 * there are none. Throws {@link IggyHeaderError} when a name or value is over 255 UTF-8 bytes.
 */
export function encodeHeaders(
  headers: Readonly<Record<string, string>>,
  key: string | undefined,
  address?: string,
): Uint8Array | undefined {
  const entries = Object.entries(headers).filter(([, v]) => v.length > 0);
  if (key !== undefined && key.length > 0) entries.push([KEY_HEADER, key]);
  for (const [name, value] of entries) {
    const nameBytes = overLimit(name);
    if (nameBytes !== undefined) throw new IggyHeaderError(name, 'name', nameBytes, address);
    const valueBytes = overLimit(value);
    if (valueBytes !== undefined) throw new IggyHeaderError(name, 'value', valueBytes, address);
  }
  return entries.length === 0 ? undefined : UserHeaders.encode(Object.fromEntries(entries));
}

/** A 128-bit Iggy message id from a UUID string (the keiyaku event id). */
export function messageIdFromUuid(uuid: string): bigint {
  const hex = uuid.replace(/-/g, '');
  if (!/^[0-9a-f]{32}$/i.test(hex)) throw new RangeError(`not a UUID: ${uuid}`);
  return BigInt(`0x${hex}`);
}

/** The message id of an envelope: its `ce_id` when that is a UUID, a random one otherwise. */
export function messageIdOf(ceId: string | undefined): bigint {
  try {
    return messageIdFromUuid(ceId ?? randomUUID());
  } catch {
    return messageIdFromUuid(randomUUID());
  }
}

/**
 * @internal A polled Iggy message as a transport record: its user headers (the key in
 * `keiyaku_key`) as string headers. A malformed header block leaves the record without
 * headers: it then fails to decode (no `ce_type`) and is blocked or parked like any
 * undecodable record, instead of failing the whole poll.
 */
export function recordFromIggy(
  m: { readonly offset: bigint; readonly timestamp: bigint; readonly payload: Uint8Array; readonly headers: Uint8Array },
  address: string,
  partition: number,
): IncomingRecord {
  let headers: Record<string, string>;
  try {
    headers = UserHeaders.decode(m.headers);
  } catch (error) {
    if (!(error instanceof IggyDecodeError)) throw error;
    headers = {};
  }
  const key = headers[KEY_HEADER];
  delete headers[KEY_HEADER];
  return {
    address,
    partition,
    offset: String(m.offset),
    timestamp: Number(m.timestamp / 1000n),
    headers,
    value: new Uint8Array(m.payload),
    ...(key === undefined ? {} : { key }),
  };
}
