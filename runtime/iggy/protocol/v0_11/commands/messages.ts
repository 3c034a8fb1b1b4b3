/**
 * SEND_MESSAGES (101 → partition op 160) and POLL_MESSAGES (100, NonReplicated), and the
 * batch layout shared by sending, storage and poll replies (fact sheet §3.5–3.7).
 *
 *   send request  [metadata_length u32][stream id][topic id][partitioning][messages_count u32][batch]
 *   send reply    [count u32] then count × [stream_id u32][topic_id u32][partition_id u32][base_offset u64]
 *   batch header  0 partition_id u64 | 8 base_offset u64 | 16 base_timestamp u64 | 24 origin_timestamp u64
 *                 32 batch_length u64 | 40 batch_checksum u64 | 48 message_count u32 | 52..256 zero
 *   frame         0 checksum u64 (XXH3-64 of bytes 8..end) | 8 id u128 | 24 offset_delta u32
 *                 28 timestamp_delta u32 | 32 user_headers_length u32 | 36 payload_length u32 | 40 zero u64
 *                 48 payload, then user headers
 *   batch_checksum = XXH3-64(header[0..40] ++ header[48..52] ++ each frame's 8 checksum bytes)
 *   poll request  [consumer][stream id][topic id][partition flag u8][partition_id u32][strategy 9][count u32][auto_commit u8]
 *   poll reply    [partition_id u32][current_offset u64][messages_count u32] then batch records
 */
import { randomFillSync } from 'node:crypto';
import { xxh3_64 } from '../../checksum.js';
import {
  type Identifier,
  type Partitioning,
  writeConsumer,
  writeIdentifier,
  writeOptionalPartition,
  writePartitioning,
  writePollingStrategy,
} from '../../primitives.js';
import {
  type FrameSlot,
  type InPlaceBatch,
  type OutgoingMessage,
  type PolledMessage,
  type PollReply,
  type PollRequest,
  RESYNC_SENTINEL,
  type SendConfirmation,
} from '../../version.js';
import { IggyDecodeError, Reader, Writer } from '../../wire.js';

export type { FrameSlot, InPlaceBatch, OutgoingMessage, PolledMessage, PollReply, SendConfirmation };
export { RESYNC_SENTINEL };

export const SEND_MESSAGES = { code: 101, operation: 160 } as const;
export const POLL_MESSAGES = { code: 100, operation: 2 } as const;

export const BATCH_HEADER_SIZE = 256;
export const FRAME_HEADER_SIZE = 48;
export const MAX_PAYLOAD = 64_000_000;
export const MAX_USER_HEADERS = 100_000;

/** Refuses a frame whose payload or user headers the server would refuse. */
function checkFrame(payloadLength: number, headersLength: number): void {
  if (payloadLength < 1 || payloadLength > MAX_PAYLOAD)
    throw new RangeError(`payload must be 1..${MAX_PAYLOAD} bytes, got ${payloadLength}`);
  if (headersLength > MAX_USER_HEADERS) throw new RangeError(`user headers exceed ${MAX_USER_HEADERS} bytes`);
}

/** Bytes of the batch of `messages` (header and frames), checking each message's limits. */
function batchLength(messages: readonly OutgoingMessage[]): number {
  if (messages.length === 0) throw new RangeError('a batch needs at least one message');
  let length = BATCH_HEADER_SIZE;
  for (const message of messages) {
    const headers = message.headers?.length ?? 0;
    checkFrame(message.payload.length, headers);
    length += FRAME_HEADER_SIZE + message.payload.length + headers;
  }
  return length;
}

/** The 256-byte batch header's fields, its checksum left 0 (see {@link sealHeader}). */
function writeBatchHeader(w: Writer, originTimestamp: bigint, length: number, count: number): void {
  w.u64(0n).u64(0n).u64(0n).u64(originTimestamp).u64(BigInt(length)).u64(0n).u32(count).zeros(204);
}

