/** The descriptor of one channel: its address, bindings, message registry and codec, as generated code defines it. */
import { checkParameters, type ParameterRule } from '../address.js';
import { KeiyakuError } from '../errors.js';
import { type AnyContractMessage, isTagged, type MessageTypeOf, messageType } from './brand.js';
import { type DecodeResult, fail } from './errors.js';
import type { MessageDescriptor } from './message.js';

/** Kafka and Iggy placement of a channel, from its bindings. */
export interface ChannelBindings {
  readonly kafka?: {
    /** The Kafka topic of the channel's address (the binding's `topic`), when it differs from the address. */
    readonly topic?: string;
    readonly partitions?: number;
    readonly replicas?: number;
    /** Topic configs set when the transport creates the topic (the binding's `topicConfiguration`). */
    readonly configs?: Readonly<Record<string, string>>;
    readonly key?: string;
  };
  readonly iggy?: { readonly stream?: string; readonly topic?: string; readonly partitions?: number };
}

/** One channel of the contract with its message registry and codec. */
export interface ChannelDescriptor<M extends AnyContractMessage, A extends string | ((params: never) => string) = string> {
  readonly id: string;
  /** The address, or a function of the channel parameters when the address has any. */
  readonly address: A;
  /** The address template exactly as in the contract (`lights.{streetlightId}.on`). */
  readonly addressTemplate: string;
  readonly parameters: readonly string[];
  /** What the contract allows as values of each parameter (enum, pattern). */
  readonly parameterRules: Readonly<Record<string, ParameterRule>>;
  readonly messageTypes: readonly MessageTypeOf<M>[];
  readonly bindings: ChannelBindings;
  /** The descriptor registered for `type`, or undefined when the channel does not carry it. */
  message(type: string): MessageDescriptor<MessageTypeOf<M>, unknown, M> | undefined;
  /** True when `value` is a contract message this channel carries. */
  accepts(value: unknown): value is M;
  typeOf(message: M): MessageTypeOf<M>;
  encode(message: M): Uint8Array;
  /** Bytes + message type to a message of this channel; an unknown type is a decode error. Never throws. */
  decode(bytes: Uint8Array, type: string): DecodeResult<M>;
  /**
   * Optional, for channels whose encoding needs what a synchronous `encode` cannot wait for (a
   * Schema Registry's schema id): makes `encodeFor(message, address)` ready for messages of
   * `type` on `address`. Returns undefined when nothing is pending (the usual case, which costs
   * the publisher nothing), else a promise the publisher and the outbox await; it rejects with a
   * retriable error when the cause is transient (the registry is unavailable).
   */
  prepare?(address: string, type: string): Promise<void> | undefined;
  /**
   * Optional, the decoding side of {@link prepare}: makes `decode(bytes, type)` ready for these
   * bytes (reads the writer's schema by the id in their frame). Returns undefined when nothing is
   * pending. Bytes that cannot be decoded are not its failure (decode reports them); it rejects
   * only with a retriable error (the registry is unavailable), which the belt retries.
   */
  prepareRecord?(bytes: Uint8Array, type: string): Promise<void> | undefined;
  /**
   * Optional: the payload bytes of `message` on `address`, for channels whose bytes depend on the
   * address (a registry subject named after the topic). Writers use it instead of `encode` when present.
   */
  encodeFor?(message: M, address: string): Uint8Array;
}

/** Any channel carrying `M`, whatever its address shape. */
export type AnyChannel<M extends AnyContractMessage = AnyContractMessage> = ChannelDescriptor<M, string | ((params: never) => string)>;

export interface ChannelDefinition<A> {
  readonly id: string;
  readonly address: A;
  readonly addressTemplate: string;
  readonly parameters: readonly string[];
  readonly parameterRules?: Readonly<Record<string, ParameterRule>>;
  // biome-ignore lint/suspicious/noExplicitAny: descriptors of different payload types share one registry
  readonly messages: readonly MessageDescriptor<string, any, any>[];
  readonly bindings: ChannelBindings;
}

/** Builds the descriptor of one channel. Called by generated code only. */
export function defineChannel<M extends AnyContractMessage, A extends string | ((params: never) => string) = string>(
  definition: ChannelDefinition<A>,
): ChannelDescriptor<M, A> {
  const registry = new Map<string, MessageDescriptor<string, unknown, AnyContractMessage>>();
  for (const descriptor of definition.messages) registry.set(descriptor.type, descriptor);
  const types = Object.freeze(definition.messages.map((d) => d.type)) as readonly MessageTypeOf<M>[];
  const parameterRules = Object.freeze({ ...definition.parameterRules });
  // The address function of a channel with parameters refuses values the contract does not
  // allow (missing, empty, not in the enum) with a ChannelAddressError, instead of building
  // `payments.undefined.requests`.
  const build = definition.address;
  const address =
    typeof build === 'function'
      ? (((params: never) => {
          checkParameters({ id: definition.id, parameters: definition.parameters, parameterRules }, params);
          return (build as (params: never) => string)(params);
        }) as A)
      : build;
  return Object.freeze({
    id: definition.id,
    address,
    parameterRules,
    addressTemplate: definition.addressTemplate,
    parameters: definition.parameters,
    messageTypes: types,
    bindings: definition.bindings,
    message: (type: string) => registry.get(type) as MessageDescriptor<MessageTypeOf<M>, unknown, M> | undefined,
    accepts(value: unknown): value is M {
      if (!isTagged(value)) return false;
      return registry.has((value as AnyContractMessage)[messageType]);
    },
    typeOf: (message: M) => message[messageType] as MessageTypeOf<M>,
    encode(message: M): Uint8Array {
      const type = message[messageType];
      const descriptor = registry.get(type);
      if (descriptor === undefined)
        throw new KeiyakuError('unknown_message_type', `channel ${definition.id} does not carry message type ${JSON.stringify(type)}`);
      return (descriptor as MessageDescriptor<string, unknown, M>).encode(message);
    },
    decode(bytes: Uint8Array, type: string): DecodeResult<M> {
      const descriptor = registry.get(type);
      if (descriptor === undefined) {
        return fail(
          'unknown_type',
          type,
          `channel ${definition.id} has no message type ${JSON.stringify(type)} (it carries ${[...registry.keys()].join(', ')})`,
        );
      }
      return descriptor.decode(bytes) as DecodeResult<M>;
    },
  });
}
