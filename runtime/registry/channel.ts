/**
 * A channel whose Avro and Protobuf payloads travel in the Schema Registry wire format:
 * {@link withSchemaRegistry} wraps a channel descriptor so that its framed message types encode
 * as magic byte + schema id (+ message indexes) + payload, and decode by reading the writer's
 * schema by id and resolving it to the reader's (Avro schema resolution): a consumer reads every
 * compatible past version.
 *
 * Encoding and decoding stay synchronous; the registry lookups happen in the channel's
 * `prepare`/`prepareRecord` hooks, which the publisher, the outbox, the belt, the memory
 * transport's `drain` and the Iggy channels await. An id is asked of the registry once per
 * address and type, a writer schema once per id.
 */

import { fail } from '../core/contract/errors.js';
import type { AnyChannel, AnyContractMessage, DecodeResult, MessageDescriptor, PayloadCodec } from '../core/contract.js';
import { KeiyakuError, messageType } from '../core/contract.js';
import type { Transport } from '../core/transport.js';
import type { SchemaInput, SchemaRegistryClient } from './client.js';
import { SchemaRegistryError } from './errors.js';
import { framed, frameHead, readFrame } from './frame.js';
import { type SubjectNameStrategy, subjectName } from './subject.js';

export interface SchemaRegistryChannelOptions {
  /** How subjects are named (default `topic`: `<topic>-value`). */
  readonly subjectNameStrategy?: SubjectNameStrategy;
  /** Register a writer schema the subject lacks, on first publish (default false: look it up only, and fail naming the subject). */
  readonly autoRegister?: boolean;
  /**
   * The broker's name of an address, which TopicNameStrategy names subjects after. Default: the
   * transport's `destination` when `transport` is given (a Kafka namespace included), else the
   * channel's Kafka binding `topic`, else the address.
   */
  readonly topic?: (address: string) => string;
  readonly transport?: Pick<Transport, 'destination'>;
  /** The subject name strategy of single message types, where it differs from {@link subjectNameStrategy}. */
  readonly strategies?: Readonly<Record<string, SubjectNameStrategy>>;
  /** The message types to frame (default: every type of the channel with an Avro or Protobuf codec). */
  readonly types?: readonly string[];
}

/** What the wrapper knows of one framed message type. */
interface FramedType {
  readonly descriptor: MessageDescriptor<string, unknown, AnyContractMessage>;
  readonly codec: PayloadCodec;
  readonly schema: SchemaInput;
  readonly protobuf: boolean;
}

type Reader = ((bytes: Uint8Array, type: string) => DecodeResult<object>) | { readonly problem: string };

/** Most writer ids and readers a channel remembers before it starts over (many addresses of a parameterized channel). */
const MAX_ENTRIES = 10_000;
const wrapped = Symbol.for('keiyaku.schemaRegistry');

/** The Schema Registry client a channel was wrapped with, or undefined. */
export function schemaRegistryOf(channel: AnyChannel): SchemaRegistryClient | undefined {
  return (channel as { [wrapped]?: SchemaRegistryClient })[wrapped];
}

