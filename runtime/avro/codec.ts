/**
 * `avroCodec`: the PayloadCodec of a message whose contract schema is Avro, on avsc.
 *
 * Values follow docs/avro.md: bytes and fixed are Uint8Arrays (avsc wants Buffers, so a plain
 * Uint8Array is wrapped, without copying, before avsc sees it), unions as avsc's `wrapUnions:
 * 'auto'` holds them, logical types as ./logical-types.ts gives them. Decoding never throws.
 */
import { Buffer } from 'node:buffer';
import {
  ContractDecodeError,
  type DecodeResult,
  KeiyakuError,
  type PayloadCodec,
  type RegistrySchema,
  type ValidationIssue,
} from '@keiyaku/runtime/codegen-v1';
import avro from 'avsc';
import { issuesOf } from './issues.js';
import { toJsonView } from './json-view.js';
import { LOGICAL_TYPES } from './logical-types.js';

/** An Avro schema: its JSON text, or the parsed JSON. */
export type AvroSchema = string | object | readonly unknown[];

export interface AvroCodecOptions {
  /** The content type of the payload on the wire; `application/avro` by default. */
  readonly contentType?: string;
}

/** The writer's schema cannot be read as the reader's (Avro schema resolution refuses it). */
export class AvroResolutionError extends KeiyakuError {
  override readonly name = 'AvroResolutionError';
  readonly readerSchema: string;
  readonly writerSchema: string;
  constructor(reader: string, writer: string, message: string, cause?: unknown) {
    super('avro_unresolvable', message, { cause });
    this.readerSchema = reader;
    this.writerSchema = writer;
  }
}

/** The schema given to {@link avroCodec} is not a valid Avro schema. */
export class AvroSchemaError extends KeiyakuError {
  override readonly name = 'AvroSchemaError';
  constructor(message: string, cause?: unknown) {
    super('avro_schema_invalid', message, { cause });
  }
}

/** avsc's Type for `schema` with keiyaku's logical types and union representation. */
export function avroType(schema: AvroSchema, what = 'Avro schema'): avro.Type {
  let parsed: unknown = schema;
  try {
    if (typeof schema === 'string') parsed = JSON.parse(schema);
    return avro.Type.forSchema(parsed as avro.Schema, { logicalTypes: LOGICAL_TYPES as never, wrapUnions: 'auto' });
  } catch (cause) {
    const detail = cause instanceof Error ? cause.message : String(cause);
    throw new AvroSchemaError(`${what} is not a valid Avro schema: ${detail}`, cause);
  }
}

/** avsc's form of a schema: full names, defaults and logical types (avsc leaves an enum's default out). */
export function canonicalSchemaText(type: avro.Type): string {
  return JSON.stringify(type.schema({ exportAttrs: true }));
}

/**
 * The schema text a registry gets: the schema as given, as the Confluent serdes register it.
 * Generated code gives the generator's whole form of the contract's schema (full names, defaults,
 * an enum's default, logical types), the same bytes every run; a schema given as text is that text.
 */
function registryText(schema: AvroSchema): string {
  return typeof schema === 'string' ? schema : JSON.stringify(schema);
}

/** True when the schema holds a bytes or fixed type somewhere (only then can a value carry a plain Uint8Array). */
function holdsBytes(type: avro.Type, seen = new Set<avro.Type>()): boolean {
  if (seen.has(type)) return false;
  seen.add(type);
  const name = type.typeName;
  if (name === 'bytes' || name === 'fixed') return true;
  if (name.startsWith('logical:')) return false; // its own value (decimal text), not bytes
  if (name === 'record' || name === 'error') {
    return (type as avro.types.RecordType).fields.some((field) => holdsBytes(field.type, seen));
  }
  if (name === 'array') return holdsBytes((type as avro.types.ArrayType).itemsType, seen);
  if (name === 'map') return holdsBytes((type as avro.types.MapType).valuesType, seen);
  if (name.startsWith('union')) return (type as avro.types.WrappedUnionType).types.some((branch: avro.Type) => holdsBytes(branch, seen));
  return false;
}

