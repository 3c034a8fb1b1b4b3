/** The descriptor of one message type: create, validate, encode and decode, as generated code defines it. */
import { type AnyContractMessage, type Boxed, type ContractMessage, isTagged, messageType, tag } from './brand.js';
import { ContractValidationError, type DecodeResult, fail, type ValidationIssue } from './errors.js';
import { defineHeaders, type HeadersCodec, type HeadersDefinition } from './headers.js';
import { type StandaloneValidator, toIssues } from './issues.js';
import type { PayloadCodec, PayloadFormat } from './payload-codec.js';
import { utf8Bytes } from './utf8.js';

/** What `generate` knows about one message type; the runtime reads it. */
export interface MessageDescriptor<T extends string = string, P = unknown, M extends AnyContractMessage = ContractMessage<T, P>> {
  readonly type: T;
  /** Identifier of the message in the contract (component key or channel message key). */
  readonly id: string;
  readonly contentType: string;
  /** sha256 of the canonical payload schema, as in `generated/manifest.json`. */
  readonly schemaHash: string;
  /** The payload's format: `json` (JSON Schema), `avro` or `protobuf`. */
  readonly format: PayloadFormat;
  /** The payload codec of an Avro or Protobuf message; undefined for JSON. */
  readonly codec?: PayloadCodec;
  /** True when the payload is a JSON primitive, held as `{ value }` (see {@link Boxed}). */
  readonly boxed: boolean;
  /** Validates `payload` and returns it as a frozen contract message; throws {@link ContractValidationError}. */
  create(payload: P): M;
  /** Issues of `value` against the payload schema; empty when valid. */
  validate(value: unknown): readonly ValidationIssue[];
  /** True when `value` is a contract message of this type (made by `create` or `decode`). */
  is(value: unknown): value is M;
  /** The payload property that is the message's partition key (from the Kafka binding's key schema), if any. */
  readonly keyProperty?: string;
  /** The default partition key of `message`: its {@link keyProperty}, as a string. */
  key(message: M): string | undefined;
  /** The payload bytes of the message: UTF-8 JSON, or its codec's encoding. */
  encode(message: M): Uint8Array;
  /** Bytes to a contract message, or an error naming the failing JSON path. Never throws. */
  decode(bytes: Uint8Array): DecodeResult<M>;
  /** The codec of the headers the contract declares for this message; undefined when it declares none. */
  readonly headers?: HeadersCodec;
  /** Where the contract's Kafka message binding says the payload's Schema Registry id goes; undefined when it says nothing. */
  readonly registry?: MessageRegistryBinding;
}

/**
 * The Schema Registry fields of a message's Kafka binding (bindings 0.4.0/0.5.0). A message with
 * `schemaIdLocation: payload` travels in the registry wire format once the host is given a registry.
 */
export interface MessageRegistryBinding {
  /** Where the schema id is: `payload` (the Confluent wire format) or `header`. */
  readonly schemaIdLocation: 'payload' | 'header';
  /** How the id is encoded in the payload (`confluent`, `apicurio-new`, a number of bytes, …); the vendor's default when absent. */
  readonly schemaIdPayloadEncoding?: string;
  /** The subject naming strategy (`TopicNameStrategy`, `RecordNameStrategy`, …); the vendor's default when absent. */
  readonly schemaLookupStrategy?: string;
}

export interface MessageDefinition<T extends string> {
  readonly type: T;
  readonly id: string;
  readonly contentType: string;
  readonly schemaHash: string;
  /** The JSON Schema validator of the payload; ignored when {@link codec} is given. */
  readonly validate?: StandaloneValidator;
  /** The payload codec of an Avro or Protobuf message (from `@keiyaku/avro`, `@keiyaku/protobuf`). */
  readonly codec?: PayloadCodec;
  /** The payload is a JSON primitive: hold it as `{ value }`. */
  readonly boxed?: boolean;
  /** The headers schema of the message, when the contract declares one. */
  readonly headers?: HeadersDefinition;
  /** The payload property that is the default partition key. */
  readonly keyProperty?: string;
  /** The Schema Registry fields of the message's Kafka binding. */
  readonly registry?: MessageRegistryBinding;
}

const utf8Decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** The default partition key of a message: its `keyProperty`, as a string; undefined without one. */
function keyOf<M>(keyProperty: string | undefined): (message: M) => string | undefined {
  return (message) => {
    if (keyProperty === undefined) return undefined;
    const value = (message as unknown as Record<string, unknown>)[keyProperty];
    return value === undefined || value === null ? undefined : String(value);
  };
}