/**
 * Writes each frame header of `frames` where it lies in `bytes` (ids minted where missing, the
 * origin offsets `deltas`, else 0) and its checksum over the bytes where they lie. Returns the
 * bytes the batch header's checksum covers, the frames' checksums in place ({@link sealHeader}
 * fills the first 44 bytes).
 */
function sealFrames(bytes: Uint8Array, frames: readonly FrameSlot[], deltas?: readonly number[]): Uint8Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const covered = new Uint8Array(44 + 8 * frames.length);
  const coveredView = new DataView(covered.buffer);
  for (let index = 0; index < frames.length; index++) {
    const slot = frames[index]!;
    const at = slot.at;
    if (slot.id !== undefined && slot.id !== 0n) {
      view.setBigUint64(at + 8, slot.id & 0xffff_ffff_ffff_ffffn, true);
      view.setBigUint64(at + 16, slot.id >> 64n, true);
    } else {
      // A UUIDv4-shaped id, written where it lies (low u64 first, as every u128 on the wire).
      mintIdInto(bytes, at + 8);
    }
    view.setUint32(at + 24, index, true);
    view.setUint32(at + 28, deltas?.[index] ?? 0, true);
    view.setUint32(at + 32, slot.headersLength, true);
    view.setUint32(at + 36, slot.payloadLength, true);
    view.setBigUint64(at + 40, 0n, true);
    const end = at + FRAME_HEADER_SIZE + slot.payloadLength + slot.headersLength;
    const checksum = xxh3_64(bytes.subarray(at + 8, end));
    view.setBigUint64(at, checksum, true);
    coveredView.setBigUint64(44 + 8 * index, checksum, true);
  }
  return covered;
}

/** Sets the checksum of the batch `header` (256 bytes), over its fields and the frames' checksums in `covered`. */
function sealHeader(header: Uint8Array, covered: Uint8Array): void {
  covered.set(header.subarray(0, 40), 0);
  covered.set(header.subarray(48, 52), 40);
  new DataView(header.buffer, header.byteOffset, header.byteLength).setBigUint64(40, xxh3_64(covered), true);
}

/**
 * Writes one batch (header + frames) with its checksums at the end of `w`, in place: each
 * payload is copied once, into the request's own buffer. `length` is {@link batchLength}.
 */
function writeBatch(w: Writer, messages: readonly OutgoingMessage[], length: number): void {
  // biome-ignore lint/complexity/useMathMinMax: bigint values; Math.min does not take them
  const origin = messages.reduce((min, m) => (m.originTimestamp < min ? m.originTimestamp : min), messages[0]!.originTimestamp);
  const start = w.length;
  writeBatchHeader(w, origin, length, messages.length);
  const frames: FrameSlot[] = [];
  const deltas: number[] = [];
  for (const message of messages) {
    const headers = message.headers ?? EMPTY;
    const delta = message.originTimestamp - origin;
    if (delta > 0xffff_ffffn) throw new RangeError('one batch may span at most u32::MAX µs of origin timestamps');
    frames.push({
      at: w.length,
      payloadLength: message.payload.length,
      headersLength: headers.length,
      ...(message.id === undefined ? {} : { id: message.id }),
    });
    deltas.push(Number(delta));
    w.zeros(FRAME_HEADER_SIZE).bytes(message.payload).bytes(headers);
  }
  const bytes = w.finish();
  sealHeader(bytes.subarray(start, start + BATCH_HEADER_SIZE), sealFrames(bytes, frames, deltas));
}

const EMPTY = new Uint8Array(0);

/** Encodes one batch (header + frames) with its checksums. */
export function encodeBatch(messages: readonly OutgoingMessage[]): Uint8Array {
  const length = batchLength(messages);
  const w = new Writer(length);
  writeBatch(w, messages, length);
  return w.finish();
}

