/** The options of the Kafka transport, its drivers, and the status of one of its clients. */
import type {
  AnyChannel,
  ChannelBindings,
  ContentMode,
  Logger,
  TransactionalProducer,
  Transport,
  TransportHealth,
} from '@keiyaku/runtime/adapter';
import type { KafkaConfig, RetryOptions, SASLOptions } from 'kafkajs';

export interface KafkaTransportOptions {
  /**
   * The Kafka client the transport runs on (`createKafkaTransport` reads it): `kafkajs` (default) or
   * `platformatic` (`@platformatic/kafka`, an optional peer dependency installed by the service).
   */
  readonly driver?: KafkaDriver;
  /** Bootstrap servers, `host:port`. */
  readonly brokers: readonly string[];
  /** kafkajs client id (default `keiyaku`). */
  readonly clientId?: string;
  /**
   * Prefixes every topic name and every consumer group id with `<namespace>.` — so
   * `library.book-integration-events` becomes `staging.library.book-integration-events` and
   * group `inventory.book-availability` becomes `staging.inventory.book-availability`. It does
   * not touch message types, keys, headers or the client id.
   */
  readonly namespace?: string;
  readonly ssl?: KafkaConfig['ssl'];
  readonly sasl?: SASLOptions;
  /** Other kafkajs client options, passed through (connectionTimeout, requestTimeout, …). */
  readonly client?: Omit<Partial<KafkaConfig>, 'brokers' | 'clientId' | 'ssl' | 'sasl' | 'logCreator' | 'retry'>;
  /**
   * Other `@platformatic/kafka` client options (driver `platformatic` only), passed to every client
   * it makes after the settings above (see {@link PlatformaticClientOptions}).
   */
  readonly platformatic?: PlatformaticClientOptions;
  /** kafkajs retry options, applied explicitly to client, producer and consumers (kafkajs changes its defaults under NODE_ENV=test). */
  readonly retry?: RetryOptions;
  /** Partitions of topics whose channel has no Kafka binding (default 3). */
  readonly defaultPartitions?: number;
  /** Replication factor of created topics (default 1). */
  readonly replicationFactor?: number;
  /** How long a client may stay cut off before it is rebuilt (default 90 s). */
  readonly rebuildAfterMs?: number;
  /** Ceiling of the back-off between rebuilds while an outage lasts (default 10 min). */
  readonly maxRebuildIntervalMs?: number;
  /** Consumer session timeout (default 30 s; the broker's group.min.session.timeout.ms bounds it). */
  readonly sessionTimeoutMs?: number;
  readonly heartbeatIntervalMs?: number;
  /** Longest a fetch waits on a quiet topic (default 500 ms; also bounds how fast stop returns). */
  readonly maxWaitTimeInMs?: number;
  /**
   * How long one send may take before its caller is told with a `PublishTimeoutError` (librdkafka's
   * `message.timeout.ms`; default 300 000 = 5 min, 0 = no limit). Also bounds how long a producer
   * replaced during a rebuild drains: its in-flight sends have all told their callers by then.
   */
  readonly publishTimeoutMs?: number;
  /** How long the broker may take to acknowledge a send (librdkafka `request.timeout.ms`; kafkajs' send `timeout`, default 30 000). */
  readonly ackTimeoutMs?: number;
  /** Where a new group starts: the earliest record (default) or only new ones. */
  readonly fromBeginning?: boolean;
  /**
   * Idempotent producers (default `true`): the broker drops a batch kafkajs resends after a lost
   * acknowledgment instead of writing it twice. kafkajs then serializes its produce requests per
   * broker. A producer whose send failed is replaced (a new producer id), so a later send never
   * reuses the sequence numbers of a batch whose fate is unknown. `false` for brokers or ACLs without
   * idempotence (the `IDEMPOTENT_WRITE` permission on Kafka before 2.8).
   */
  readonly idempotent?: boolean;
  /**
   * What consumers read, unless a subscription says otherwise (`ConsumerOptions.isolation`):
   * `read_committed` (default, as kafkajs and the Java client) skips records of aborted transactions
   * and waits for open ones; `read_uncommitted` reads everything written.
   */
  readonly isolation?: 'read_committed' | 'read_uncommitted';
  /**
   * The consumer group protocol: `classic` (default; JoinGroup/SyncGroup with client-side
   * assignment, every broker version) or `consumer` (KIP-848: the broker assigns partitions and
   * rebalances incrementally; Kafka 4.0 and later). `consumer` needs the `platformatic` driver —
   * the kafkajs driver refuses it. All members of one group use the same protocol.
   */
  readonly groupProtocol?: 'classic' | 'consumer';
  /**
   * How long a transaction of a transactional producer may stay open before the broker aborts it
   * (default 60 000, kafkajs' and the Java client's; at most the broker's `transaction.max.timeout.ms`,
   * 15 min by default). It bounds how long `read_committed` readers of a partition wait behind a
   * transaction whose producer died and was not restarted with the same transactional id.
   */
  readonly transactionTimeoutMs?: number;
  /**
   * How records are written (default `binary`): CloudEvents binary content mode puts the event's
   * attributes in `ce_` headers and the payload in the value; `structured` writes the whole event
   * as the value (JSON event format, `content-type: application/cloudevents+json`) beside the
   * contract's headers only — five to seven fewer Kafka headers per record, which kafkajs
   * encodes and decodes at a high cost each. Readers take both modes whatever this says.
   */
  readonly contentMode?: ContentMode;
  /**
   * Most headers one record may carry (default 1,000). A publisher refuses to write a record over it
   * (`TooManyHeadersError`, not retriable); a kafkajs-driver consumer hands a record over it on as
   * undecodable (parked at once under a dead-letter policy) and logs it. kafkajs decodes headers in
   * quadratic time before keiyaku sees a record (2,000 headers cost seconds, 8,000 most of a minute):
   * topics open to untrusted writers belong on the `platformatic` driver. See docs/kafka.md.
   */
  readonly maxHeaders?: number;
  /** The content mode of single channels, by channel address (before the namespace); wins over `contentMode`. */
  readonly contentModes?: Readonly<Record<string, ContentMode>>;
  readonly logger?: Logger;
}