/** A descriptor of `channel` whose Avro and Protobuf messages are framed in the Schema Registry wire format through `client`. */
export function withSchemaRegistry<C extends AnyChannel>(
  channel: C,
  client: SchemaRegistryClient,
  options: SchemaRegistryChannelOptions = {},
): C {
  if (schemaRegistryOf(channel) !== undefined)
    throw new KeiyakuError('schema_registry_config', `channel ${channel.id} is already framed for a Schema Registry`);
  const types = framedTypes(channel, options.types);
  const { prepare, encodeFor } = writeSide(channel, client, types, options);
  const { prepareRecord, decode } = readSide(channel, client, types);
  const fixedAddress = typeof channel.address === 'string' ? channel.address : undefined;
  const messages = new Map<string, MessageDescriptor<string, unknown, AnyContractMessage>>();
  for (const [type, framedType] of types) {
    messages.set(
      type,
      Object.freeze({
        ...framedType.descriptor,
        encode(message: AnyContractMessage): Uint8Array {
          if (fixedAddress === undefined)
            throw new KeiyakuError(
              'address_required',
              `channel ${channel.id} has parameters: encode ${type} for an address with channel.encodeFor(message, address)`,
            );
          return encodeFor(message, fixedAddress);
        },
        decode: (bytes: Uint8Array) => decode(bytes, type),
      }),
    );
  }
  return Object.freeze({
    ...channel,
    [wrapped]: client,
    message: (type: string) => messages.get(type) ?? channel.message(type),
    encode(message: AnyContractMessage): Uint8Array {
      if (fixedAddress === undefined && types.has(message[messageType]))
        throw new KeiyakuError('address_required', `channel ${channel.id} has parameters: use channel.encodeFor(message, address)`);
      return encodeFor(message, fixedAddress ?? '');
    },
    decode,
    encodeFor,
    prepare,
    prepareRecord,
  }) as unknown as C;
}

/** Encoding: the writer's schema id per address and type (asked once), and the framed bytes of a message. */
function writeSide(
  channel: AnyChannel,
  client: SchemaRegistryClient,
  types: Map<string, FramedType>,
  options: SchemaRegistryChannelOptions,
) {
  const strategy = options.subjectNameStrategy ?? 'topic';
  const autoRegister = options.autoRegister === true;
  const transport = options.transport;
  const topicOf =
    options.topic ??
    (transport?.destination !== undefined
      ? (address: string) => transport.destination!(address, channel.bindings)
      : (address: string) => channel.bindings.kafka?.topic ?? address);
  /** `address \0 type` → the frame head of the writer's schema id. */
  const heads = new Map<string, Uint8Array>();
  const loading = new Map<string, Promise<void>>();

  const encodeFor = (message: AnyContractMessage, address: string): Uint8Array => {
    const type = message[messageType];
    const framedType = types.get(type);
    if (framedType === undefined) return channel.encode(message as never);
    const head = heads.get(`${address}\0${type}`);
    if (head === undefined)
      throw new SchemaRegistryError(
        `no schema id yet for ${type} on ${address} (channel ${channel.id}): await channel.prepare(address, type) before encoding (the publisher and the outbox do)`,
        { errorCode: 0, status: 0, code: 'schema_id_not_prepared' },
      );
    return framed(head, framedType.codec.encode(message));
  };

  const prepare = (address: string, type: string): Promise<void> | undefined => {
    const framedType = types.get(type);
    if (framedType === undefined) return undefined;
    const key = `${address}\0${type}`;
    if (heads.has(key)) return undefined;
    let pending = loading.get(key);
    if (pending === undefined) {
      const subject = subjectName(options.strategies?.[type] ?? strategy, topicOf(address), framedType.codec.schema.recordName);
      pending = client.id(subject, framedType.schema, { autoRegister }).then(
        (id) => {
          loading.delete(key);
          if (heads.size >= MAX_ENTRIES) heads.clear();
          heads.set(key, frameHead(id, framedType.protobuf ? (framedType.codec.schema.messageIndexes ?? [0]) : undefined));
        },
        (error: unknown) => {
          loading.delete(key);
          throw error;
        },
      );
      loading.set(key, pending);
    }
    return pending;
  };
  return { prepare, encodeFor };
}

