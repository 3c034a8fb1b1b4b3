// A contract channel whose payloads are binary (Avro), built the way generated code builds one:
// `defineMessage({ …, codec })` and `defineChannel`. The codec is a PayloadCodec over avsc, as
// `@keiyaku/avro` provides it; the payloads carry bytes that are not UTF-8 (0x00, 0xff, a broken
// two-byte sequence), so any path that reads them as text shows itself.
import {
  ContractDecodeError,
  type ContractMessage,
  defineChannel,
  defineMessage,
  type PayloadCodec,
  type ValidationIssue,
} from '@keiyaku/runtime/codegen-v1';
import avro from 'avsc';

export const READING_SCHEMA = {
  type: 'record',
  name: 'Reading',
  namespace: 'keiyaku.test',
  fields: [
    { name: 'sensor', type: 'string' },
    { name: 'seq', type: 'int' },
    { name: 'blob', type: 'bytes' },
  ],
} as const;

export interface Reading {
  readonly sensor: string;
  readonly seq: number;
  readonly blob: Uint8Array;
}

/** Bytes no UTF-8 decoder accepts: NUL, 0xff, 0xfe and a lead byte followed by a non-continuation. */
export const HOSTILE_BYTES = Uint8Array.from([0x00, 0xff, 0xfe, 0xc3, 0x28, 0x00, 0x80]);

/** An Avro PayloadCodec of {@link READING_SCHEMA} (avsc), with the contract's JSON view of its bytes field (hex). */
export function readingCodec(): PayloadCodec {
  const type = avro.Type.forSchema(READING_SCHEMA as unknown as avro.Schema);
  const issues = (value: unknown): ValidationIssue[] => {
    const found: ValidationIssue[] = [];
    type.isValid(value, {
      errorHook: (path: string[]) =>
        found.push({
          pointer: path.map((p) => `/${p}`).join(''),
          path: `$${path.map((p) => `.${p}`).join('')}`,
          keyword: 'type',
          message: 'does not match the Avro schema',
        }),
    });
    return found;
  };
  return {
    format: 'avro',
    contentType: 'application/avro',
    schema: { schemaType: 'AVRO', schema: JSON.stringify(type.schema()), recordName: 'keiyaku.test.Reading' },
    validate: (value) => issues(toAvsc(value)),
    normalize: (value) => {
      const v = value as Reading;
      return { sensor: v.sensor, seq: v.seq, blob: Uint8Array.from(v.blob) };
    },
    encode: (value) => new Uint8Array(type.toBuffer(toAvsc(value))),
    decode(bytes, name) {
      let decoded: { sensor: string; seq: number; blob: Buffer };
      try {
        decoded = type.fromBuffer(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)) as typeof decoded;
      } catch (cause) {
        const reason = cause instanceof Error ? cause.message : String(cause);
        return {
          ok: false,
          error: new ContractDecodeError('malformed', name, `${name}: payload is not Avro of its schema (${reason})`, [], cause),
        };
      }
      return { ok: true, value: { sensor: decoded.sensor, seq: decoded.seq, blob: new Uint8Array(decoded.blob) } };
    },
    toJson: (value) => {
      const v = value as Reading;
      return { sensor: v.sensor, seq: v.seq, blob: Buffer.from(v.blob).toString('hex') };
    },
  };
}

/** avsc takes `bytes` as a Buffer. */
function toAvsc(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  const v = value as Record<string, unknown>;
  return v['blob'] instanceof Uint8Array ? { ...v, blob: Buffer.from(v['blob']) } : v;
}

export type ReadingMessage = ContractMessage<'Reading', Reading>;

export const ReadingMessage = defineMessage<'Reading', Reading, ReadingMessage>({
  type: 'Reading',
  id: 'Reading',
  contentType: 'application/avro',
  schemaHash: 'test',
  codec: readingCodec(),
  keyProperty: 'sensor',
});

/** The channel of readings, on `address`. */
export function readingChannel(address = 'test.readings') {
  return defineChannel<ReadingMessage>({
    id: 'readings',
    address,
    addressTemplate: address,
    parameters: [],
    parameterRules: {},
    messages: [ReadingMessage],
    bindings: { kafka: { partitions: 3 } },
  });
}

/** Reading number `i` of sensor `i % sensors`, its blob the hostile bytes and `i`. */
export function reading(i: number, sensors = 3): ReadingMessage {
  return ReadingMessage.create({ sensor: `s-${i % sensors}`, seq: i, blob: Uint8Array.from([...HOSTILE_BYTES, i & 0xff]) });
}
