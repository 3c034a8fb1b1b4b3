// A contract channel whose payloads are binary — an Avro record and a Protobuf message — built the
// way generated code builds one: `defineMessage({ …, codec: avroCodec(…) | protobufCodec(…) })`
// and `defineChannel`. The payloads carry bytes that are not UTF-8 (0x00, 0xff, a broken two-byte
// sequence), so any path that reads them as text shows itself.
import { fileURLToPath } from 'node:url';
import { avroCodec } from '@keiyaku/avro';
import { protobufCodec } from '@keiyaku/protobuf';
import { type ContractMessage, defineChannel, defineMessage } from '@keiyaku/runtime/codegen-v1';
import { compileProtoFile } from '../../generator/formats/protobuf/compile.js';

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

/** test/binary/fixtures/scans.proto compiled with buf, as generated code embeds it (base64 FileDescriptorSet). */
function scansDescriptorSet(): string {
  const dir = fileURLToPath(new URL('./fixtures/', import.meta.url));
  const result = compileProtoFile(dir, 'scans.proto');
  if (!result.ok) throw new Error(`scans.proto does not compile: ${result.errors.map((e) => e.message).join('; ')}`);
  return Buffer.from(result.descriptorSet).toString('base64');
}

export type ReadingMessage = ContractMessage<'Reading', Reading>;

export const ReadingMessage = defineMessage<'Reading', Reading, ReadingMessage>({
  type: 'Reading',
  id: 'Reading',
  contentType: 'application/avro',
  schemaHash: 'test',
  codec: avroCodec(READING_SCHEMA),
  keyProperty: 'sensor',
});

export type ScanMessage = ContractMessage<'Scan', Reading>;

export const ScanMessage = defineMessage<'Scan', Reading, ScanMessage>({
  type: 'Scan',
  id: 'Scan',
  contentType: 'application/x-protobuf',
  schemaHash: 'test',
  codec: protobufCodec(scansDescriptorSet(), 'keiyaku.test.v1.Scan'),
  keyProperty: 'sensor',
});

/** The channel of readings (Avro) and scans (Protobuf), on `address`. */
export function readingChannel(address = 'test.readings') {
  return defineChannel<ReadingMessage | ScanMessage>({
    id: 'readings',
    address,
    addressTemplate: address,
    parameters: [],
    parameterRules: {},
    messages: [ReadingMessage, ScanMessage],
    bindings: { kafka: { partitions: 3 } },
  });
}

/** Reading number `i` of sensor `i % sensors`, its blob the hostile bytes and `i`. */
export function reading(i: number, sensors = 3): ReadingMessage {
  return ReadingMessage.create({ sensor: `s-${i % sensors}`, seq: i, blob: Uint8Array.from([...HOSTILE_BYTES, i & 0xff]) });
}

/** Scan number `i` of sensor `i % sensors` (Protobuf), its blob the hostile bytes and `i`. */
export function scan(i: number, sensors = 3): ScanMessage {
  return ScanMessage.create({ sensor: `s-${i % sensors}`, seq: i, blob: Uint8Array.from([...HOSTILE_BYTES, i & 0xff]) });
}

/** Reading `i` when `i` is even, else scan `i`: both formats interleaved on one channel and key. */
export function sample(i: number, sensors = 3): ReadingMessage | ScanMessage {
  return i % 2 === 0 ? reading(i, sensors) : scan(i, sensors);
}

/** `bytes` as hex, to compare payloads whatever their class (Buffer, Uint8Array) and backing store. */
export function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

/** Records of `garbage` claiming to be a Reading (Avro, `ce_id` bad-avro) and a Scan (Protobuf, bad-protobuf), key s-0. */
export function garbageRecords(address: string, garbage: Uint8Array) {
  return [
    { type: 'Reading', id: 'bad-avro', contentType: 'application/avro' },
    { type: 'Scan', id: 'bad-protobuf', contentType: 'application/x-protobuf' },
  ].map(({ type, id, contentType }) => ({
    address,
    key: 's-0',
    value: garbage,
    headers: { ce_specversion: '1.0', ce_id: id, ce_type: type, 'content-type': contentType },
  }));
}