/** Decoding: how to read each writer's schema id (read once per id), and the message of framed bytes. */
function readSide(channel: AnyChannel, client: SchemaRegistryClient, types: Map<string, FramedType>) {
  /** `type \0 id` → how to read a payload written with schema `id`. */
  const readers = new Map<string, Reader>();
  const loading = new Map<string, Promise<void>>();

  const prepareRecord = (bytes: Uint8Array, type: string): Promise<void> | undefined => {
    const framedType = types.get(type);
    if (framedType === undefined) return undefined;
    const frame = readFrame(bytes, framedType.protobuf);
    if ('problem' in frame) return undefined; // decode reports it
    const key = `${type}\0${frame.schemaId}`;
    if (readers.has(key)) return undefined;
    let pending = loading.get(key);
    if (pending === undefined) {
      pending = readerOf(client, framedType, type, frame.schemaId).then(
        (reader) => {
          loading.delete(key);
          if (readers.size >= MAX_ENTRIES) readers.clear();
          readers.set(key, reader);
        },
        (error: unknown) => {
          loading.delete(key);
          throw error;
        },
      );
      loading.set(key, pending);
    }
    return pending;
  };

  const decode = (bytes: Uint8Array, type: string): DecodeResult<AnyContractMessage> => {
    const framedType = types.get(type);
    if (framedType === undefined) return channel.decode(bytes, type);
    const frame = readFrame(bytes, framedType.protobuf);
    if ('problem' in frame) return fail('frame', type, `${type}: ${frame.problem}`);
    const reader = readers.get(`${type}\0${frame.schemaId}`);
    if (reader === undefined)
      return fail(
        'frame',
        type,
        `${type}: the writer's schema id ${frame.schemaId} was not read from the registry (decode framed bytes after channel.prepareRecord(bytes, type))`,
      );
    if (typeof reader !== 'function') return fail('frame', type, `${type}: ${reader.problem}`);
    const decoded = reader(bytes.subarray(frame.offset), type);
    if (!decoded.ok) return decoded;
    (decoded.value as Record<symbol, unknown>)[messageType] = type;
    return { ok: true, value: Object.freeze(decoded.value) as AnyContractMessage };
  };
  return { prepareRecord, decode };
}

/** The framed types of `channel`: the ones named, else every one with a codec. */
function framedTypes(channel: AnyChannel, names: readonly string[] | undefined): Map<string, FramedType> {
  const types = new Map<string, FramedType>();
  for (const type of names ?? channel.messageTypes) {
    const descriptor = channel.message(type) as MessageDescriptor<string, unknown, AnyContractMessage> | undefined;
    if (descriptor === undefined)
      throw new KeiyakuError('schema_registry_config', `channel ${channel.id} has no message type ${JSON.stringify(type)} to frame`);
    const codec = descriptor.codec;
    if (codec === undefined) {
      if (names === undefined) continue;
      throw new KeiyakuError(
        'schema_registry_config',
        `message ${type} of channel ${channel.id} has a JSON payload: keiyaku frames Avro and Protobuf payloads for a Schema Registry, not JSON`,
      );
    }
    types.set(type, {
      descriptor,
      codec,
      schema: { schemaType: codec.schema.schemaType, schema: codec.schema.schema },
      protobuf: codec.schema.schemaType === 'PROTOBUF',
    });
  }
  return types;
}

/**
 * How to read payloads of `type` written with schema `id`: the codec's own decoder when the
 * writer's schema is the reader's, else (Avro) the codec's resolution of the writer's schema to
 * its own. A transient failure rejects (not remembered); one that will not change (no such id,
 * a schema of another type, a writer schema that cannot be read as the reader's) is a problem
 * decode reports.
 */
async function readerOf(client: SchemaRegistryClient, framedType: FramedType, type: string, id: number): Promise<Reader> {
  const { codec } = framedType;
  let writer: SchemaInput;
  try {
    writer = await client.schema(id);
  } catch (error) {
    if (error instanceof SchemaRegistryError) return { problem: `the writer's schema id ${id}: ${error.message}` };
    throw error;
  }
  if (writer.schemaType !== codec.schema.schemaType)
    return { problem: `the writer's schema id ${id} is a ${writer.schemaType} schema; ${type} is ${codec.schema.schemaType}` };
  if (writer.schema === codec.schema.schema || codec.resolve === undefined) return (bytes, t) => codec.decode(bytes, t);
  try {
    return codec.resolve(writer.schema);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { problem: `the writer's schema id ${id} cannot be read as ${type}'s schema: ${reason}` };
  }
}