/** Builds the descriptor of one message type. Called by generated code only. */
export function defineMessage<T extends string, P, M extends AnyContractMessage = ContractMessage<T, P>>(
  definition: MessageDefinition<T>,
): MessageDescriptor<T, P, M> {
  if (definition.codec !== undefined) return defineCodecMessage(definition, definition.codec);
  const { type } = definition;
  const validate = definition.validate;
  if (validate === undefined) throw new TypeError(`defineMessage(${type}): give a validate function or a codec`);
  const boxed = definition.boxed === true;
  const keyProperty = definition.keyProperty;
  const check = (value: unknown): readonly ValidationIssue[] => (validate(value) ? [] : toIssues(validate.errors));
  return Object.freeze({
    type,
    id: definition.id,
    contentType: definition.contentType,
    schemaHash: definition.schemaHash,
    format: 'json',
    boxed,
    ...(definition.headers === undefined ? {} : { headers: defineHeaders(type, definition.headers) }),
    ...(keyProperty === undefined ? {} : { keyProperty }),
    ...(definition.registry === undefined ? {} : { registry: definition.registry }),
    key: keyOf<M>(keyProperty),
    create(payload: P): M {
      if (!validate(payload)) throw new ContractValidationError(type, toIssues(validate.errors));
      return tag(boxed ? { value: payload } : payload, type) as unknown as M;
    },
    validate: check,
    is(value: unknown): value is M {
      return isTagged(value, type);
    },
    encode(message: M): Uint8Array {
      return utf8Bytes(JSON.stringify(boxed ? (message as unknown as Boxed<unknown>).value : message));
    },
    decode(bytes: Uint8Array): DecodeResult<M> {
      let text: string;
      try {
        text = utf8Decoder.decode(bytes);
      } catch (cause) {
        return fail('not_utf8', type, `${type}: payload is not valid UTF-8`, [], cause);
      }
      let data: unknown;
      try {
        data = JSON.parse(text);
      } catch (cause) {
        const detail = cause instanceof Error ? cause.message : String(cause);
        return fail('not_json', type, `${type}: payload is not JSON (${detail})`, [], cause);
      }
      if (!validate(data)) {
        const issues = toIssues(validate.errors);
        const first = issues[0];
        return fail('schema', type, `${type}: payload is not valid at ${first?.path ?? '$'}: ${first?.message ?? 'rejected'}`, issues);
      }
      if (boxed) data = { value: data };
      else if (typeof data !== 'object' || data === null) {
        return fail('schema', type, `${type}: payload must be a JSON object or array`, [
          { pointer: '', path: '$', keyword: 'type', message: 'must be object or array' },
        ]);
      }
      // A plain symbol-keyed property: JSON.stringify and Object.keys skip it, and it is
      // several times cheaper than defineProperty on this hot path; freezing makes it read-only.
      (data as Record<symbol, unknown>)[messageType] = type;
      return { ok: true, value: Object.freeze(data) as M };
    },
  });
}

/** {@link defineMessage} for a message whose payload has a codec (Avro, Protobuf): never boxed, validated and encoded by the codec. */
function defineCodecMessage<T extends string, P, M extends AnyContractMessage>(
  definition: MessageDefinition<T>,
  codec: PayloadCodec,
): MessageDescriptor<T, P, M> {
  const { type } = definition;
  const keyProperty = definition.keyProperty;
  const seal = (value: object): M => {
    (value as Record<symbol, unknown>)[messageType] = type;
    return Object.freeze(value) as M;
  };
  return Object.freeze({
    type,
    id: definition.id,
    contentType: definition.contentType,
    schemaHash: definition.schemaHash,
    format: codec.format,
    codec,
    boxed: false,
    ...(definition.headers === undefined ? {} : { headers: defineHeaders(type, definition.headers) }),
    ...(keyProperty === undefined ? {} : { keyProperty }),
    ...(definition.registry === undefined ? {} : { registry: definition.registry }),
    key: keyOf<M>(keyProperty),
    create(payload: P): M {
      const issues = codec.validate(payload);
      if (issues.length > 0) throw new ContractValidationError(type, issues);
      const value = codec.normalize === undefined ? { ...(payload as object) } : codec.normalize(payload);
      return seal(value);
    },
    validate: (value: unknown) => codec.validate(value),
    is(value: unknown): value is M {
      return isTagged(value, type);
    },
    encode(message: M): Uint8Array {
      return codec.encode(message);
    },
    decode(bytes: Uint8Array): DecodeResult<M> {
      const decoded = codec.decode(bytes, type);
      // The codec's own result, its value sealed in place: no second result object per message.
      if (decoded.ok) seal(decoded.value);
      return decoded as DecodeResult<M>;
    },
  });
}
