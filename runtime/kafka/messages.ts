/**
 * What both Kafka drivers write for a record: its key, its value and its headers in the content
 * mode of its address (binary: the event's attributes as `ce_` headers, the payload as the value;
 * structured: the whole event as the value beside the contract's headers). The drivers differ only
 * in how they hand that to their client.
 */
import { type ContentMode, type OutgoingRecord, toStructured } from '@keiyaku/runtime/adapter';

/** @internal The part of a transport that decides how a record is written. */
export interface MessageSource {
  contentMode(address: string): ContentMode;
}

/** @internal One record as written to Kafka (before the driver encodes it). */
export interface WireMessage {
  readonly key: string | null;
  readonly value: Buffer;
  readonly headers: Readonly<Record<string, string>>;
}

/** @internal A record in the content mode its address is written in. */
export function wireMessage(source: MessageSource, record: OutgoingRecord): WireMessage {
  if (source.contentMode(record.address) === 'structured') {
    const structured = toStructured(record.headers, record.value);
    return { key: record.key ?? null, value: structured.value, headers: structured.headers };
  }
  return {
    key: record.key ?? null,
    // A view of the same bytes, not a copy.
    value: Buffer.from(record.value.buffer, record.value.byteOffset, record.value.byteLength),
    headers: record.headers,
  };
}
