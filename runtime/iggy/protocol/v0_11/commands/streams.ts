/**
 * GET_STREAM (200, NonReplicated) and CREATE_STREAM (202 → operation 128).
 *
 *   get request     [stream identifier]
 *   create request  [name_len u8][name][options TLV to the end]
 *   reply           StreamResponse, then topics_count topic headers (get); empty body = missing
 *   StreamResponse  [id u32][created_at u64][topics_count u32][size_bytes u64][messages_count u64]
 *                   [name_len u8][name][options_len u32][options TLV]
 */
import { type Identifier, readName, readTlv, type TlvValue, writeIdentifier, writeName, writeTlv } from '../../primitives.js';
import type { StreamInfo } from '../../version.js';
import { Reader, Writer } from '../../wire.js';

export type { StreamInfo };

export const GET_STREAM = { code: 200, operation: 2 } as const;
export const CREATE_STREAM = { code: 202, operation: 128 } as const;

export function encodeGetStream(stream: Identifier): Uint8Array {
  const w = new Writer(16);
  writeIdentifier(w, stream);
  return w.finish();
}

export function encodeCreateStream(name: string, options: readonly (readonly [TlvValue, TlvValue])[] = []): Uint8Array {
  const w = new Writer(32);
  writeName(w, name, 'stream name');
  writeTlv(w, options);
  return w.finish();
}

export function readStream(r: Reader): StreamInfo {
  const id = r.u32('stream id');
  const createdAt = r.u64('created_at');
  const topicsCount = r.u32('topics_count');
  const sizeBytes = r.u64('size_bytes');
  const messagesCount = r.u64('messages_count');
  const name = readName(r, 'stream name');
  const optionsLength = r.u32('options_len');
  return { id, createdAt, topicsCount, sizeBytes, messagesCount, name, options: readTlv(r, optionsLength) };
}

/** A stream, or undefined for the empty body of a missing stream. Topic headers after it are not decoded here. */
export function decodeStream(payload: Uint8Array): StreamInfo | undefined {
  return payload.length === 0 ? undefined : readStream(new Reader(payload));
}

export function encodeStreamInfo(stream: Omit<StreamInfo, 'options'>): Uint8Array {
  const w = new Writer(64);
  w.u32(stream.id).u64(stream.createdAt).u32(stream.topicsCount).u64(stream.sizeBytes).u64(stream.messagesCount);
  writeName(w, stream.name, 'stream name');
  w.u32(0);
  return w.finish();
}
