/**
 * The Kafka transport on `@platformatic/kafka` (driver `platformatic`), behind the same Transport
 * interface, options and promises as the kafkajs transport (`../transport.ts`):
 *
 * - Topics are created from the channel's `bindings.kafka` when missing and never altered; a
 *   partition-count mismatch is reported, not "fixed"; a new topic is used only once every
 *   partition is served by its leader.
 * - Producers are idempotent (unless `idempotent: false`), acks from all in-sync replicas, keys
 *   partitioned by murmur2 as kafkajs and the Java client do; one publisher batch is one send.
 * - Clients cut off from the brokers are rebuilt in place after `rebuildAfterMs`, backing off to
 *   `maxRebuildIntervalMs`; health reports them as the kafkajs transport does.
 *
 * `@platformatic/kafka` is an optional peer dependency, imported on first use (`load()`): a
 * service on the kafkajs driver never installs it, and importing it takes about two seconds.
 * Nothing here imports a value from it statically.
 */
import {
  type ChannelBindings,
  type ConsumerOptions,
  KeiyakuError,
  type TransactionalProducer,
  type TransportConsumer,
  type TransportProducer,
} from '@keiyaku/runtime/adapter';
import type { Admin, BaseOptions, SASLOptions } from '@platformatic/kafka';
import { KafkaTransportBase } from '../base.js';
import type { KafkaDriverTransport, KafkaTransportOptions } from '../options.js';
import { type PlatformaticClients, type PlatformaticModule, readClientsWith } from './client.js';
import { PlatformaticTransportConsumer } from './consumer.js';
import { isLeadershipPending, isTopicExists, toTransportError } from './errors.js';
import { PlatformaticTransportProducer } from './producer.js';
import { guardStaleBrokers } from './stale-broker.js';
import { PlatformaticTransactionalProducer } from './transactions.js';

/** The kafkajs transport's retry defaults, so both drivers retry alike. */
const DEFAULT_RETRIES = 5;
const DEFAULT_INITIAL_RETRY_MS = 300;
const DEFAULT_MAX_RETRY_MS = 30_000;

/**
 * The transport on `@platformatic/kafka`. Its declarations name no type of that package (an optional
 * peer a TypeScript user on kafkajs does not install): what its clients share goes through `#clients`.
 */
export class PlatformaticKafkaTransport extends KafkaTransportBase implements KafkaDriverTransport {
  static {
    readClientsWith((transport) => (transport as PlatformaticKafkaTransport).#clients);
  }

  readonly driver = 'platformatic';
  readonly #sasl: SASLOptions | undefined;
  #module: Promise<PlatformaticModule> | undefined;
  #admin: Promise<Admin> | undefined;
  readonly #clients: PlatformaticClients;

  constructor(options: KafkaTransportOptions) {
    super(options, 'platformatic', 'PlatformaticKafkaTransport', '@platformatic/kafka');
    this.#sasl = saslFrom(options.sasl);
    this.#clients = {
      options,
      logger: this.logger,
      topic: (address) => this.topic(address),
      group: (groupId) => this.group(groupId),
      provision: (address, bindings) => this.provision(address, bindings),
      contentMode: (address) => this.contentMode(address),
      load: () => this.#load(),
      baseOptions: () => this.#baseOptions(),
    };
  }

