/**
 * The CloudEvents envelope every keiyaku transport writes (`@keiyaku/runtime`'s
 * `encodeEnvelope`: `ce_specversion`, `ce_id`, `ce_type`, `ce_source`, `ce_time`,
 * `content-type`, …), carried as Iggy user headers: every header a string header, the partition
 * key in `keiyaku_key`, and `ce_id` (a UUID) as the 128-bit message id. The transport and the
 * generated channels of the high-level SDK both write and read messages this way, so either
 * reads what the other wrote.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingRecord } from '@keiyaku/runtime/adapter';
import { IggyDecodeError } from './protocol/wire.js';
import { UserHeaders } from './value-factories.js';

/** The user header that carries the record's partition key. */
export const KEY_HEADER = 'keiyaku_key';

/** The record's headers (empty values left out) and its key, as Iggy user headers; undefined when there are none. */
export function encodeHeaders(headers: Readonly<Record<string, string>>, key: string | undefined): Uint8Array | undefined {
  const entries = Object.entries(headers).filter(([, v]) => v.length > 0);
  if (key !== undefined && key.length > 0) entries.push([KEY_HEADER, key]);
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