export function encodeSendMessages(
  stream: Identifier,
  topic: Identifier,
  partitioning: Partitioning,
  messages: readonly OutgoingMessage[],
): Uint8Array {
  const metadata = new Writer(32);
  writeIdentifier(metadata, stream);
  writeIdentifier(metadata, topic);
  writePartitioning(metadata, partitioning);
  metadata.u32(messages.length);
  const meta = metadata.finish();
  const length = batchLength(messages);
  const w = new Writer(4 + meta.length + length).u32(meta.length).bytes(meta);
  writeBatch(w, messages, length);
  return w.finish();
}

/** Random bytes for minted ids, refilled 4 KiB at a time (one `randomFillSync` per 256 ids, not one per message). */
const randomBlock = new Uint8Array(4096);
let randomAt = randomBlock.length;

function mintIdInto(bytes: Uint8Array, at: number): void {
  if (randomAt + 16 > randomBlock.length) {
    randomFillSync(randomBlock);
    randomAt = 0;
  }
  bytes.set(randomBlock.subarray(randomAt, randomAt + 16), at);
  randomAt += 16;
  bytes[at + 6] = (bytes[at + 6]! & 0x0f) | 0x40;
  bytes[at + 8] = (bytes[at + 8]! & 0x3f) | 0x80;
}

/**
 * Writes every frame header of `batch` into its reserved bytes (ids minted where missing, the
 * checksums computed over the bytes where they lie) and returns the 256-byte batch header. No
 * payload is copied. Sealing twice mints new ids: seal once and keep the header for retries.
 */
export function sealInPlace(batch: InPlaceBatch): Uint8Array {
  const { bytes, frames } = batch;
  if (frames.length === 0) throw new RangeError('a batch needs at least one message');
  let length = BATCH_HEADER_SIZE;
  for (const slot of frames) {
    checkFrame(slot.payloadLength, slot.headersLength);
    length += FRAME_HEADER_SIZE + slot.payloadLength + slot.headersLength;
  }
  const covered = sealFrames(bytes, frames);
  const w = new Writer(BATCH_HEADER_SIZE);
  writeBatchHeader(w, batch.originTimestamp, length, frames.length);
  const header = w.finish();
  sealHeader(header, covered);
  return header;
}

/**
 * SEND_MESSAGES for a sealed in-place batch, as body parts written one after another: the
 * metadata and batch header (a few hundred bytes), then the batch's own buffer — its payloads go
 * to the wire from where they were serialized.
 */
export function encodeSendMessagesInPlace(
  stream: Identifier,
  topic: Identifier,
  partitioning: Partitioning,
  batch: InPlaceBatch,
  sealedHeader: Uint8Array,
): Uint8Array[] {
  const metadata = new Writer(32);
  writeIdentifier(metadata, stream);
  writeIdentifier(metadata, topic);
  writePartitioning(metadata, partitioning);
  metadata.u32(batch.frames.length);
  const meta = metadata.finish();
  const last = batch.frames[batch.frames.length - 1]!;
  const end = last.at + FRAME_HEADER_SIZE + last.payloadLength + last.headersLength;
  const head = new Writer(4 + meta.length + BATCH_HEADER_SIZE).u32(meta.length).bytes(meta).bytes(sealedHeader).finish();
  return [head, batch.bytes.subarray(batch.frames[0]!.at, end)];
}

export function decodeSendReply(payload: Uint8Array): SendConfirmation[] {
  if (payload.length === 0) return [];
  const r = new Reader(payload);
  const count = r.u32('count');
  if (count * 20 > r.remaining) throw new IggyDecodeError(`send reply announces ${count} confirmations in ${r.remaining} bytes`);
  return Array.from({ length: count }, () => ({ streamId: r.u32(), topicId: r.u32(), partitionId: r.u32(), baseOffset: r.u64() }));
}