/**
 * `@platformatic/kafka` client options the platformatic driver passes through (its `BaseOptions` and
 * connection options). The brokers, client id, TLS and SASL always come from the transport's own
 * settings; the retries and timeouts below win over the ones mapped from `retry`, `client` and
 * `ackTimeoutMs`.
 */
export interface PlatformaticClientOptions {
  /** How long opening a connection may take (default: `client.connectionTimeout`, else 5 000 ms). */
  readonly connectTimeout?: number;
  /** How long a request may wait for its response (default: `client.requestTimeout`, else 30 000 ms). */
  readonly requestTimeout?: number;
  /** Retries of a failed request (default: `retry.retries`, else 5). */
  readonly retries?: number;
  /** The wait before a retry, in ms (default: the back-off of `retry`). */
  readonly retryDelay?: number;
  /** How long cached metadata is used (default 5 000 ms). */
  readonly metadataMaxAge?: number;
  /** Requests in flight per connection (an idempotent producer uses 1). */
  readonly maxInflights?: number;
  /** The TLS server name (SNI): `true` for the broker's host name. */
  readonly tlsServerName?: string | boolean;
  readonly [option: string]: unknown;
}

/** One kafkajs client's connection state, as `KafkaTransport.health()` reports it. */
export interface KafkaClientStatus {
  readonly role: 'consumer' | 'producer';
  readonly topic?: string;
  readonly group?: string;
  /** ISO time the client was found cut off from the brokers; absent while connected. */
  readonly cutOffSince?: string;
  /** Times its kafkajs client was replaced. */
  readonly rebuilds: number;
  /** A fault no rebuild can fix (a rejected credential). */
  readonly fault?: string;
}

/** The Kafka clients keiyaku can run on. */
export const KAFKA_DRIVERS = ['kafkajs', 'platformatic'] as const;
export type KafkaDriver = (typeof KAFKA_DRIVERS)[number];

/** What a Kafka transport offers on either driver, beyond the `Transport` interface. */
export interface KafkaDriverTransport extends Transport {
  /** The client it runs on. */
  readonly driver: KafkaDriver;
  readonly options: KafkaTransportOptions;
  readonly logger: Logger;
  /** The topic of `address` (its channel binding's `topic` once provisioned, else the address), with the namespace. */
  topic(address: string): string;
  /** The consumer group of `groupId`, with the namespace. */
  group(groupId: string): string;
  /** How records for `address` are written. */
  contentMode(address: string): ContentMode;
  /** Refuses a channel in structured content mode whose payloads are Avro or Protobuf (`StructuredBinaryPayloadError`). */
  checkChannel(channel: AnyChannel, address: string): void;
  provision(address: string, bindings: ChannelBindings): Promise<void>;
  destination(address: string, bindings: ChannelBindings): string;
  destinationExists(address: string, bindings: ChannelBindings): Promise<boolean>;
  transactionalProducer(transactionalId: string): TransactionalProducer;
  health(): TransportHealth;
  useLogger(logger: Logger): void;
}
