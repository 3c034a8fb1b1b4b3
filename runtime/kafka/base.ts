/**
 * What both Kafka transports share, whichever client they run on: their options and logger, how an
 * address names its topic and a handler its consumer group (the namespace), content modes, and
 * creating each topic at most once per transport (the driver says how, `createTopic`).
 */
import {
  type AnyChannel,
  type ChannelBindings,
  type ContentMode,
  forwardingLogger,
  KeiyakuError,
  type Logger,
  refuseStructuredBinary,
  stderrLogger,
  type TransportCapabilities,
  type TransportHealth,
} from '@keiyaku/runtime/adapter';
import { checkMaxHeadersOption } from './headers.js';
import { kafkaHealth } from './health.js';
import type { KafkaClientStatus, KafkaDriver, KafkaTransportOptions } from './options.js';

/** A producer or consumer of a transport, as its health and `close()` see it. */
interface TrackedClient {
  close(): Promise<void>;
}
interface ReportingClient extends TrackedClient {
  status(): KafkaClientStatus;
}

/** The part of `KafkaTransport` and `PlatformaticKafkaTransport` that does not depend on their client. */
export abstract class KafkaTransportBase {
  readonly name = 'kafka';
  readonly capabilities: TransportCapabilities = Object.freeze({ orderedPartitions: true, durable: true, pausablePartitions: true });
  readonly options: KafkaTransportOptions;
  /** Where the transport and its clients log: `options.logger`, else the host's (see {@link useLogger}), else `stderrLogger`. */
  readonly logger: Logger = forwardingLogger(() => this.#logger);
  #logger: Logger;
  readonly #provisioned = new Map<string, Promise<void>>();
  /** Address → topic, from channel bindings with a `topic` (learnt when an address is provisioned). */
  readonly #topics = new Map<string, string>();
  readonly #consumers = new Set<ReportingClient>();
  readonly #producers = new Set<ReportingClient>();
  readonly #transactional = new Set<TrackedClient>();

  /** `what` names the class and `runsOn` its client, for the errors of options meant for the other driver. */
  protected constructor(options: KafkaTransportOptions, driver: KafkaDriver, what: string, runsOn: string) {
    if (options.brokers.length === 0) throw new KeiyakuError('brokers_required', `${what} needs at least one broker`);
    if (options.driver !== undefined && options.driver !== driver)
      throw new KeiyakuError(
        'kafka_driver_mismatch',
        `${what} runs on ${runsOn}; for driver "${options.driver}" make the transport with createKafkaTransport(options)`,
      );
    checkMaxHeadersOption(options);
    this.options = options;
    this.#logger = options.logger ?? stderrLogger;
  }

  /** Speaks through the host's logger from now on, unless the options gave a logger of its own. */
  useLogger(logger: Logger): void {
    if (this.options.logger === undefined) this.#logger = logger;
  }

  /** The topic of `address` (its channel binding's `topic` once provisioned, else the address), with the namespace. */
  topic(address: string): string {
    const topic = this.#topics.get(address) ?? address;
    return this.options.namespace ? `${this.options.namespace}.${topic}` : topic;
  }

  /** How records for `address` are written: binary or structured CloudEvents content mode. */
  contentMode(address: string): ContentMode {
    return this.options.contentModes?.[address] ?? this.options.contentMode ?? 'binary';
  }

  /**
   * Refuses a channel written in structured content mode that carries Avro or Protobuf payloads
   * (`StructuredBinaryPayloadError`): structured mode is the JSON event format, for JSON payloads.
   */
  checkChannel(channel: AnyChannel, address: string): void {
    refuseStructuredBinary(channel, address, this.contentMode(address));
    // An address template (parameters given per publish): the content modes of the concrete addresses it covers.
    if (!address.includes('{')) return;
    const literal = (part: string) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const covers = new RegExp(
      `^${address
        .split(/\{[^}]*\}/)
        .map(literal)
        .join('.+')}$`,
    );
    for (const [concrete, mode] of Object.entries(this.options.contentModes ?? {}))
      if (covers.test(concrete)) refuseStructuredBinary(channel, concrete, mode);
  }

  /** The consumer group of `groupId`, with the namespace. */
  group(groupId: string): string {
    return this.options.namespace ? `${this.options.namespace}.${groupId}` : groupId;
  }

  /**
   * Creates the topic of `address` when missing: the binding's `topic` (else the address), its
   * partitions, replicas and topic configs. An existing topic is never altered.
   */
  async provision(address: string, bindings: ChannelBindings): Promise<void> {
    const topic = this.destination(address, bindings);
    let pending = this.#provisioned.get(topic);
    if (pending === undefined) {
      pending = this.createTopic(
        topic,
        bindings.kafka?.partitions ?? this.options.defaultPartitions ?? 3,
        bindings.kafka?.replicas,
        bindings.kafka?.configs,
      );
      this.#provisioned.set(topic, pending);
      pending.catch(() => this.#provisioned.delete(topic));
    }
    return pending;
  }

  /** The topic of `address` from its channel's bindings (the binding's `topic`, else the address; with the namespace), remembered for sends. Creates nothing. */
  destination(address: string, bindings: ChannelBindings): string {
    if (bindings.kafka?.topic !== undefined && bindings.kafka.topic !== '') this.#topics.set(address, bindings.kafka.topic);
    return this.topic(address);
  }

  /** Creates `topic` if it does not exist (replicas default to `replicationFactor`, else 1); warns when an existing one differs. */
  protected abstract createTopic(
    topic: string,
    partitions: number,
    replicas: number | undefined,
    configs: Readonly<Record<string, string>> | undefined,
  ): Promise<void>;

  /** Keeps `producer` for health and `close()`. */
  protected trackProducer<P extends ReportingClient>(producer: P): P {
    this.#producers.add(producer);
    return producer;
  }

  /** Keeps the consumer `make` builds until it closes (`make`'s argument is its `onClose`). */
  protected trackConsumer<C extends ReportingClient>(make: (onClose: () => void) => C): C {
    const consumer = make(() => this.#consumers.delete(consumer));
    this.#consumers.add(consumer);
    return consumer;
  }

  /** Keeps the transactional producer `make` builds until it closes (`make`'s argument is its `onClose`). */
  protected trackTransactional<T extends TrackedClient>(make: (onClose: () => void) => T): T {
    const producer = make(() => this.#transactional.delete(producer));
    this.#transactional.add(producer);
    return producer;
  }

  /**
   * Which clients are cut off from the brokers (since when) and how often each was rebuilt.
   * Not ready while any consumer or producer is cut off or a consumer faulted.
   */
  health(): TransportHealth {
    return kafkaHealth(
      this.name,
      this.options.brokers,
      [...this.#consumers].map((c) => c.status()),
      [...this.#producers].map((p) => p.status()),
    );
  }

  /** Closes every producer and consumer made by this transport; failures are logged. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.#consumers].map((c) => c.close()));
    await Promise.allSettled([...this.#producers].map((p) => p.close()));
    await Promise.allSettled([...this.#transactional].map((p) => p.close()));
  }
}
