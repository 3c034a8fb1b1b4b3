/**
 * Contract channels on the high-level Iggy SDK: what `keiyaku generate` wires per channel in
 * `generated/iggy.ts`. The serializer writes the message in the CloudEvents envelope every
 * keiyaku transport writes (`encodeEnvelope`: `ce_specversion`, `ce_id`, `ce_type`,
 * `ce_source`, `ce_time`, `content-type`, contract headers, …) as Iggy user headers, so the Iggy
 * transport's subscriptions read these messages and these channels read the transport's. The
 * deserializer reads the envelope back and decodes with the right message type — a bad message
 * is a status, never a throw. Messages written before the full envelope (only `ce_type` and
 * `ce_id`) still decode as they did.
 */
import type { AnyChannel, AnyContractMessage, DecodeResult, EnvelopeOptions, HeadersOf } from '@keiyaku/runtime/adapter';
import { CE_HEADERS, encodeEnvelope, openEnvelope, recordType } from '@keiyaku/runtime/adapter';
import type { IggyClient } from './client.js';
import { type IggyConsumer, IggyConsumerBuilder, type ReceivedMessage } from './consumer.js';
import { encodeHeaders, messageIdOf, recordFromIggy } from './envelope-headers.js';
import { IGGY_PLACEMENT_DEFAULTS } from './placement.js';
import type { Consumer, Identifier } from './protocol/primitives.js';
import { type IggyPublisher, IggyPublisherBuilder } from './publisher.js';

export interface IggyPlacement {
  readonly stream: Identifier;
  readonly topic: Identifier;
  readonly partitions?: number;
}

export interface ChannelSerde<M extends AnyContractMessage> {
  /**
   * Payload, user headers (the CloudEvents envelope; `options` sets its id, time, correlation
   * and causation ids, key and contract headers, as with the runtime's publisher) and the
   * message id (`ce_id` as a u128). Throws a ContractValidationError naming the header when the
   * contract headers do not validate (a required one missing included), and an IggyHeaderError when
   * a header is longer than Iggy carries (255 UTF-8 bytes).
   */
  serialize<T extends M>(
    message: T,
    options?: EnvelopeOptions<HeadersOf<T>>,
  ): { readonly payload: Uint8Array; readonly headers: Uint8Array; readonly id: bigint };
  /** Decodes a received message by its envelope (its `ce_type`, and its contract headers where the type declares them). Never throws. */
  deserialize(payload: Uint8Array, headers: Uint8Array): DecodeResult<M>;
  /**
   * What a channel framed for a Schema Registry reads before `serialize` (the schema ids of the
   * messages' types); undefined when nothing is pending. Rejects with a retriable error while the
   * registry is unavailable.
   */
  prepare?(messages: readonly M[]): Promise<void> | undefined;
  /** What such a channel reads before `deserialize` (the writer's schema, by id); undefined when nothing is pending. */
  prepareReceived?(payload: Uint8Array, headers: Uint8Array): Promise<void> | undefined;
}

/** `ce_source` of the messages a generated Iggy channel writes (the runtime publisher's default too). */
const SOURCE = 'keiyaku';

export function channelSerde<M extends AnyContractMessage>(channel: AnyChannel<M>, address = channel.addressTemplate): ChannelSerde<M> {
  return {
    serialize(message, options = {}) {
      const record = encodeEnvelope(channel, message, address, SOURCE, options, Date.now());
      return {
        payload: record.value,
        headers: encodeHeaders(record.headers, record.key, address) ?? new Uint8Array(0),
        id: messageIdOf(record.headers[CE_HEADERS.id]),
      };
    },
    prepare(messages) {
      if (channel.prepare === undefined) return undefined;
      const pending: Promise<void>[] = [];
      for (const type of new Set(messages.map((m) => channel.typeOf(m)))) {
        const prepared = channel.prepare(address, type);
        if (prepared !== undefined) pending.push(prepared);
      }
      return pending.length === 0 ? undefined : Promise.all(pending).then(() => undefined);
    },
    prepareReceived(payload, headers) {
      if (channel.prepareRecord === undefined) return undefined;
      const record = recordFromIggy({ offset: 0n, timestamp: 0n, payload, headers }, address, 0);
      return channel.prepareRecord(payload, recordType(record, channel) ?? '');
    },
    deserialize(payload, headers) {
      const record = recordFromIggy({ offset: 0n, timestamp: 0n, payload, headers }, address, 0);
      // Written before the full envelope (only ce_type and ce_id): decode by type alone, as then.
      if (record.headers[CE_HEADERS.specversion] === undefined) return channel.decode(payload, record.headers[CE_HEADERS.type] ?? '');
      return openEnvelope(channel, record).decoded;
    },
  };
}

