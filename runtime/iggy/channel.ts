/**
 * Contract channels on the high-level Iggy SDK: what `keiyaku generate` wires per channel in
 * `generated/iggy.ts`. The serializer writes the message as JSON; the CloudEvents type and id
 * travel as user headers (`ce_type`, `ce_id`), and the deserializer reads them back to decode
 * with the right message type — a bad message is a status, never a throw.
 */
import { randomUUID } from 'node:crypto';
import type { AnyChannel, AnyContractMessage, DecodeResult } from '@keiyaku/runtime/adapter';
import type { IggyClient } from './client.js';
import { messageIdFromUuid } from './client.js';
import { type IggyConsumer, IggyConsumerBuilder, type ReceivedMessage } from './consumer.js';
import { IGGY_PLACEMENT_DEFAULTS } from './placement.js';
import type { Consumer, Identifier } from './protocol/primitives.js';
import { type IggyPublisher, IggyPublisherBuilder } from './publisher.js';
import { UserHeaders } from './value-factories.js';

export interface IggyPlacement {
  readonly stream: Identifier;
  readonly topic: Identifier;
  readonly partitions?: number;
}

export interface ChannelSerde<M extends AnyContractMessage> {
  /** Payload and user headers of a contract message. */
  serialize(message: M): { readonly payload: Uint8Array; readonly headers: Uint8Array; readonly id: bigint };
  /** Decodes a received message by its `ce_type` header. Never throws. */
  deserialize(payload: Uint8Array, headers: Uint8Array): DecodeResult<M>;
}

export function channelSerde<M extends AnyContractMessage>(channel: AnyChannel<M>): ChannelSerde<M> {
  return {
    serialize(message) {
      const eventId = randomUUID();
      const headers = UserHeaders.encode({ ce_type: channel.typeOf(message), ce_id: eventId });
      return { payload: channel.encode(message), headers, id: messageIdFromUuid(eventId) };
    },
    deserialize(payload, headers) {
      let type = '';
      try {
        type = UserHeaders.decode(headers)['ce_type'] ?? '';
      } catch {
        // Malformed headers: decode without a type, which reports the message as undecodable.
      }
      return channel.decode(payload, type);
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

  send(messages: M | readonly M[]): Promise<void> {
    const list = (Array.isArray(messages) ? messages : [messages]) as readonly M[];
    return this.publisher.sendMessages(list.map((m) => this.#serde.serialize(m)));
  }

  waitUntilAllSends(): Promise<void> {
    return this.publisher.waitUntilAllSends();
  }
}

/** The Iggy side of one contract channel. */
export function iggyChannel<M extends AnyContractMessage>(channel: AnyChannel<M>, placement: IggyPlacement): IggyChannel<M> {
  const serde = channelSerde(channel);
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
      for await (const message of consumer.receive(signal)) yield { result: serde.deserialize(message.payload, message.headers), message };
    },
  };
}
