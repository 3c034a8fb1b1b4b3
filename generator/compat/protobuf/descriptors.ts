/**
 * What the Protobuf gate reads of a payload: the message out of the model's compiled descriptor
 * set (protobuf-es resolves editions features, presence and packing for us), and each field
 * reduced to what its encodings depend on.
 */
import { createFileRegistry, type DescEnum, type DescField, type DescMessage, fromBinary, ScalarType } from '@bufbuild/protobuf';
import { FeatureSet_FieldPresence, FieldDescriptorProto_Label, FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import { ContractError } from '../../errors.js';
import type { ProtobufPayloadModel } from '../../model/contract-model.js';

/** The payload message of `model`, from its descriptor set. */
export function payloadMessage(model: ProtobufPayloadModel): DescMessage {
  let message: DescMessage | undefined;
  try {
    const set = fromBinary(FileDescriptorSetSchema, Buffer.from(model.descriptorSet, 'base64'));
    message = createFileRegistry(set).getMessage(model.message);
  } catch (error) {
    throw unreadable(model, `its descriptor set does not decode (${error instanceof Error ? error.message : String(error)})`);
  }
  if (message === undefined) throw unreadable(model, `its descriptor set has no message ${model.message}`);
  return message;
}

function unreadable(model: ProtobufPayloadModel, why: string): ContractError {
  const message = `the Protobuf payload ${model.message}${model.file ? ` (${model.file})` : ''} cannot be compared: ${why}`;
  return new ContractError(message, [
    {
      severity: 'error',
      code: 'protobuf_descriptor_invalid',
      message,
      hint: 'regenerate the contract model from the .proto file (keiyaku compiles it with `buf build`)',
    },
  ]);
}

/** What a field holds, one value of it. */
export type ValueType =
  | { readonly kind: 'scalar'; readonly scalar: ScalarType }
  | { readonly kind: 'enum'; readonly enum: DescEnum }
  | { readonly kind: 'message'; readonly message: DescMessage; readonly delimited: boolean };

/** A field as its encodings see it. */
export interface FieldShape {
  readonly field: DescField;
  readonly cardinality: 'singular' | 'repeated' | 'map';
  readonly value: ValueType;
  /** For a map, the key's scalar type. */
  readonly mapKey?: ScalarType;
  /** `required`: proto2 `required` (editions LEGACY_REQUIRED); `explicit`: has presence; `implicit`: a zero value is not written. */
  readonly presence: 'required' | 'explicit' | 'implicit';
  readonly packed?: boolean;
  /** The real oneof the field is in (not the synthetic one of a proto3 `optional`). */
  readonly oneof?: string;
  /** The proto2 / editions default, as written in the descriptor. */
  readonly defaultValue?: string;
}

export function shapeOf(field: DescField): FieldShape {
  const presence =
    field.proto.label === FieldDescriptorProto_Label.REQUIRED || field.presence === FeatureSet_FieldPresence.LEGACY_REQUIRED
      ? 'required'
      : field.presence === FeatureSet_FieldPresence.IMPLICIT
        ? 'implicit'
        : 'explicit';
  const base = {
    field,
    presence,
    ...(field.oneof === undefined ? {} : { oneof: field.oneof.name }),
    ...(field.proto.defaultValue === undefined || field.proto.defaultValue === '' ? {} : { defaultValue: field.proto.defaultValue }),
  } as const;
  switch (field.fieldKind) {
    case 'scalar':
      return { ...base, cardinality: 'singular', value: { kind: 'scalar', scalar: field.scalar } };
    case 'enum':
      return { ...base, cardinality: 'singular', value: { kind: 'enum', enum: field.enum } };
    case 'message':
      return { ...base, cardinality: 'singular', value: { kind: 'message', message: field.message, delimited: field.delimitedEncoding } };
    case 'list': {
      const value: ValueType =
        field.listKind === 'scalar'
          ? { kind: 'scalar', scalar: field.scalar }
          : field.listKind === 'enum'
            ? { kind: 'enum', enum: field.enum }
            : { kind: 'message', message: field.message, delimited: field.delimitedEncoding };
      return { ...base, cardinality: 'repeated', value, packed: field.packed };
    }
    case 'map': {
      const value: ValueType =
        field.mapKind === 'scalar'
          ? { kind: 'scalar', scalar: field.scalar }
          : field.mapKind === 'enum'
            ? { kind: 'enum', enum: field.enum }
            : { kind: 'message', message: field.message, delimited: false };
      return { ...base, cardinality: 'map', value, mapKey: field.mapKey };
    }
  }
}

/** The `.proto` name of a value type: `int32`, `.library.v1.Money`. */
export function typeName(value: ValueType): string {
  if (value.kind === 'scalar') return SCALARS[value.scalar].name;
  return value.kind === 'enum' ? value.enum.typeName : value.message.typeName;
}

/** A field's type as written: `repeated string`, `map<string, int32>`, `optional int32`. */
export function fieldType(shape: FieldShape): string {
  const name = typeName(shape.value);
  if (shape.cardinality === 'map') return `map<${SCALARS[shape.mapKey!].name}, ${name}>`;
  return shape.cardinality === 'repeated' ? `repeated ${name}` : name;
}

/**
 * How each scalar is encoded and which values it holds. Values of one `wire` encoding decode
 * as each other's (the bits are reinterpreted); a reader reads every value a writer writes when
 * the writer's range is inside its own. `json` is the form of the canonical JSON mapping:
 * 64-bit integers are strings there, 32-bit ones numbers.
 */
interface Scalar {
  readonly name: string;
  readonly wire: 'varint' | 'zigzag' | 'i32' | 'i64' | 'len';
  readonly range: readonly [bigint, bigint];
  readonly json: 'number' | 'string-number' | 'bool' | 'float' | 'string' | 'base64';
}

const b = (n: number): bigint => 2n ** BigInt(n);
const SIGNED32 = [-b(31), b(31) - 1n] as const;
const UNSIGNED32 = [0n, b(32) - 1n] as const;
const SIGNED64 = [-b(63), b(63) - 1n] as const;
const UNSIGNED64 = [0n, b(64) - 1n] as const;
/** Strings are the valid UTF-8 byte strings: a subset of bytes, which range stands for here. */
const TEXT = [1n, 1n] as const;
const OCTETS = [0n, 1n] as const;

export const SCALARS: Readonly<Record<ScalarType, Scalar>> = {
  [ScalarType.DOUBLE]: { name: 'double', wire: 'i64', range: [0n, 0n], json: 'float' },
  [ScalarType.FLOAT]: { name: 'float', wire: 'i32', range: [0n, 0n], json: 'float' },
  [ScalarType.INT64]: { name: 'int64', wire: 'varint', range: SIGNED64, json: 'string-number' },
  [ScalarType.UINT64]: { name: 'uint64', wire: 'varint', range: UNSIGNED64, json: 'string-number' },
  [ScalarType.INT32]: { name: 'int32', wire: 'varint', range: SIGNED32, json: 'number' },
  [ScalarType.FIXED64]: { name: 'fixed64', wire: 'i64', range: UNSIGNED64, json: 'string-number' },
  [ScalarType.FIXED32]: { name: 'fixed32', wire: 'i32', range: UNSIGNED32, json: 'number' },
  [ScalarType.BOOL]: { name: 'bool', wire: 'varint', range: [0n, 1n], json: 'bool' },
  [ScalarType.STRING]: { name: 'string', wire: 'len', range: TEXT, json: 'string' },
  [ScalarType.BYTES]: { name: 'bytes', wire: 'len', range: OCTETS, json: 'base64' },
  [ScalarType.UINT32]: { name: 'uint32', wire: 'varint', range: UNSIGNED32, json: 'number' },
  [ScalarType.SFIXED32]: { name: 'sfixed32', wire: 'i32', range: SIGNED32, json: 'number' },
  [ScalarType.SFIXED64]: { name: 'sfixed64', wire: 'i64', range: SIGNED64, json: 'string-number' },
  [ScalarType.SINT32]: { name: 'sint32', wire: 'zigzag', range: SIGNED32, json: 'number' },
  [ScalarType.SINT64]: { name: 'sint64', wire: 'zigzag', range: SIGNED64, json: 'string-number' },
};

/**
 * Reads a reader of `reader` every value written as `writer`? Floating point types read only
 * themselves (a float's bits are no fixed32).
 */
export function scalarReads(writer: ScalarType, reader: ScalarType): boolean {
  if (writer === reader) return true;
  const w = SCALARS[writer];
  const r = SCALARS[reader];
  if (w.wire !== r.wire || w.json === 'float' || r.json === 'float') return false;
  return r.range[0] <= w.range[0] && w.range[1] <= r.range[1];
}

/** Well-known types whose JSON mapping is their own (not an object of their fields). */
export function hasOwnJson(message: DescMessage): boolean {
  return (
    message.typeName.startsWith('google.protobuf.') &&
    /\.(Any|Timestamp|Duration|FieldMask|Struct|Value|ListValue|NullValue|(Double|Float|Int64|UInt64|Int32|UInt32|Bool|String|Bytes)Value)$/.test(
      message.typeName,
    )
  );
}

/** Reserved numbers of a message (end exclusive in the descriptor) or an enum (end inclusive), as inclusive ranges. */
export function reservedRanges(owner: DescMessage | DescEnum): [number, number][] {
  const inclusive = owner.kind === 'enum';
  return owner.proto.reservedRange.map((r) => [r.start ?? 0, (r.end ?? 0) - (inclusive ? 0 : 1)]);
}

export function isReserved(owner: DescMessage | DescEnum, number: number): boolean {
  return reservedRanges(owner).some(([start, end]) => start <= number && number <= end);
}

export function isNameReserved(owner: DescMessage | DescEnum, name: string): boolean {
  return owner.proto.reservedName.includes(name);
}