  /** `@platformatic/kafka`, imported once; a `KeiyakuError` saying how to install it when it is missing. */
  #load(): Promise<PlatformaticModule> {
    this.#module ??= import('@platformatic/kafka').then(
      (kafka) => {
        guardStaleBrokers(kafka);
        return kafka;
      },
      (error: unknown) => {
        this.#module = undefined;
        throw loadError(error);
      },
    );
    return this.#module;
  }

  /**
   * The options every client of this transport shares: client id, bootstrap brokers, TLS, SASL, the
   * retries and back-off of `retry`, the timeouts of `client` and `ackTimeoutMs`, then `platformatic`.
   */
  #baseOptions(): BaseOptions {
    const retry = this.options.retry ?? {};
    const initial = retry.initialRetryTime ?? DEFAULT_INITIAL_RETRY_MS;
    const max = retry.maxRetryTime ?? DEFAULT_MAX_RETRY_MS;
    const multiplier = retry.multiplier ?? 2;
    const factor = retry.factor ?? 0.2;
    const client = this.options.client;
    const { clientId: _c, bootstrapBrokers: _b, sasl: _s, tls: _t, ssl: _l, ...passed } = this.options.platformatic ?? {};
    return {
      clientId: this.options.clientId ?? 'keiyaku',
      bootstrapBrokers: [...this.options.brokers],
      ...(this.options.ssl === undefined || this.options.ssl === false ? {} : { tls: this.options.ssl === true ? {} : this.options.ssl }),
      ...(this.#sasl === undefined ? {} : { sasl: this.#sasl }),
      ...(client?.connectionTimeout === undefined ? {} : { connectTimeout: client.connectionTimeout }),
      ...(client?.requestTimeout === undefined ? {} : { requestTimeout: client.requestTimeout }),
      // The broker's wait for acknowledgments of a produce (and the admin operations' timeout).
      timeout: this.options.ackTimeoutMs ?? 30_000,
      retries: retry.retries ?? DEFAULT_RETRIES,
      // kafkajs' back-off: exponential from the initial wait, randomised by `factor`, capped.
      retryDelay: (_client, _operation, attempt) =>
        Math.min(max, initial * multiplier ** (attempt - 1) * (1 + factor * (2 * Math.random() - 1))),
      ...passed,
    };
  }

  /** The transport's admin client, made on first use and kept until `close()`. */
  #adminClient(): Promise<Admin> {
    if (this.#admin === undefined) {
      const admin = this.#load().then((kafka) => new kafka.Admin(this.#baseOptions()));
      admin.catch(() => {
        if (this.#admin === admin) this.#admin = undefined;
      });
      this.#admin = admin;
    }
    return this.#admin;
  }

  /**
   * Whether the topic of `address` exists. Reads the list of all topics: a metadata request that
   * names a missing topic would let a broker with `auto.create.topics.enable=true` create it.
   */
  async destinationExists(address: string, bindings: ChannelBindings): Promise<boolean> {
    const topic = this.destination(address, bindings);
    const admin = await this.#adminClient();
    try {
      return (await admin.listTopics()).includes(topic);
    } catch (error) {
      throw toTransportError(error, topic);
    }
  }

  protected async createTopic(
    topic: string,
    partitions: number,
    replicas: number | undefined,
    configs: Readonly<Record<string, string>> | undefined,
  ): Promise<void> {
    const admin = await this.#adminClient();
    try {
      try {
        await admin.createTopics({
          topics: [topic],
          partitions,
          replicas: replicas ?? this.options.replicationFactor ?? 1,
          ...(configs === undefined ? {} : { configs: Object.entries(configs).map(([name, value]) => ({ name, value })) }),
        });
        await this.#awaitServed(admin, topic);
        this.logger.info('kafka: created topic', { topic, partitions });
        return;
      } catch (error) {
        if (!isTopicExists(error)) throw error;
      }
      const metadata = await admin.metadata({ topics: [topic], forceUpdate: true });
      const actual = metadata.topics.get(topic)?.partitionsCount ?? 0;
      if (actual !== partitions) {
        this.logger.warn(
          `kafka: topic ${topic} has ${actual} partitions but the contract says ${partitions}; keiyaku never alters an existing topic — change the binding or the topic (kafka-topics --alter) deliberately`,
          { topic, actual, expected: partitions },
        );
      }
      // Another client may have created it a moment ago (two services starting together).
      await this.#awaitServed(admin, topic, 5_000);
    } catch (error) {
      throw toTransportError(error, topic);
    }
  }

  /**
   * Waits until every partition of a topic (just created, here or elsewhere) is served by its
   * leader: a KRaft broker names a leader in its metadata before it serves the partition, and a
   * send in between is refused. A partition answers ListOffsets only once its leader serves it.
   * Bounded by `ackTimeoutMs` (30 s; `boundMs` when shorter): past it, sends find out (and retry) on their own.
   */
  async #awaitServed(admin: Admin, topic: string, boundMs?: number): Promise<void> {
    const ackTimeoutMs = this.options.ackTimeoutMs ?? 30_000;
    const deadline = Date.now() + Math.min(ackTimeoutMs, boundMs ?? ackTimeoutMs);
    for (let attempt = 1; ; attempt++) {
      try {
        const metadata = await admin.metadata({ topics: [topic], forceUpdate: true });
        const count = metadata.topics.get(topic)?.partitionsCount ?? 0;
        const partitions = Array.from({ length: count }, (_, partitionIndex) => ({ partitionIndex, timestamp: -1n }));
        await admin.listOffsets({ topics: [{ name: topic, partitions }] });
        return;
      } catch (error) {
        if (!isLeadershipPending(error)) throw error;
        if (Date.now() > deadline) {
          this.logger.warn('kafka: the partitions of a topic are not all served by a leader yet; sends will retry', {
            topic,
            error: String(error),
          });
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, Math.min(25 * attempt, 250)));
      }
    }
  }

  producer(): TransportProducer {
    return this.trackProducer(new PlatformaticTransportProducer(this.#clients));
  }

  /**
   * A producer writing in Kafka transactions under `transactionalId` (with the namespace, as groups
   * are). Its first `begin()` fences any earlier producer with the same id.
   */
  transactionalProducer(transactionalId: string): TransactionalProducer {
    return this.trackTransactional((onClose) => new PlatformaticTransactionalProducer(this.#clients, transactionalId, onClose));
  }

  consumer(options: ConsumerOptions): TransportConsumer {
    return this.trackConsumer((onClose) => new PlatformaticTransportConsumer(this.#clients, options, onClose));
  }

  /** Closes every producer, consumer and admin client made by this transport; failures are logged. */
  override async close(): Promise<void> {
    await super.close();
    const admin = this.#admin;
    this.#admin = undefined;
    if (admin !== undefined) {
      await admin
        .then(
          (a) => a.close(),
          () => undefined,
        )
        .catch((error: unknown) => this.logger.warn('kafka: closing the admin client failed', { error: String(error) }));
    }
  }
}

/** The kafkajs-shaped `sasl` option as `@platformatic/kafka`'s; a mechanism it does not speak is refused at once. */
function saslFrom(sasl: KafkaTransportOptions['sasl']): SASLOptions | undefined {
  if (sasl === undefined) return undefined;
  const mechanism = String(sasl.mechanism).toLowerCase();
  switch (mechanism) {
    case 'plain':
    case 'scram-sha-256':
    case 'scram-sha-512': {
      const { username, password } = sasl as { username: string; password: string };
      return { mechanism: mechanism.toUpperCase() as SASLOptions['mechanism'], username, password };
    }
    case 'oauthbearer': {
      const provider = (sasl as { oauthBearerProvider?: () => Promise<{ value: string }> }).oauthBearerProvider;
      if (typeof provider !== 'function')
        throw new KeiyakuError(
          'kafka_sasl_invalid',
          'SASL OAUTHBEARER needs an oauthBearerProvider (a function resolving to { value: token })',
        );
      return { mechanism: 'OAUTHBEARER', token: async () => (await provider()).value };
    }
    default:
      throw new KeiyakuError(
        'kafka_sasl_unsupported',
        `SASL mechanism "${String(sasl.mechanism)}" is not supported by the platformatic Kafka driver; use plain, scram-sha-256, scram-sha-512 or oauthbearer (or the kafkajs driver)`,
      );
  }
}

/** Why `@platformatic/kafka` could not be imported, as a `KeiyakuError` with a stable code. */
function loadError(error: unknown): KeiyakuError {
  const code = (error as { code?: unknown } | undefined)?.code;
  const message = error instanceof Error ? error.message : String(error);
  if ((code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && message.includes('@platformatic/kafka'))
    return new KeiyakuError(
      'kafka_driver_missing',
      'the Kafka driver "platformatic" needs the package @platformatic/kafka: npm install @platformatic/kafka (or choose the kafkajs driver)',
      { cause: error },
    );
  return new KeiyakuError('kafka_driver_load_failed', `the Kafka driver "platformatic" could not load @platformatic/kafka: ${message}`, {
    cause: error,
  });
}