export function encodePollMessages(request: PollRequest): Uint8Array {
  const w = new Writer(64);
  writeConsumer(w, request.consumer);
  writeIdentifier(w, request.stream);
  writeIdentifier(w, request.topic);
  writeOptionalPartition(w, request.partition);
  writePollingStrategy(w, request.strategy);
  w.u32(request.count).u8(request.autoCommit ? 1 : 0);
  return w.finish();
}

/** Offset deltas below a batch's usual size, as BigInts made once. */
const SMALL_DELTAS: readonly bigint[] = Array.from({ length: 4096 }, (_, i) => BigInt(i));
/** The user headers of a message that has none (read-only: it has no bytes to change). */
const NO_HEADERS = new Uint8Array(0);

/** Walks the batch records of a poll reply by batch_length. */
export function decodePollReply(payload: Uint8Array): PollReply {
  const r = new Reader(payload);
  const view = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
  // Views of payloads and headers are made on the underlying buffer (cheaper than subarray, which looks up a species constructor).
  const arrayBuffer = payload.buffer;
  const base = payload.byteOffset;
  const partitionId = r.u32('partition_id');
  const currentOffset = r.u64('current_offset');
  const count = r.u32('messages_count');
  const messages: PolledMessage[] = [];
  while (r.remaining > 0) {
    const start = r.offset;
    const header = new Reader(payload, start);
    header.u64('partition_id');
    const baseOffset = header.u64('base_offset');
    const baseTimestamp = header.u64('base_timestamp');
    const origin = header.u64('origin_timestamp');
    const batchLength = Number(header.u64('batch_length'));
    header.u64('batch_checksum');
    const messageCount = header.u32('message_count');
    if (batchLength < BATCH_HEADER_SIZE || start + batchLength > payload.length)
      throw new IggyDecodeError(`batch at ${start} claims ${batchLength} bytes, ${payload.length - start} present`);
    // The frames are read straight from the reply (one bounds check per frame header and one per
    // frame body, not one per field); offsets and times are BigInts the API promises, so small
    // deltas come from a table and a zero delta adds nothing.
    const end = start + batchLength;
    let at = start + BATCH_HEADER_SIZE;
    for (let i = 0; i < messageCount; i++) {
      if (at + FRAME_HEADER_SIZE > end)
        throw new IggyDecodeError(
          `truncated: frame ${i} of the batch at ${start} needs ${FRAME_HEADER_SIZE} header bytes at offset ${at - start}, ${end - at} left`,
        );
      const checksum = view.getBigUint64(at, true);
      const id = (view.getBigUint64(at + 16, true) << 64n) | view.getBigUint64(at + 8, true);
      const offsetDelta = view.getUint32(at + 24, true);
      const timestampDelta = view.getUint32(at + 28, true);
      const headersLength = view.getUint32(at + 32, true);
      const payloadLength = view.getUint32(at + 36, true);
      const body = at + FRAME_HEADER_SIZE;
      if (body + payloadLength + headersLength > end)
        throw new IggyDecodeError(
          `truncated: frame ${i} of the batch at ${start} needs ${payloadLength + headersLength} body bytes at offset ${body - start}, ${end - body} left`,
        );
      messages.push({
        offset: offsetDelta < SMALL_DELTAS.length ? baseOffset + SMALL_DELTAS[offsetDelta]! : baseOffset + BigInt(offsetDelta),
        id,
        timestamp: baseTimestamp,
        originTimestamp: timestampDelta === 0 ? origin : origin + BigInt(timestampDelta),
        checksum,
        payload: new Uint8Array(arrayBuffer, base + body, payloadLength),
        headers: headersLength === 0 ? NO_HEADERS : new Uint8Array(arrayBuffer, base + body + payloadLength, headersLength),
      });
      at = body + payloadLength + headersLength;
    }
    r.bytes(batchLength, 'batch');
  }
  if (messages.length !== count) throw new IggyDecodeError(`poll reply announces ${count} messages but carries ${messages.length}`);
  return { partitionId, currentOffset, messages };
}