export interface IggyChannel<M extends AnyContractMessage> {
  readonly channel: AnyChannel<M>;
  readonly placement: IggyPlacement;
  readonly serde: ChannelSerde<M>;
  /** A publisher of this channel's messages (call `init()` on it before sending). */
  publisher(client: IggyClient, configure?: (builder: IggyPublisherBuilder) => IggyPublisherBuilder): IggyChannelPublisher<M>;
  /** A consumer of this channel (call `init()` on it before receiving). */
  consumer(client: IggyClient, consumer: Consumer, configure?: (builder: IggyConsumerBuilder) => IggyConsumerBuilder): IggyConsumer;
  /** Typed messages of `consumer`, each as a decode result. */
  receive(
    consumer: IggyConsumer,
    signal?: AbortSignal,
  ): AsyncGenerator<{ readonly result: DecodeResult<M>; readonly message: ReceivedMessage }>;
}

export class IggyChannelPublisher<M extends AnyContractMessage> {
  readonly publisher: IggyPublisher;
  readonly #serde: ChannelSerde<M>;

  constructor(publisher: IggyPublisher, serde: ChannelSerde<M>) {
    this.publisher = publisher;
    this.#serde = serde;
  }

  init(): Promise<void> {
    return this.publisher.init();
  }

  /**
   * Sends one message or several, each in its own envelope (`options` apply to each: leave `id` out
   * when sending several). Every message and its contract headers are validated first, as on every
   * other path: a ContractValidationError naming the header (or an IggyHeaderError for a header
   * over 255 bytes) rejects the call at once, and none of the messages is sent.
   */
  send<T extends M>(messages: T | readonly T[], options?: EnvelopeOptions<HeadersOf<T>>): Promise<void> {
    const list = (Array.isArray(messages) ? messages : [messages]) as readonly T[];
    let prepared: Promise<void> | undefined;
    try {
      prepared = this.#serde.prepare?.(list);
    } catch (error) {
      return Promise.reject(error);
    }
    // A channel framed for a Schema Registry reads its schema ids first (once per type).
    if (prepared !== undefined) return prepared.then(() => this.#send(list, options));
    return this.#send(list, options);
  }

  #send<T extends M>(list: readonly T[], options: EnvelopeOptions<HeadersOf<T>> | undefined): Promise<void> {
    let serialized: ReturnType<ChannelSerde<M>['serialize']>[];
    try {
      serialized = list.map((m) => this.#serde.serialize(m, options));
    } catch (error) {
      return Promise.reject(error);
    }
    return this.publisher.sendMessages(serialized);
  }

  waitUntilAllSends(): Promise<void> {
    return this.publisher.waitUntilAllSends();
  }
}

/** The Iggy side of one contract channel. */
export function iggyChannel<M extends AnyContractMessage>(channel: AnyChannel<M>, placement: IggyPlacement): IggyChannel<M> {
  const serde = channelSerde(channel, String(placement.topic));
  return {
    channel,
    placement,
    serde,
    publisher(client, configure = (b) => b) {
      const builder = IggyPublisherBuilder.create(client, placement.stream, placement.topic).createIfMissing({
        partitions: placement.partitions ?? IGGY_PLACEMENT_DEFAULTS.topicPartitions,
      });
      return new IggyChannelPublisher<M>(configure(builder).build(), serde);
    },
    consumer(client, consumer, configure = (b) => b) {
      return configure(IggyConsumerBuilder.create(client, placement.stream, placement.topic, consumer)).build();
    },
    async *receive(consumer, signal) {
      for await (const message of consumer.receive(signal)) {
        // A channel framed for a Schema Registry reads the writer's schema by id first.
        const prepared = serde.prepareReceived?.(message.payload, message.headers);
        if (prepared !== undefined) await prepared;
        yield { result: serde.deserialize(message.payload, message.headers), message };
      }
    },
  };
}
