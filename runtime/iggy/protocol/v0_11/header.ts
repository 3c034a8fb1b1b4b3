/**
 * Frames of Iggy's binary protocol 0.11 (VSR): a 256-byte header and an optional body;
 * `size` (u32 at 48) is the whole frame length. The command byte (60) says the shape:
 * 5 Request, 8 Reply, 13 Eviction. Checksums 0..32 are zero on client frames.
 *
 *   0   checksum u128 | 16 checksum_body u128 | 32 cluster u128 | 48 size u32 | 52 view u32
 *   56  release u32   | 60 command u8 | 61 replica u8 | 62..128 reserved
 *   Request  128 client u128 | 144 request_checksum u128 | 160 timestamp u64 | 168 request u64
 *            176 operation u8 | 177 pad | 184 session u64 | 192 user_id u32 | 196 code u32 (NonReplicated) | 200..256 reserved
 *   Reply    128 request_checksum u128 | 144 context u128 | 160 client u128 | 176 op u64 | 184 commit u64
 *            192 timestamp u64 | 200 request u64 | 208 operation u8 | 216 status u32 | 220..256 reserved
 *   Eviction 128 client u128 | 144 server_protocol_version u32 | 148 ..._min u32 | 255 reason u8
 */
import { packVersion } from '../primitives.js';
import type { DecodedFrame, RequestFrame } from '../version.js';
import { IggyDecodeError, Reader, Writer } from '../wire.js';

export type { DecodedFrame, RequestFrame };

/** Protocol 0.11.0, packed: 11264. The server accepts any 0.11.x at login. */
export const VERSION = packVersion(0, 11, 0);

export const HEADER_SIZE = 256;
export const MAX_FRAME_SIZE = 64 * 1024 * 1024;

export const Command = { Request: 5, Reply: 8, Eviction: 13 } as const;

export const Operation = { Register: 1, NonReplicated: 2, Logout: 3 } as const;

export function encodeRequest(frame: RequestFrame): Uint8Array {
  const body = frame.body ?? new Uint8Array(0);
  const head = encodeRequestHead(frame, body.length);
  if (body.length === 0) return head;
  const out = new Uint8Array(head.length + body.length);
  out.set(head);
  out.set(body, head.length);
  return out;
}

/** The 256-byte header of a request whose body (`bodyLength` bytes, sent separately) follows it. */
export function encodeRequestHead(frame: RequestFrame, bodyLength: number): Uint8Array {
  if (frame.client === 0n) throw new RangeError('an Iggy client id must be non-zero');
  const size = HEADER_SIZE + bodyLength;
  if (size > MAX_FRAME_SIZE) throw new RangeError(`frame of ${size} bytes exceeds the 64 MiB limit`);
  const w = new Writer(HEADER_SIZE);
  w.zeros(48).u32(size).u32(0).u32(0).u8(Command.Request).u8(0).zeros(66);
  w.u128(frame.client).u128(0n).u64(0).u64(frame.request).u8(frame.operation).zeros(7).u64(frame.session).u32(0);
  w.u32(frame.operation === Operation.NonReplicated ? (frame.code ?? 0) : 0).zeros(56);
  return w.finish();
}

/** Total frame length announced by a 256-byte header (validated). */
export function frameSize(header: Uint8Array): number {
  if (header.length < HEADER_SIZE) throw new IggyDecodeError(`a frame header is 256 bytes, got ${header.length}`);
  const size = new DataView(header.buffer, header.byteOffset, header.byteLength).getUint32(48, true);
  if (size < HEADER_SIZE || size > MAX_FRAME_SIZE) throw new IggyDecodeError(`frame size ${size} is outside 256..64 MiB`);
  return size;
}

/** Decodes one whole frame (header + body). */
export function decodeFrame(frame: Uint8Array): DecodedFrame {
  const size = frameSize(frame);
  if (frame.length !== size) throw new IggyDecodeError(`frame is ${frame.length} bytes but its header says ${size}`);
  const command = frame[60];
  const r = new Reader(frame, 128);
  if (command === Command.Eviction) {
    const client = r.u128('client');
    const serverProtocolVersion = r.u32('server_protocol_version');
    const serverProtocolVersionMin = r.u32('server_protocol_version_min');
    return { kind: 'eviction', client, reason: frame[255]!, serverProtocolVersion, serverProtocolVersionMin };
  }
  if (command === Command.Reply) {
    const view = new DataView(frame.buffer, frame.byteOffset, frame.byteLength);
    return {
      kind: 'reply',
      client: new Reader(frame, 160).u128('client'),
      request: view.getBigUint64(200, true),
      operation: frame[208]!,
      status: view.getUint32(216, true),
      body: frame.subarray(HEADER_SIZE),
    };
  }
  if (command === Command.Request) {
    const view = new DataView(frame.buffer, frame.byteOffset, frame.byteLength);
    const operation = frame[176]!;
    return {
      kind: 'request',
      frame: {
        client: r.u128('client'),
        request: view.getBigUint64(168, true),
        operation,
        session: view.getBigUint64(184, true),
        ...(operation === Operation.NonReplicated ? { code: view.getUint32(196, true) } : {}),
        body: frame.subarray(HEADER_SIZE),
      },
    };
  }
  throw new IggyDecodeError(`unknown frame command ${command}`);
}

/** Builds a reply frame (used by the protocol test double). */
export function encodeReply(reply: { client: bigint; request: bigint; operation: number; status: number; body?: Uint8Array }): Uint8Array {
  const body = reply.body ?? new Uint8Array(0);
  const w = new Writer(HEADER_SIZE + body.length);
  w.zeros(48)
    .u32(HEADER_SIZE + body.length)
    .u32(0)
    .u32(0)
    .u8(Command.Reply)
    .u8(0)
    .zeros(66);
  w.u128(0n).u128(0n).u128(reply.client).u64(0).u64(0).u64(0).u64(reply.request).u8(reply.operation).zeros(7).u32(reply.status).zeros(36);
  w.bytes(body);
  return w.finish();
}

/** Builds an eviction frame (used by the protocol test double). */
export function encodeEviction(eviction: {
  client: bigint;
  reason: number;
  serverProtocolVersion?: number;
  serverProtocolVersionMin?: number;
}): Uint8Array {
  const w = new Writer(HEADER_SIZE);
  w.zeros(48).u32(HEADER_SIZE).u32(0).u32(0).u8(Command.Eviction).u8(0).zeros(66);
  w.u128(eviction.client)
    .u32(eviction.serverProtocolVersion ?? 0)
    .u32(eviction.serverProtocolVersionMin ?? 0)
    .zeros(103)
    .u8(eviction.reason);
  return w.finish();
}
