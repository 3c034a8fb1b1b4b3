/**
 * The payload codec of a message whose contract schema is not JSON Schema (Avro, Protobuf).
 * Generated code builds one with the format's package (`@keiyaku/avro`, `@keiyaku/protobuf`)
 * and gives it to `defineMessage`; the runtime itself stays free of any format library.
 */
import type { DecodeResult, ValidationIssue } from './errors.js';

/** The payload formats keiyaku reads from a contract's `schemaFormat`. */
export type PayloadFormat = 'json' | 'avro' | 'protobuf';

/** The schema a codec writes with, as a Schema Registry knows it. */
export interface RegistrySchema {
  /** The registry's schema type. */
  readonly schemaType: 'AVRO' | 'PROTOBUF';
  /** The schema text as registered: Avro JSON (canonical form), or the `.proto` source. */
  readonly schema: string;
  /** The fully qualified name of the payload's record or message (RecordNameStrategy's subject). */
  readonly recordName: string;
  /**
   * Protobuf only: the message indexes of the payload's message in its file (the Confluent wire
   * format writes them after the schema id; `[0]` for the file's first message).
   */
  readonly messageIndexes?: readonly number[];
}

/** Turns payload values of one message type into bytes and back, and validates them. */
export interface PayloadCodec {
  readonly format: Exclude<PayloadFormat, 'json'>;
  /** The content type written on the wire (`content-type` header), e.g. `application/avro`. */
  readonly contentType: string;
  readonly schema: RegistrySchema;
  /** Issues of `value` against the schema; empty when valid. Paths are JSON paths (`$.items[2].sku`). */
  validate(value: unknown): readonly ValidationIssue[];
  /**
   * The value the contract message holds for a valid `value` (the same object when the format's
   * values are plain objects; a format may normalize, e.g. fill defaults). Called after validate.
   */
  normalize?(value: unknown): object;
  /** The bytes of a valid payload value (without any registry framing). */
  encode(value: unknown): Uint8Array;
  /**
   * The payload value of `bytes` (written with this codec's own schema), validated; never throws.
   * Failures use the reason `malformed` (not an encoding of the schema) or `schema`.
   */
  decode(bytes: Uint8Array, type: string): DecodeResult<object>;
  /**
   * A decoder of bytes written with another version of the schema (the writer's, as a registry
   * returns it by id), resolved to this codec's schema by the format's own rules (Avro schema
   * resolution). Throws a KeiyakuError when the writer's schema cannot be read as this one.
   * Absent where the wire format needs no writer schema (Protobuf).
   */
  resolve?(writerSchema: string): (bytes: Uint8Array, type: string) => DecodeResult<object>;
  /** A JSON-safe view of a payload value, for logs, the dead-letter page and `dead-letters show`. */
  toJson(value: unknown): unknown;
}
