/**
 * The frozen, transport-neutral model of a contract that `generate` and `check` work on.
 * It is built once from the parsed AsyncAPI document (2.6 or 3.x) and never mutated.
 *
 * @see https://www.asyncapi.com/docs/reference/specification/v3.0.0
 */

import type { SourceLocation } from '../diagnostics.js';
import type { Mode, Policy, ProtobufRules } from './vocabulary.js';

/**
 * A JSON Schema node after normalization: plain acyclic JSON where every reference to a
 * named schema is `{ "$ref": "#/schemas/<Name>" }` (a key of {@link ContractModel.schemas}).
 */
export type SchemaNode = boolean | { readonly [keyword: string]: unknown };

export interface NamedSchema {
  /** Unique TypeScript-safe type name. */
  readonly name: string;
  readonly schema: SchemaNode;
  /** Where the schema was defined. */
  readonly location?: SourceLocation;
  /** How the name was chosen: `$defs` key, component key, `title`, message name, or its place. */
  readonly origin: 'definition' | 'component' | 'title' | 'message' | 'place';
}

export interface ChannelParameter {
  readonly name: string;
  readonly description?: string;
  /** Allowed values when the contract lists them. */
  readonly enum?: readonly string[];
  /** A regular expression values must match (AsyncAPI 2.x parameter `schema.pattern`). */
  readonly pattern?: string;
  readonly default?: string;
  readonly location?: string;
}

/** Where a Kafka message binding says the Schema Registry id of the payload goes, and how subjects are named. */
export interface KafkaRegistryBinding {
  readonly schemaIdLocation: 'payload' | 'header';
  readonly schemaIdPayloadEncoding?: string;
  readonly schemaLookupStrategy?: string;
}

export interface KafkaChannelBinding {
  readonly topic?: string;
  readonly partitions?: number;
  readonly replicas?: number;
  /** The binding's `topicConfiguration`, as Kafka topic configs (`retention.ms` → `"604800000"`, lists comma-joined). */
  readonly configs?: Readonly<Record<string, string>>;
}

export interface IggyChannelBinding {
  readonly stream?: string;
  readonly topic?: string;
  readonly partitions?: number;
}

export interface ChannelBindings {
  readonly kafka?: KafkaChannelBinding;
  readonly iggy?: IggyChannelBinding;
}

/**
 * An Avro payload (`schemaFormat: application/vnd.apache.avro…`): the schema as JSON, every named
 * type defined in place (references to other `.avsc` files resolved), plus where it came from.
 */
export interface AvroPayloadModel {
  readonly kind: 'avro';
  /** The Avro schema (JSON form), self-contained. */
  readonly schema: unknown;
  /** The full name of the root named type (`com.example.BookBorrowed`), or the primitive's name. */
  readonly name: string;
  /** The `schemaFormat` as written in the contract. */
  readonly schemaFormat: string;
  /** The `.avsc` file, relative like {@link ContractModel.source}, when the schema came from one. */
  readonly file?: string;
  /**
   * The name in generated code of each named type (record, enum, fixed) the schema reaches, by
   * its Avro full name (`shop.OrderLine` → `OrderLine`); the root's is {@link MessageModel.payload}.
   */
  readonly typeNames?: Readonly<Record<string, string>>;
}

/**
 * A Protobuf payload (`schemaFormat: application/vnd.google.protobuf…`): one message of a `.proto`
 * file, compiled to descriptors.
 */
export interface ProtobufPayloadModel {
  readonly kind: 'protobuf';
  /** The fully qualified name of the payload message (`library.v1.BookBorrowed`). */
  readonly message: string;
  /** The `.proto` source of the file that declares it, as written (the registry registers this text). */
  readonly source: string;
  /**
   * The compiled `google.protobuf.FileDescriptorSet` of that file and its imports (base64 of its
   * binary encoding, without source info), deterministic for the same input.
   */
  readonly descriptorSet: string;
  /** The `schemaFormat` as written in the contract. */
  readonly schemaFormat: string;
  /** The `.proto` file, relative like {@link ContractModel.source}, when the schema came from one. */
  readonly file?: string;
  /**
   * The name in generated code of each message and enum the payload reaches, by fully qualified
   * name (`library.v1.BookBorrowed.Item` → `BookBorrowed_Item`); the payload's is {@link MessageModel.payload}.
   */
  readonly typeNames?: Readonly<Record<string, string>>;
}

/** A payload whose schema is not JSON Schema. */
export type PayloadFormatModel = AvroPayloadModel | ProtobufPayloadModel;

