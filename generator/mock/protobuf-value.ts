/**
 * Mock values of Protobuf payloads, as @keiyaku/protobuf takes them (docs/protobuf.md): protobuf-es
 * message objects — numbers for 32-bit integers, floats and doubles, `bigint` for 64-bit integers
 * (decimal text with `jstype = JS_STRING`), `Uint8Array` for bytes, enum numbers, `{ case, value }`
 * for a oneof, a wrapper field outside a oneof as its bare scalar, a `google.protobuf.Struct` field
 * as a JSON object. Every choice comes from the seeded random source.
 *
 * @see https://protobuf.dev/programming-guides/proto3/
 */
import { createFileRegistry, type DescField, type DescMessage, fromBinary, ScalarType } from '@bufbuild/protobuf';
import { FileDescriptorSetSchema, isWrapperDesc } from '@bufbuild/protobuf/wkt';
import type { ProtobufPayloadModel } from '../model/contract-model.js';
import { MockError } from './mock-error.js';
import type { Random } from './random.js';

const WORDS = ['amber', 'basil', 'cedar', 'dune', 'ember', 'fjord', 'grove', 'harbor', 'iris', 'juniper', 'kestrel', 'lumen'];
/** Past this depth, messages set only their required fields and lists and maps stay empty. */
const SHALLOW_DEPTH = 6;
const MAX_DEPTH = 64;
/** proto2 `required` (protobuf-es FieldPresence.LEGACY_REQUIRED). */
const LEGACY_REQUIRED = 3;

/** The descriptor of the payload message, from the model's descriptor set (load once per payload, then {@link protobufValue}). */
export function protobufMessage(payload: ProtobufPayloadModel): DescMessage {
  const bytes = Uint8Array.from(atob(payload.descriptorSet), (c) => c.charCodeAt(0));
  const desc = createFileRegistry(fromBinary(FileDescriptorSetSchema, bytes)).getMessage(payload.message);
  if (desc === undefined) throw new MockError('mock_unknown', `the descriptors of ${payload.message} do not hold it`);
  return desc;
}

/** protobuf-es holds a google.protobuf.Struct field as a JSON object (except inside google.protobuf.Value). */
const usesJson = (field: DescField): boolean =>
  field.message?.typeName === 'google.protobuf.Struct' && field.parent.typeName !== 'google.protobuf.Value';

class ProtobufValues {
  constructor(
    readonly random: Random,
    readonly type: string,
    /** The payload message's full name. */
    readonly root: string,
  ) {}

  message(desc: DescMessage, depth: number): Record<string, unknown> {
    if (depth > MAX_DEPTH)
      throw new MockError('mock_unsatisfiable', `the Protobuf payload of ${this.type} requires messages nested without end`);
    const r = this.random;
    // An Any holds a message of a type its readers know: the payload's own, empty.
    if (desc.typeName === 'google.protobuf.Any') return { typeUrl: `type.googleapis.com/${this.root}`, value: new Uint8Array(0) };
    // A Value is one of its kinds (never none): a scalar one.
    if (desc.typeName === 'google.protobuf.Value') {
      const kind = r.int(0, 2);
      return {
        kind:
          kind === 0
            ? { case: 'stringValue', value: r.pick(WORDS) }
            : kind === 1
              ? { case: 'numberValue', value: r.int(0, 100) }
              : { case: 'boolValue', value: r.chance(0.5) },
      };
    }
    const out: Record<string, unknown> = {};
    const shallow = depth <= SHALLOW_DEPTH;
    for (const member of desc.members) {
      if (member.kind === 'oneof') {
        if (!shallow || r.chance(0.25)) continue;
        const field = r.pick(member.fields);
        out[member.localName] = { case: field.localName, value: this.field(field, depth) };
      } else if (member.presence === LEGACY_REQUIRED || (shallow && r.chance(0.7))) out[member.localName] = this.field(member, depth);
    }
    return out;
  }

  field(field: DescField, depth: number): unknown {
    switch (field.fieldKind) {
      case 'scalar':
        return this.scalar(field.scalar, field.longAsString);
      case 'enum':
        return this.random.pick(field.enum.values).number;
      case 'list':
        return this.#many(depth).map(() =>
          field.listKind === 'scalar'
            ? this.scalar(field.scalar, field.longAsString)
            : field.listKind === 'enum'
              ? this.random.pick(field.enum.values).number
              : usesJson(field)
                ? this.json()
                : this.message(field.message, depth + 1),
        );
      case 'map': {
        const entries = this.#many(depth).map((_, i): [string, unknown] => [
          this.#mapKey(field.mapKey, i),
          field.mapKind === 'scalar'
            ? this.scalar(field.scalar, false)
            : field.mapKind === 'enum'
              ? this.random.pick(field.enum.values).number
              : usesJson(field)
                ? this.json()
                : this.message(field.message, depth + 1),
        ]);
        return Object.fromEntries(entries);
      }
      default: {
        if (usesJson(field)) return this.json();
        const inner = field.message.fields[0];
        if (field.oneof === undefined && isWrapperDesc(field.message) && inner?.fieldKind === 'scalar')
          return this.scalar(inner.scalar, inner.longAsString);
        return this.message(field.message, depth + 1);
      }
    }
  }

  #many(depth: number): unknown[] {
    return Array.from({ length: depth > SHALLOW_DEPTH ? 0 : this.random.int(0, 3) });
  }

  /** A map key of the key type, as an object key (integers and booleans spelled as text), distinct per index. */
  #mapKey(type: ScalarType, index: number): string {
    if (type === ScalarType.STRING) return `${this.random.pick(WORDS)}${index}`;
    if (type === ScalarType.BOOL) return index % 2 === 0 ? 'true' : 'false';
    return String(index * 10 + this.random.int(0, 9));
  }

  /** A small JSON object (a google.protobuf.Struct field). */
  json(): Record<string, unknown> {
    const r = this.random;
    return Object.fromEntries(
      Array.from({ length: r.int(0, 2) }, (_, i) => [`${r.pick(WORDS)}${i}`, r.chance(0.5) ? r.pick(WORDS) : r.int(0, 100)]),
    );
  }

  scalar(type: ScalarType, longAsString: boolean): unknown {
    const r = this.random;
    switch (type) {
      case ScalarType.STRING:
        return `${r.pick(WORDS)}-${r.int(1, 999)}`;
      case ScalarType.BOOL:
        return r.chance(0.5);
      case ScalarType.BYTES:
        return Uint8Array.from({ length: r.int(0, 8) }, () => r.int(0, 255));
      case ScalarType.DOUBLE:
        return Number((r.float() * 1000).toFixed(2));
      case ScalarType.FLOAT:
        return r.int(0, 4000) / 4; // exact in 32 bits
      case ScalarType.INT64:
      case ScalarType.SINT64:
      case ScalarType.SFIXED64:
      case ScalarType.UINT64:
      case ScalarType.FIXED64: {
        const value = r.int(0, 1_000_000);
        return longAsString ? String(value) : BigInt(value);
      }
      default:
        return r.int(0, 1000); // every 32-bit integer type holds 0…1000
    }
  }
}

/** A value of the Protobuf message `desc` (the payload of message `type`). */
export function protobufValue(desc: DescMessage, type: string, random: Random): Record<string, unknown> {
  return new ProtobufValues(random, type, desc.typeName).message(desc, 0);
}