/** `value` with every plain Uint8Array wrapped as a Buffer over the same memory; plain objects and arrays are copied only where one changes. */
function withBuffers(value: unknown): unknown {
  if (value instanceof Uint8Array) {
    return Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  }
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    value.forEach((item, i) => {
      const next = withBuffers(item);
      if (next === item) return;
      copy ??= value.slice();
      copy[i] = next;
    });
    return copy ?? value;
  }
  if (typeof value === 'object' && value !== null && !(value instanceof Date)) {
    let copy: Record<string, unknown> | undefined;
    for (const [key, item] of Object.entries(value)) {
      const next = withBuffers(item);
      if (next === item) continue;
      copy ??= { ...(value as Record<string, unknown>) };
      copy[key] = next;
    }
    return copy ?? value;
  }
  return value;
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function reason(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}

/** Reads `bytes` with `read`, which must consume them all; any failure is a `malformed` result naming `type`. */
function decodeWith(read: (bytes: Buffer) => unknown, bytes: Uint8Array, type: string, avroName: string): DecodeResult<object> {
  let value: unknown;
  try {
    value = read(asBuffer(bytes));
  } catch (cause) {
    const message = `${type}: payload is not an Avro ${avroName} (${reason(cause)})`;
    return { ok: false, error: new ContractDecodeError('malformed', type, message, [], cause) };
  }
  if (typeof value !== 'object' || value === null) {
    const message = `${type}: the Avro ${avroName} payload is not a record`;
    return { ok: false, error: new ContractDecodeError('malformed', type, message) };
  }
  return { ok: true, value };
}

/**
 * The payload codec of an Avro schema (a record, as a message payload is). Throws
 * {@link AvroSchemaError} when the schema is not valid Avro.
 */
export function avroCodec(schema: AvroSchema, options: AvroCodecOptions = {}): PayloadCodec {
  const type = avroType(schema);
  const text = registryText(schema);
  const avroName = type.name ?? type.typeName;
  const bytesInside = holdsBytes(type);
  const registrySchema: RegistrySchema = Object.freeze({ schemaType: 'AVRO', schema: text, recordName: avroName });
  const resolvers = new Map<string, (bytes: Uint8Array, messageType: string) => DecodeResult<object>>();
  const prepare = (value: unknown): unknown => (bytesInside ? withBuffers(value) : value);

  const validate = (value: unknown): readonly ValidationIssue[] => {
    if (type.isValid(value, { noUndeclaredFields: true })) return [];
    const prepared = prepare(value);
    if (prepared !== value && type.isValid(prepared, { noUndeclaredFields: true })) return [];
    return issuesOf(type, prepared);
  };

  return Object.freeze({
    format: 'avro' as const,
    contentType: options.contentType ?? 'application/avro',
    schema: registrySchema,
    validate,
    normalize(value: unknown): object {
      const prepared = prepare(value);
      return prepared === value ? { ...(value as object) } : (prepared as object);
    },
    encode(value: unknown): Uint8Array {
      return type.toBuffer(prepare(value));
    },
    decode(bytes: Uint8Array, messageType: string): DecodeResult<object> {
      return decodeWith((buffer) => type.fromBuffer(buffer), bytes, messageType, avroName);
    },
    resolve(writerSchema: string) {
      const known = resolvers.get(writerSchema);
      if (known !== undefined) return known;
      let resolver: ReturnType<avro.Type['createResolver']>;
      try {
        resolver = type.createResolver(avroType(writerSchema, `the writer's schema of ${avroName}`));
      } catch (cause) {
        const message = `data written with the schema ${writerSchema} cannot be read as ${text}: ${reason(cause)}`;
        throw new AvroResolutionError(text, writerSchema, message, cause);
      }
      const decode = (bytes: Uint8Array, messageType: string) =>
        decodeWith((buffer) => type.fromBuffer(buffer, resolver), bytes, messageType, avroName);
      resolvers.set(writerSchema, decode);
      return decode;
    },
    toJson: toJsonView,
  });
}