export interface MessageModel {
  /** Contract message type: the message `name`, else its id. Sent as CloudEvents `ce_type`. */
  readonly type: string;
  /** The message id in the document (component key or channel message key). */
  readonly id: string;
  /** Unique identifier of the message in generated code (`BookBorrowed`). */
  readonly identifier: string;
  readonly title?: string;
  readonly summary?: string;
  readonly description?: string;
  readonly contentType: string;
  /**
   * Key of the payload's named schema in {@link ContractModel.schemas}. For an Avro or Protobuf
   * payload ({@link format}) it is the name of the payload type in generated code, and no
   * JSON Schema of that name exists.
   */
  readonly payload: string;
  /** The payload's Avro or Protobuf schema; absent when the payload is JSON Schema. */
  readonly format?: PayloadFormatModel;
  /**
   * True when the payload can only be a JSON primitive (a string, a number, …). Contract
   * messages are tagged objects, so such a payload is carried as `{ value }` in memory;
   * on the wire it is the bare JSON value.
   */
  readonly boxed: boolean;
  /** Key of the headers' named schema, when declared. */
  readonly headers?: string;
  /** Runtime expression of the correlation id (`$message.header#/correlationId`). */
  readonly correlationId?: string;
  readonly examples: readonly { readonly name?: string; readonly payload?: unknown; readonly headers?: unknown }[];
  /** Kafka message binding key schema (normalized), when declared. */
  readonly kafkaKey?: SchemaNode;
  /** The payload property the Kafka key schema stands for: the default partition key of the message. */
  readonly kafkaKeyProperty?: string;
  /** The Schema Registry fields of the Kafka message binding (0.4.0/0.5.0), when it has `schemaIdLocation`. */
  readonly kafkaRegistry?: KafkaRegistryBinding;
  readonly deprecated: boolean;
  /** `x-keiyaku.compatibility` of the message: its own compatibility mode. */
  readonly compatibility?: Mode;
  /** JSON pointer of the message in the resolved document (follows `$ref`s to find lines of nested nodes). */
  readonly documentPointer?: string;
  readonly location?: SourceLocation;
}

export interface ChannelModel {
  readonly id: string;
  /** Unique base identifier of the channel in generated code (`BookIntegrationEvents`). */
  readonly identifier: string;
  /** Address template (`lights.{streetlightId}.on`); the id when the document gives none. */
  readonly address: string;
  readonly title?: string;
  readonly description?: string;
  readonly parameters: readonly ChannelParameter[];
  /** Types of the messages the channel carries, in document order. */
  readonly messages: readonly string[];
  readonly bindings: ChannelBindings;
  /** `x-keiyaku.compatibility` of the channel: its mode for the messages it carries (a message's own mode wins). */
  readonly compatibility?: Mode;
  /**
   * What this application does on the channel, from the contract's operations: `send` (it writes,
   * others read), `receive` (it reads what others write). AsyncAPI 2.x speaks from the client's
   * side: `subscribe` means this application sends, `publish` that it receives. Empty when no
   * operation uses the channel. Absent in models recorded before keiyaku knew it.
   */
  readonly roles?: readonly ChannelRole[];
  readonly location?: SourceLocation;
}

/** One operation's use of a channel: its action from this application's side, and its id. */
export interface ChannelRole {
  readonly action: 'send' | 'receive';
  readonly operation: string;
}

export interface OperationModel {
  readonly id: string;
  readonly action: 'send' | 'receive';
  readonly channel: string;
  readonly messages: readonly string[];
  readonly summary?: string;
  /**
   * The operation's reply (AsyncAPI 3.x `reply`), when keiyaku supports it: the operation is a
   * request, answered on the reply channel. Absent in models recorded before keiyaku knew it,
   * for 2.x contracts (they have no reply object) and for replies keiyaku cannot carry (a warning says why).
   */
  readonly reply?: ReplyModel;
}

/**
 * Where and how a request is answered. The reply goes to the address the request names in its
 * header {@link addressHeader} when the contract says so (`address.location:
 * $message.header#/replyTo`), else to the reply channel's own address.
 */
export interface ReplyModel {
  /** Unique base identifier of the request-reply in generated code (`GetBook`: `GetBookRequest`, `GetBookReply`, …). */
  readonly identifier: string;
  /** The reply channel's id: it carries the reply messages. */
  readonly channel: string;
  /** Types of the messages a reply may be, in document order. */
  readonly messages: readonly string[];
  /** The request header that holds the reply address (`replyTo`), when the contract gives one. */
  readonly addressHeader?: string;
  /** The runtime expression of the reply address as written (`$message.header#/replyTo`). */
  readonly location?: string;
}

/** Compatibility settings and acknowledged breaks, from the contract's `x-keiyaku` extensions. */
export interface CompatibilitySettings {
  readonly mode?: Mode;
  readonly policy?: Policy;
  /** The rules Protobuf payloads are compared by (`x-keiyaku.protobuf`: `wire-json`, the default, or `wire`). */
  readonly protobuf?: ProtobufRules;
  /** Intentional breaks, reviewed in the pull request that makes them. */
  readonly acknowledge?: readonly { readonly id: string; readonly reason: string; readonly version: string }[];
}

export interface ContractModel {
  /** The contract file, as given. */
  readonly source: string;
  readonly asyncapi: string;
  readonly info: { readonly title: string; readonly version: string; readonly description?: string };
  readonly channels: readonly ChannelModel[];
  /** Every message type, keyed by type, in document order. */
  readonly messages: Readonly<Record<string, MessageModel>>;
  readonly operations: readonly OperationModel[];
  /** Every named schema, keyed by name, in discovery order. */
  readonly schemas: Readonly<Record<string, NamedSchema>>;
  /** `x-keiyaku` at the root: default mode/policy and acknowledged breaks. */
  readonly compatibility?: CompatibilitySettings;
}

/** Prefix of normalized references to named schemas. */
export const SCHEMA_REF_PREFIX = '#/schemas/';

export function refName(ref: string): string | undefined {
  return ref.startsWith(SCHEMA_REF_PREFIX) ? ref.slice(SCHEMA_REF_PREFIX.length) : undefined;
}

export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    if (Array.isArray(value)) for (const child of value) deepFreeze(child);
    else for (const key in value) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}
