/**
 * The Schema Registry wire format (Confluent's, which Apicurio's ccompat serdes write too): magic
 * byte 0, the schema id as a 4-byte big-endian integer, for Protobuf the message indexes (a
 * zigzag varint count, then each index as a zigzag varint; `[0]`, the file's first message, as
 * the single byte 0), then the payload as the format encodes it.
 *
 * @see https://docs.confluent.io/platform/current/schema-registry/fundamentals/serdes-develop/index.html#wire-format
 */

/** The first byte of every frame. */
export const MAGIC_BYTE = 0;

/** The frame of one payload as read: schema id, Protobuf message indexes, and where the payload starts. */
export interface Frame {
  readonly schemaId: number;
  /** Protobuf only: the message indexes (`[0]` when written as the single byte 0). */
  readonly messageIndexes?: readonly number[];
  /** The offset of the payload in the framed bytes. */
  readonly offset: number;
}

/** Why bytes are not a frame, in words naming what was found. */
export type FrameProblem = { readonly problem: string };

/** The bytes of the frame's head: magic byte, id and (for Protobuf) the message indexes. */
export function frameHead(schemaId: number, messageIndexes?: readonly number[]): Uint8Array {
  if (!Number.isInteger(schemaId) || schemaId < 0 || schemaId > 0xffffffff)
    throw new RangeError(`schema id ${schemaId} is not a 32-bit id`);
  const indexes = messageIndexes === undefined ? [] : indexBytes(messageIndexes);
  const head = new Uint8Array(5 + indexes.length);
  head[0] = MAGIC_BYTE;
  new DataView(head.buffer).setUint32(1, schemaId, false);
  head.set(indexes, 5);
  return head;
}

/** `payload` framed with `head` (one copy). */
export function framed(head: Uint8Array, payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(head.length + payload.length);
  out.set(head, 0);
  out.set(payload, head.length);
  return out;
}

/** The message indexes as written: `[0]` as the single byte 0, else the count and each index as zigzag varints. */
export function indexBytes(indexes: readonly number[]): number[] {
  if (indexes.length === 1 && indexes[0] === 0) return [0];
  const out: number[] = [];
  writeZigzag(out, indexes.length);
  for (const index of indexes) writeZigzag(out, index);
  return out;
}

function writeZigzag(out: number[], value: number): void {
  if (!Number.isInteger(value) || value < 0 || value > 0x3fffffff) throw new RangeError(`message index ${value} is out of range`);
  let v = value * 2; // zigzag of a non-negative value
  while (v > 0x7f) {
    out.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  out.push(v);
}

/** The id of a framed payload, or what is wrong with it; never throws. */
export function readFrame(bytes: Uint8Array, protobuf: boolean): Frame | FrameProblem {
  if (bytes.length < 5)
    return {
      problem: `the payload is ${bytes.length} byte${bytes.length === 1 ? '' : 's'} long, shorter than a Schema Registry frame (magic byte 0 and a 4-byte schema id)`,
    };
  if (bytes[0] !== MAGIC_BYTE) {
    const first = bytes[0]!;
    const hint = first === 0x7b || first === 0x5b ? ' (it looks like JSON: the producer did not use the registry wire format)' : '';
    return {
      problem: `the payload starts with byte 0x${first.toString(16).padStart(2, '0')}, not the magic byte 0 of a Schema Registry frame${hint}`,
    };
  }
  const schemaId = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(1, false);
  if (!protobuf) return { schemaId, offset: 5 };
  let offset = 5;
  const read = (): number | undefined => {
    let result = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      if (offset >= bytes.length) return undefined;
      const byte = bytes[offset++]!;
      result += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) return result % 2 === 0 ? result / 2 : -(result + 1) / 2;
    }
    return undefined;
  };
  const count = read();
  if (count === undefined || count < 0 || count > 100)
    return { problem: `schema id ${schemaId}: the Protobuf message indexes are damaged (count ${count ?? 'unreadable'})` };
  if (count === 0) return { schemaId, messageIndexes: [0], offset };
  const messageIndexes: number[] = [];
  for (let i = 0; i < count; i++) {
    const index = read();
    if (index === undefined || index < 0)
      return { problem: `schema id ${schemaId}: Protobuf message index ${i + 1} of ${count} is damaged` };
    messageIndexes.push(index);
  }
  return { schemaId, messageIndexes, offset };
}
