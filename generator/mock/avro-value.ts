/**
 * Mock values of Avro payloads, as @keiyaku/avro takes them (docs/avro.md): numbers for `int`,
 * `long`, `float` and `double`, `Uint8Array` for `bytes` and `fixed`, a `Date` for the timestamp and
 * date logical types, decimal text for `decimal`, unions wrapped exactly where avsc's
 * `wrapUnions: 'auto'` wraps them (the type is built as the generator builds it). Every choice comes
 * from the seeded random source.
 *
 * @see https://avro.apache.org/docs/1.12.0/specification/
 */
import type avro from 'avsc';
import { avroTypeOf } from '../formats/avro/build.js';
import type { AvroPayloadModel } from '../model/contract-model.js';
import { formatValue } from './formats.js';
import { MockError } from './mock-error.js';
import type { Random } from './random.js';

const WORDS = ['amber', 'basil', 'cedar', 'dune', 'ember', 'fjord', 'grove', 'harbor', 'iris', 'juniper', 'kestrel', 'lumen'];
/** Past this depth, values take the shortest way out (no items, defaults, the `null` branch). */
const SHALLOW_DEPTH = 6;
const MAX_DEPTH = 64;
const DAY_MS = 86_400_000;

function bytes(r: Random, length: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = r.int(0, 255);
  return out;
}

/** A day from 2020 to 2030 (UTC midnight), as milliseconds. */
const day = (r: Random): number => Date.UTC(r.int(2020, 2030), r.int(0, 11), r.int(1, 28));

function logical(name: string, type: avro.Type, r: Random): unknown {
  switch (name) {
    case 'timestamp-millis':
    case 'timestamp-micros':
    case 'local-timestamp-millis':
    case 'local-timestamp-micros':
      return new Date(day(r) + r.int(0, DAY_MS - 1));
    case 'date':
      return new Date(day(r));
    case 'time-millis':
      return r.int(0, DAY_MS - 1);
    case 'time-micros':
      return r.int(0, DAY_MS - 1) * 1000;
    case 'uuid':
      return formatValue('uuid', r);
    case 'decimal': {
      const { precision = 1, scale = 0 } = type as unknown as { precision?: number; scale?: number };
      const whole = String(r.int(0, 10 ** Math.min(precision - scale, 6) - 1));
      const fraction = Array.from({ length: scale }, () => r.int(0, 9)).join('');
      return scale === 0 ? whole : `${whole}.${fraction}`;
    }
    default:
      return undefined;
  }
}

/** The schema's types, walked with their depth. */
class AvroValues {
  constructor(
    readonly random: Random,
    readonly message: string,
  ) {}

  value(type: avro.Type, depth: number): unknown {
    if (depth > MAX_DEPTH)
      throw new MockError('mock_unsatisfiable', `the Avro schema of ${this.message} requires values nested without end`);
    const r = this.random;
    const kind = type.typeName;
    if (kind.startsWith('logical:')) return logical(kind.slice('logical:'.length), type, r);
    switch (kind) {
      case 'null':
        return null;
      case 'boolean':
        return r.chance(0.5);
      case 'int':
      case 'long':
        return r.int(0, kind === 'int' ? 1000 : 1_000_000);
      case 'float':
        return r.int(0, 4000) / 4; // exact in 32 bits, so it reads back the same
      case 'double':
        return Number((r.float() * 1000).toFixed(2));
      case 'string':
        return `${r.pick(WORDS)}-${r.int(1, 999)}`;
      case 'bytes':
        return bytes(r, r.int(0, 8));
      case 'fixed':
        return bytes(r, (type as avro.types.FixedType).size);
      case 'enum':
        return r.pick((type as avro.types.EnumType).symbols);
      case 'array':
        return this.#items(depth).map(() => this.value((type as avro.types.ArrayType).itemsType, depth + 1));
      case 'map':
        return Object.fromEntries(
          this.#items(depth).map((_, i) => [`${r.pick(WORDS)}${i}`, this.value((type as avro.types.MapType).valuesType, depth + 1)]),
        );
      case 'union:wrapped':
      case 'union:unwrapped':
        return this.#union(type as avro.types.WrappedUnionType, kind === 'union:wrapped', depth);
      default:
        return this.#record(type as avro.types.RecordType, depth);
    }
  }

  #items(depth: number): unknown[] {
    return Array.from({ length: depth > SHALLOW_DEPTH ? 0 : this.random.int(0, 3) });
  }

  #union(type: avro.types.WrappedUnionType, wrapped: boolean, depth: number): unknown {
    const branches = type.types;
    const branch = depth > SHALLOW_DEPTH ? (branches.find((b) => b.typeName === 'null') ?? branches[0]!) : this.random.pick(branches);
    const value = this.value(branch, depth + 1);
    return wrapped && branch.typeName !== 'null' ? { [branch.branchName ?? branch.typeName]: value } : value;
  }

  /** Every field; one with a default is left out now and then (the encoder writes its default). */
  #record(type: avro.types.RecordType, depth: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const field of type.fields) {
      const hasDefault = field.defaultValue() !== undefined;
      if (hasDefault && (depth > SHALLOW_DEPTH || this.random.chance(0.3))) continue;
      Object.defineProperty(out, field.name, { value: this.value(field.type, depth + 1), enumerable: true, writable: true });
    }
    return out;
  }
}

/** avsc's type of an Avro payload, built as the generator builds it (build once per payload, then {@link avroValue}). */
export function avroType(payload: AvroPayloadModel): avro.Type {
  return avroTypeOf(payload.schema);
}

/** A value of Avro type `type` (the payload of message `message`). */
export function avroValue(type: avro.Type, message: string, random: Random): unknown {
  return new AvroValues(random, message).value(type, 0);
}
