/**
 * The Kafka transport (kafkajs 2.2.4) behind the Transport interface.
 *
 * - Topics are created from the channel's `bindings.kafka.partitions` when missing and
 *   never altered; a partition-count mismatch is reported, not "fixed".
 * - Publishing sends each publisher batch with acks from all in-sync replicas; per-key
 *   order comes from Kafka's key partitioner. A send that fails after kafkajs' retries
 *   rejects, so the publisher can retry it and, in the end, reach the caller.
 * - One consumer group per handler `groupId`. kafkajs runs `eachBatch` with auto-commit
 *   and auto-resolve off: a batch is handed to the belt and kept open (heart-beating)
 *   until the belt acknowledged it, so kafkajs never re-fetches what the belt holds; a
 *   stalled partition is paused in kafkajs while the others keep flowing. Offsets are
 *   committed only when the belt commits. Handler errors never reach kafkajs.
 * - Outages: broker-level errors go to the injected logger; a client that is cut off
 *   (cleared only by an assignment, a consumed batch or a confirmed send) does not commit,
 *   and after `rebuildAfterMs` gets a new kafkajs client in place — the object the
 *   application holds keeps its identity — backing off towards `maxRebuildIntervalMs`.
 *   A crash kafkajs will not restart from rebuilds at once. An authentication failure is
 *   not an outage: it faults loudly.
 */
import { randomBytes } from 'node:crypto';
import { isIP, Socket, connect as tcpConnect } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import {
  type Backoff,
  type ChannelBindings,
  ClosedError,
  type ConsumerOptions,
  type ContentMode,
  exponentialBackoff,
  forwardingLogger,
  type IncomingRecord,
  isRetriable,
  KeiyakuError,
  type Logger,
  type OutgoingRecord,
  type PartitionPosition,
  stderrLogger,
  type Transport,
  type TransportCapabilities,
  type TransportConsumer,
  TransportError,
  type TransportHealth,
  type TransportProducer,
  toStructured,
  type Waiter,
  waitForWake,
} from '@keiyaku/runtime/adapter';
import {
  type Admin,
  type Consumer,
  type EachBatchPayload,
  type ICustomPartitioner,
  type ISocketFactory,
  Kafka,
  type KafkaConfig,
  type LogEntry,
  logLevel,
  type Producer,
  type RetryOptions,
  type SASLOptions,
} from 'kafkajs';
import { publishDeadline } from './publish-timeout.js';

export interface KafkaTransportOptions {
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
   * How records are written (default `binary`): CloudEvents binary content mode puts the event's
   * attributes in `ce_` headers and the payload in the value; `structured` writes the whole event
   * as the value (JSON event format, `content-type: application/cloudevents+json`) beside the
   * contract's headers only — five to seven fewer Kafka headers per record, which kafkajs
   * encodes and decodes at a high cost each. Readers take both modes whatever this says.
   */
  readonly contentMode?: ContentMode;
  /** The content mode of single channels, by channel address (before the namespace); wins over `contentMode`. */
  readonly contentModes?: Readonly<Record<string, ContentMode>>;
  readonly logger?: Logger;
}

const DEFAULT_RETRY: RetryOptions = { retries: 5, initialRetryTime: 300, maxRetryTime: 30_000, factor: 0.2, multiplier: 2 };

/** kafkajs errors that mean "the brokers are unreachable", as opposed to a bad request. */
/** A kafkajs message as it arrives: headers and key may be missing, header values arrays. */
export interface KafkaMessageIn {
  readonly offset: string;
  readonly timestamp: string;
  readonly key?: Buffer | null;
  readonly value: Buffer | null;
  readonly headers?: Readonly<Record<string, Buffer | string | readonly (Buffer | string)[] | undefined>>;
}

/**
 * @internal A fetched Kafka message as a transport record: headers decoded as UTF-8 (a
 * repeated header joined with commas), the value a view on kafkajs' buffer (no copy).
 */
export function recordFromKafka(message: KafkaMessageIn, address: string, partition: number): IncomingRecord {
  const headers: Record<string, string> = {};
  const raw = message.headers;
  if (raw !== undefined) {
    for (const name in raw) {
      if (!Object.hasOwn(raw, name)) continue;
      const value = raw[name];
      if (value === undefined) continue;
      const text =
        typeof value === 'string'
          ? value
          : Buffer.isBuffer(value)
            ? value.toString('utf8')
            : (value as readonly unknown[]).map(String).join(',');
      // A header named __proto__ is kept as a plain property (an assignment would set the prototype).
      if (name === '__proto__') Object.defineProperty(headers, name, { value: text, enumerable: true, writable: true, configurable: true });
      else headers[name] = text;
    }
  }
  const value = message.value ?? EMPTY;
  const bytes = new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  const key = message.key;
  const offset = message.offset;
  const timestamp = Number(message.timestamp);
  return key === null || key === undefined
    ? { address, partition, offset, timestamp, headers, value: bytes }
    : { address, partition, offset, timestamp, headers, value: bytes, key: key.toString('utf8') };
}

const EMPTY = Buffer.alloc(0);

const MURMUR_SEED = 0x9747b28c;
const MURMUR_M = 0x5bd1e995;

/**
 * @internal Kafka's murmur2 of `key` (Java client `Utils.murmur2`, as kafkajs' default
 * partitioner computes it): 32-bit integer arithmetic instead of kafkajs' 64-bit `Long`
 * objects (a dozen allocations per four bytes of key, ~5 µs per message). Same result.
 */
export function murmur2(key: string | Buffer): number {
  let data: string | Buffer = key;
  if (typeof key === 'string') {
    for (let i = 0; i < key.length; i++) {
      if (key.charCodeAt(i) > 0x7f) {
        data = Buffer.from(key, 'utf8');
        break;
      }
    }
  }
  const length = data.length;
  let h = MURMUR_SEED ^ length;
  const length4 = length >>> 2;
  for (let i = 0; i < length4; i++) {
    const i4 = i * 4;
    let k = byteAt(data, i4) | (byteAt(data, i4 + 1) << 8) | (byteAt(data, i4 + 2) << 16) | (byteAt(data, i4 + 3) << 24);
    k = Math.imul(k, MURMUR_M);
    k ^= k >>> 24;
    k = Math.imul(k, MURMUR_M);
    h = Math.imul(h, MURMUR_M) ^ k;
  }
  const tail = length & ~3;
  const left = length & 3;
  if (left === 3) h ^= byteAt(data, tail + 2) << 16;
  if (left >= 2) h ^= byteAt(data, tail + 1) << 8;
  if (left >= 1) {
    h ^= byteAt(data, tail);
    h = Math.imul(h, MURMUR_M);
  }
  h ^= h >>> 13;
  h = Math.imul(h, MURMUR_M);
  h ^= h >>> 15;
  return h | 0;
}

/** Byte `i` of a Buffer, or of an ASCII string. */
function byteAt(data: string | Buffer, i: number): number {
  return typeof data === 'string' ? data.charCodeAt(i) : data[i]!;
}

/**
 * @internal kafkajs' default (Java-compatible) partitioner with {@link murmur2} computed in
 * 32-bit arithmetic: a message's own partition, else murmur2 of its key, else round robin
 * over the partitions that have a leader (from a random start per topic). Every key lands on
 * the partition kafkajs and the Java client choose, so per-key order holds across producers.
 */
export const keyPartitioner: ICustomPartitioner = () => {
  const counters = new Map<string, number>();
  return ({ topic, partitionMetadata, message }) => {
    if (message.partition !== null && message.partition !== undefined) return message.partition;
    const key = message.key;
    if (key !== null && key !== undefined) return (murmur2(key) & 0x7fffffff) % partitionMetadata.length;
    let counter = counters.get(topic) ?? randomBytes(4).readUInt32BE(0);
    counters.set(topic, ++counter);
    const available = partitionMetadata.filter((p) => p.leader >= 0);
    if (available.length > 0) return available[(counter & 0x7fffffff) % available.length]!.partitionId;
    return (counter & 0x7fffffff) % partitionMetadata.length;
  };
};

function isConnectivity(error: unknown): boolean {
  const name = (error as { name?: string } | undefined)?.name ?? '';
  const message = (error as { message?: string } | undefined)?.message ?? String(error);
  return (
    /KafkaJS(Connection|ConnectionClosed|RequestTimeout|NoBrokerAvailable|BrokerNotFound|NumberOfRetriesExceeded|GroupCoordinatorNotFound)Error/.test(
      name,
    ) ||
    /ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|Connection (error|timeout)|not connected|Broker not connected|Request timed out|Failed to connect/i.test(
      message,
    )
  );
}

/** Protocol errors that mean "this partition has no serving leader yet" (kafkajs error types, also inside a retry's cause). */
const LEADERSHIP_PENDING = new Set([
  'NOT_LEADER_FOR_PARTITION',
  'LEADER_NOT_AVAILABLE',
  'UNKNOWN_TOPIC_OR_PARTITION',
  'UNKNOWN_LEADER_EPOCH',
  'FENCED_LEADER_EPOCH',
]);

function isLeadershipPending(error: unknown): boolean {
  for (let e = error as { type?: string; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (e.type !== undefined && LEADERSHIP_PENDING.has(e.type)) return true;
  }
  return false;
}

function isAuthentication(error: unknown): boolean {
  const name = (error as { name?: string } | undefined)?.name ?? '';
  const message = (error as { message?: string } | undefined)?.message ?? '';
  return name === 'KafkaJSSASLAuthenticationError' || /SASL.*(authentication|failed)|Authentication failed/i.test(message);
}

function toTransportError(error: unknown, address?: string): TransportError {
  if (error instanceof TransportError) return error;
  const message = error instanceof Error ? error.message : String(error);
  const retriable = !isAuthentication(error) && isRetriable(error);
  return new TransportError('kafka', message, { ...(address ? { address } : {}), retriable, cause: error });
}

/** Tracks whether a kafkajs client is cut off from the brokers, on positive evidence only. */
class CutOff {
  since: number | undefined;
  /** Rebuilds during the current outage (drives the back-off). */
  rebuilds = 0;
  /** Rebuilds since the client was made. */
  totalRebuilds = 0;
  lastRebuild = 0;

  mark(now: number): void {
    this.since ??= now;
  }

  /** Positive evidence: an assignment, a consumed batch, a confirmed send. */
  clear(): void {
    this.since = undefined;
    this.rebuilds = 0;
  }
}

export class KafkaTransport implements Transport {
  readonly name = 'kafka';
  readonly capabilities: TransportCapabilities = Object.freeze({ orderedPartitions: true, durable: true, pausablePartitions: true });
  readonly options: KafkaTransportOptions;
  /** Where the transport and its clients log: `options.logger`, else the host's (see {@link useLogger}), else `stderrLogger`. */
  readonly logger: Logger = forwardingLogger(() => this.#logger);
  #logger: Logger;
  readonly #consumers = new Set<KafkaTransportConsumer>();
  readonly #producers = new Set<KafkaTransportProducer>();
  readonly #provisioned = new Map<string, Promise<void>>();
  /** Address → topic, from channel bindings with a `topic` (learnt when an address is provisioned). */
  readonly #topics = new Map<string, string>();
  #kafka: Kafka | undefined;

  constructor(options: KafkaTransportOptions) {
    if (options.brokers.length === 0) throw new KeiyakuError('brokers_required', 'KafkaTransport needs at least one broker');
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

  /** The consumer group of `groupId`, with the namespace. */
  group(groupId: string): string {
    return this.options.namespace ? `${this.options.namespace}.${groupId}` : groupId;
  }

  get retry(): RetryOptions {
    return { ...DEFAULT_RETRY, ...this.options.retry };
  }

  /**
   * The shared kafkajs client; with `onLog`, a new one of its own that also reports every log entry
   * there (an entry it answers `'quiet'` for goes to the logger at debug level only). With a `fence`
   * (internal), every connection the client opens goes through it.
   */
  client(onLog?: (entry: LogEntry) => unknown, fence?: ClientFence): Kafka {
    const make = (): Kafka =>
      new Kafka({
        ...this.options.client,
        ...(fence === undefined ? {} : { socketFactory: fence.wrap(this.options.client?.socketFactory ?? defaultSocketFactory) }),
        clientId: this.options.clientId ?? 'keiyaku',
        brokers: [...this.options.brokers],
        ...(this.options.ssl === undefined ? {} : { ssl: this.options.ssl }),
        ...(this.options.sasl === undefined ? {} : { sasl: this.options.sasl }),
        retry: this.retry,
        logLevel: logLevel.INFO,
        logCreator: () => (entry) => {
          const quiet = onLog?.(entry) === 'quiet';
          const {
            message: _message,
            timestamp: _timestamp,
            logger: _logger,
            ...rest
          } = entry.log as LogEntry['log'] & { logger?: unknown };
          const fields = { namespace: entry.namespace, ...rest };
          // kafkajs logs each error response at error level before retrying it itself (a group
          // coordinator still loading, a leader moving); what finally fails surfaces as a crash,
          // a failed send or a cut-off client, so the retried responses are debug lines.
          if (quiet || (entry.level === logLevel.ERROR && entry.namespace === 'Connection' && entry.log.message.startsWith('Response '))) {
            this.logger.debug(`kafka: ${entry.log.message}`, fields);
          } else if (entry.level === logLevel.ERROR) this.logger.error(`kafka: ${entry.log.message}`, fields);
          else if (entry.level === logLevel.WARN) this.logger.warn(`kafka: ${entry.log.message}`, fields);
          else this.logger.debug(`kafka: ${entry.log.message}`, fields);
        },
      });
    if (onLog) return make();
    this.#kafka ??= make();
    return this.#kafka;
  }

  /**
   * Creates the topic of `address` when missing: the binding's `topic` (else the address), its
   * partitions, replicas and topic configs. An existing topic is never altered.
   */
  async provision(address: string, bindings: ChannelBindings): Promise<void> {
    const topic = this.destination(address, bindings);
    let pending = this.#provisioned.get(topic);
    if (pending === undefined) {
      pending = this.#createTopic(
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

  /**
   * Whether the topic of `address` exists. Reads the list of all topics: a metadata request that
   * names a missing topic would let a broker with `auto.create.topics.enable=true` create it.
   */
  async destinationExists(address: string, bindings: ChannelBindings): Promise<boolean> {
    const topic = this.destination(address, bindings);
    const admin = this.client().admin();
    try {
      await admin.connect();
      return (await admin.listTopics()).includes(topic);
    } catch (error) {
      throw toTransportError(error, topic);
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
  }

  async #createTopic(
    topic: string,
    partitions: number,
    replicas: number | undefined,
    configs: Readonly<Record<string, string>> | undefined,
  ): Promise<void> {
    const admin = this.client().admin();
    try {
      await admin.connect();
      const created = await admin.createTopics({
        topics: [
          {
            topic,
            numPartitions: partitions,
            replicationFactor: replicas ?? this.options.replicationFactor ?? 1,
            ...(configs === undefined ? {} : { configEntries: Object.entries(configs).map(([name, value]) => ({ name, value })) }),
          },
        ],
        waitForLeaders: true,
      });
      if (created) {
        await this.#awaitServed(admin, topic);
        this.logger.info('kafka: created topic', { topic, partitions });
        return;
      }
      const metadata = await admin.fetchTopicMetadata({ topics: [topic] });
      const actual = metadata.topics[0]?.partitions.length ?? 0;
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
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
  }

  /**
   * Waits until every partition of a topic (just created, here or elsewhere) is served by its leader. kafkajs'
   * `waitForLeaders` only waits until the metadata names a leader, and a KRaft broker publishes
   * that before its replica manager has taken the partition over: a send in between is refused
   * with "not the leader", and kafkajs retries the whole batch, writing again what the other
   * partitions had already accepted — duplicates in a fresh topic, often on a loaded machine.
   * A partition answers ListOffsets only once its leader serves it. Bounded by `ackTimeoutMs`
   * (30 s; `boundMs` when shorter): past it, sends find out (and retry) on their own.
   */
  async #awaitServed(admin: Admin, topic: string, boundMs?: number): Promise<void> {
    const ackTimeoutMs = this.options.ackTimeoutMs ?? 30_000;
    const deadline = Date.now() + Math.min(ackTimeoutMs, boundMs ?? ackTimeoutMs);
    for (let attempt = 1; ; attempt++) {
      try {
        await admin.fetchTopicOffsets(topic);
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
    const producer = new KafkaTransportProducer(this);
    this.#producers.add(producer);
    return producer;
  }

  consumer(options: ConsumerOptions): TransportConsumer {
    const consumer = new KafkaTransportConsumer(this, options, () => this.#consumers.delete(consumer));
    this.#consumers.add(consumer);
    return consumer;
  }

  /**
   * Which clients are cut off from the brokers (since when) and how often each was rebuilt.
   * Not ready while any consumer or producer is cut off or a consumer faulted.
   */
  health(): TransportHealth {
    const consumers = [...this.#consumers].map((c) => c.status());
    const producers = [...this.#producers].map((p) => p.status());
    const cut = [...consumers, ...producers].filter((c) => c.cutOffSince !== undefined || c.fault !== undefined);
    const first = cut[0];
    const describe = (c: KafkaClientStatus): string =>
      c.fault !== undefined
        ? `${c.role}${c.group ? ` of group ${c.group}` : ''} faulted: ${c.fault}`
        : `${c.role}${c.group ? ` of group ${c.group}` : ''} cut off from the brokers since ${c.cutOffSince}`;
    return {
      name: this.name,
      ready: first === undefined,
      ...(first === undefined ? {} : { reason: cut.map(describe).join('; ') }),
      details: {
        brokers: [...this.options.brokers],
        rebuilds: [...consumers, ...producers].reduce((n, c) => n + c.rebuilds, 0),
        consumers,
        producers,
      },
    };
  }

  /** Closes every producer and consumer made by this transport; failures are logged. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.#consumers].map((c) => c.close()));
    await Promise.allSettled([...this.#producers].map((p) => p.close()));
  }
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

/** kafkajs' own socket factory (2.2.4 `network/socketFactory.js`): TCP, or TLS with the host as server name. */
const defaultSocketFactory: ISocketFactory = ({ host, port, ssl, onConnect }) => {
  const socket = ssl
    ? tlsConnect({ host, port, ...(isIP(host) ? {} : { servername: host }), ...ssl }, onConnect)
    : tcpConnect({ host, port }, onConnect);
  socket.setKeepAlive(true, 60_000);
  return socket;
};

/**
 * @internal The connections of one kafkajs consumer client. When the transport replaces the client,
 * it opens no new connection (a socket it asks for fails at once), and after its bounded goodbye
 * every connection it still has is cut: nothing of a replaced client reaches the brokers again.
 * kafkajs forgets a client it is still (re)starting when told to stop: without this, such a client
 * joined the group once the brokers were back, as a second member holding partitions it never
 * consumed.
 */
export class ClientFence {
  readonly #sockets = new Set<Socket>();
  #replaced = false;

  /** True once the transport replaced (or closed) the client. */
  get replaced(): boolean {
    return this.#replaced;
  }

  wrap(inner: ISocketFactory): ISocketFactory {
    return (args) => {
      if (this.#replaced) {
        const refused = new Socket();
        setImmediate(() => refused.destroy(new Error('this Kafka client was replaced; it opens no connection')));
        return refused;
      }
      const socket = inner(args);
      this.#sockets.add(socket);
      socket.once('close', () => this.#sockets.delete(socket));
      return socket;
    };
  }

  /** No new connection from now on; the open ones stay for a goodbye (leaving the group). */
  replace(): void {
    this.#replaced = true;
  }

  /** Closes every connection the client still has, and opens none again. */
  cut(): void {
    this.#replaced = true;
    for (const socket of this.#sockets) socket.destroy();
    this.#sockets.clear();
  }
}

/** Waits for `promise` at most `ms`; logs and moves on if it takes longer. */
async function bounded(promise: Promise<unknown>, ms: number, logger: Logger, what: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), ms);
  });
  try {
    const outcome = await Promise.race([promise.then(() => 'done' as const), timeout]);
    if (outcome === 'timeout') logger.warn(`kafka: ${what} did not finish within ${ms} ms; moving on`);
  } catch (error) {
    logger.warn(`kafka: ${what} failed`, { error: String(error) });
  } finally {
    clearTimeout(timer);
  }
}

class KafkaTransportProducer implements TransportProducer {
  readonly #transport: KafkaTransport;
  readonly #cutOff = new CutOff();
  #producer: Producer | undefined;
  #connected: Promise<void> | undefined;
  #inFlight = new Map<Producer, number>();
  #closed = false;

  constructor(transport: KafkaTransport) {
    this.#transport = transport;
  }

  status(): KafkaClientStatus {
    const since = this.#cutOff.since;
    return {
      role: 'producer',
      ...(since === undefined ? {} : { cutOffSince: new Date(since).toISOString() }),
      rebuilds: this.#cutOff.totalRebuilds,
    };
  }

  #ensure(): { producer: Producer; connected: Promise<void> } {
    if (this.#producer === undefined || this.#connected === undefined) {
      const kafka = this.#transport.client((entry) => {
        if (entry.level <= logLevel.WARN && isConnectivity(entry.log)) this.#cutOff.mark(Date.now());
      });
      const producer = kafka.producer({
        retry: this.#transport.retry,
        allowAutoTopicCreation: false,
        idempotent: false,
        createPartitioner: keyPartitioner,
      });
      this.#producer = producer;
      this.#connected = producer.connect().catch((error: unknown) => {
        this.#connected = undefined;
        throw error;
      });
    }
    return { producer: this.#producer, connected: this.#connected };
  }

  async send(records: readonly OutgoingRecord[]): Promise<void> {
    if (this.#closed) throw new ClosedError('the kafka producer');
    this.#maybeRebuild();
    const { producer, connected } = this.#ensure();
    this.#inFlight.set(producer, (this.#inFlight.get(producer) ?? 0) + 1);
    const deadline = publishDeadline(this.#transport.options.publishTimeoutMs, records[0]?.address);
    try {
      await deadline.race(connected);
      const byTopic = new Map<string, { key: string | null; value: Buffer; headers: Record<string, string> }[]>();
      for (const record of records) {
        const topic = this.#transport.topic(record.address);
        let list = byTopic.get(topic);
        if (list === undefined) {
          list = [];
          byTopic.set(topic, list);
        }
        if (this.#transport.contentMode(record.address) === 'structured') {
          const structured = toStructured(record.headers, record.value);
          list.push({ key: record.key ?? null, value: structured.value, headers: structured.headers });
        } else {
          list.push({
            key: record.key ?? null,
            value: Buffer.from(record.value.buffer, record.value.byteOffset, record.value.byteLength),
            headers: record.headers as Record<string, string>, // kafkajs only reads them
          });
        }
      }
      const { ackTimeoutMs } = this.#transport.options;
      await deadline.race(
        producer.sendBatch({
          topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })),
          acks: -1,
          ...(ackTimeoutMs === undefined ? {} : { timeout: ackTimeoutMs }),
        }),
      );
      this.#cutOff.clear();
    } catch (error) {
      if (isConnectivity(error)) this.#cutOff.mark(Date.now());
      throw toTransportError(error, records[0]?.address);
    } finally {
      deadline.clear();
      const left = (this.#inFlight.get(producer) ?? 1) - 1;
      if (left === 0) this.#inFlight.delete(producer);
      else this.#inFlight.set(producer, left);
    }
  }

  /** A producer cut off for longer than `rebuildAfterMs` is replaced; the old one is drained, then discarded. */
  #maybeRebuild(): void {
    const since = this.#cutOff.since;
    const after = this.#transport.options.rebuildAfterMs ?? 90_000;
    if (since === undefined || this.#producer === undefined || Date.now() - since < after) return;
    const old = this.#producer;
    this.#producer = undefined;
    this.#connected = undefined;
    this.#cutOff.since = Date.now();
    this.#cutOff.totalRebuilds++;
    this.#transport.logger.warn('kafka: producer cut off; rebuilding its client', { cutOffMs: Date.now() - since });
    void this.#discard(old);
  }

  async #discard(old: Producer): Promise<void> {
    while ((this.#inFlight.get(old) ?? 0) > 0) await new Promise((resolve) => setTimeout(resolve, 50));
    await bounded(old.disconnect(), 30_000, this.#transport.logger, 'disconnecting a replaced producer');
  }

  async close(): Promise<void> {
    this.#closed = true;
    const producer = this.#producer;
    this.#producer = undefined;
    if (producer) await this.#discard(producer);
  }
}

class KafkaTransportConsumer implements TransportConsumer {
  readonly #transport: KafkaTransport;
  readonly #options: ConsumerOptions;
  readonly #topic: string;
  readonly #onClose: () => void;
  readonly #cutOff = new CutOff();
  /** Rebuilds while cut off, on the runtime's backoff without jitter: rebuildAfterMs, doubling, up to maxRebuildIntervalMs. */
  readonly #rebuildBackoff: Backoff;
  readonly #buffer: IncomingRecord[] = [];
  readonly #acked = new Map<number, number>();
  readonly #committed = new Map<number, number>();
  readonly #delivered = new Map<number, number>();
  readonly #high = new Map<number, number>();
  readonly #paused = new Set<number>();
  /** Last offset of the batch kafkajs holds open, per partition. */
  readonly #batchEnd = new Map<number, number>();
  #assigned: number[] = [];
  #waiters = new Set<Waiter>();
  #consumer: Consumer | undefined;
  /** The connections of the current kafkajs client. */
  #fence: ClientFence | undefined;
  #running: Promise<void> | undefined;
  #fault: TransportError | undefined;
  #watchdog: NodeJS.Timeout | undefined;
  #rebuilding = false;
  #closed = false;

  constructor(transport: KafkaTransport, options: ConsumerOptions, onClose: () => void) {
    this.#transport = transport;
    this.#options = options;
    this.#topic = transport.topic(options.address);
    this.#onClose = onClose;
    this.#rebuildBackoff = exponentialBackoff({
      initialMs: transport.options.rebuildAfterMs ?? 90_000,
      multiplier: 2,
      maxMs: transport.options.maxRebuildIntervalMs ?? 600_000,
      jitter: 0,
    });
    this.#running = this.#start();
    this.#watchdog = setInterval(() => this.#checkCutOff(), 1_000);
    this.#watchdog.unref();
  }

  #wake(): void {
    const waiters = [...this.#waiters];
    this.#waiters.clear();
    for (const wake of waiters) wake();
  }

  #wait(ms: number, signal?: AbortSignal): Promise<void> {
    return waitForWake(this.#waiters, { timeoutMs: ms, signal });
  }

  async #start(): Promise<void> {
    const { logger } = this.#transport;
    const fence = new ClientFence();
    const kafka = this.#transport.client((entry) => {
      // A replaced client's retries and errors say nothing about the current one.
      if (fence.replaced) return 'quiet';
      if (entry.level <= logLevel.WARN && isConnectivity(entry.log)) this.#cutOff.mark(Date.now());
      if (entry.level <= logLevel.ERROR && isAuthentication(entry.log))
        this.#faultWith(new TransportError('kafka', `authentication failed: ${entry.log.message}`, { retriable: false }));
      return undefined;
    }, fence);
    const consumer = kafka.consumer({
      groupId: this.#transport.group(this.#options.groupId),
      // A replaced client must never restart itself and rejoin the group as a stale member.
      retry: { ...this.#transport.retry, restartOnFailure: async () => !fence.replaced && !this.#closed },
      sessionTimeout: this.#transport.options.sessionTimeoutMs ?? 30_000,
      heartbeatInterval: this.#transport.options.heartbeatIntervalMs ?? 3_000,
      maxWaitTimeInMs: this.#transport.options.maxWaitTimeInMs ?? 500,
      allowAutoTopicCreation: false,
    });
    this.#consumer = consumer;
    this.#fence = fence;
    consumer.on(consumer.events.GROUP_JOIN, (event) => {
      if (fence.replaced) {
        // Only a join already under way when the client was replaced gets here: cut its connections
        // at once, so it holds partitions no longer than its session timeout.
        logger.warn('kafka: a replaced client rejoined the group; cutting its connections', { group: event.payload.groupId });
        fence.cut();
        return;
      }
      const assignment = event.payload.memberAssignment[this.#topic] ?? [];
      this.#assigned = [...assignment].sort((a, b) => a - b);
      for (const map of [this.#delivered, this.#acked, this.#committed])
        for (const p of [...map.keys()]) if (!this.#assigned.includes(p)) map.delete(p);
      this.#cutOff.clear();
      logger.info('kafka: joined group', { group: event.payload.groupId, topic: this.#topic, partitions: this.#assigned });
    });
    consumer.on(consumer.events.CRASH, (event) => {
      const error = event.payload.error;
      if (fence.replaced) {
        // The end of a replaced client: nothing to rebuild (the current client is another one).
        logger.debug('kafka: a replaced consumer client stopped', { group: event.payload.groupId, error: error.message });
        return;
      }
      if (isAuthentication(error)) {
        this.#faultWith(new TransportError('kafka', `authentication failed: ${error.message}`, { retriable: false, cause: error }));
        return;
      }
      logger.error('kafka: consumer crashed', { group: event.payload.groupId, restart: event.payload.restart, error: error.message });
      if (!event.payload.restart && !this.#closed) void this.#rebuild('the consumer crashed and kafkajs will not restart it');
    });
    try {
      await consumer.connect();
      await consumer.subscribe({ topic: this.#topic, fromBeginning: this.#transport.options.fromBeginning ?? true });
      await consumer.run({
        autoCommit: false,
        eachBatchAutoResolve: false,
        partitionsConsumedConcurrently: 64,
        eachBatch: (payload) => this.#eachBatch(consumer, fence, payload),
      });
      for (const partition of this.#paused) consumer.pause([{ topic: this.#topic, partitions: [partition] }]);
    } catch (error) {
      if (isAuthentication(error))
        this.#faultWith(
          new TransportError('kafka', `authentication failed: ${String((error as Error).message)}`, { retriable: false, cause: error }),
        );
      else {
        this.#cutOff.mark(Date.now());
        logger.error('kafka: consumer could not start; it will be rebuilt', { topic: this.#topic, error: String(error) });
      }
    }
  }

  status(): KafkaClientStatus {
    const since = this.#cutOff.since;
    return {
      role: 'consumer',
      topic: this.#topic,
      group: this.#transport.group(this.#options.groupId),
      ...(since === undefined ? {} : { cutOffSince: new Date(since).toISOString() }),
      rebuilds: this.#cutOff.totalRebuilds,
      ...(this.#fault === undefined ? {} : { fault: this.#fault.message }),
    };
  }

  #faultWith(error: TransportError): void {
    if (this.#fault) return;
    this.#fault = error;
    this.#transport.logger.error(`kafka: ${error.message}`, { topic: this.#topic, group: this.#options.groupId });
    this.#wake();
  }

  async #eachBatch(
    consumer: Consumer,
    fence: ClientFence,
    { batch, resolveOffset, heartbeat, isRunning, isStale }: EachBatchPayload,
  ): Promise<void> {
    // A replaced client stops for good (not retriable: kafkajs neither retries nor restarts it);
    // returning would have it fetch the same batch again and again.
    if (fence.replaced) throw new TransportError('kafka', 'this consumer client was replaced', { retriable: false });
    if (consumer !== this.#consumer) return;
    const partition = batch.partition;
    this.#high.set(partition, Number(batch.highWatermark));
    if (batch.messages.length === 0) return;
    this.#cutOff.clear();
    const delivered = this.#delivered.get(partition) ?? -1;
    const fresh = batch.messages.filter((m) => Number(m.offset) > delivered);
    for (const message of fresh) this.#buffer.push(recordFromKafka(message, this.#options.address, partition));
    const last = Number(batch.messages[batch.messages.length - 1]!.offset);
    if (last > delivered) this.#delivered.set(partition, last);
    this.#batchEnd.set(partition, last);
    this.#wake();
    // Keep the batch open until the belt acknowledged all of it, so kafkajs does not fetch it again.
    while (isRunning() && !isStale() && !this.#closed && consumer === this.#consumer) {
      const acked = this.#acked.get(partition);
      if (acked !== undefined && acked > 0) resolveOffset(String(acked - 1));
      if (acked !== undefined && acked > last) return;
      if (this.#paused.has(partition)) return; // resumed later; what the belt holds is not delivered twice
      await this.#wait(1_000);
      try {
        await heartbeat();
      } catch (error) {
        this.#transport.logger.debug('kafka: heartbeat during a batch failed (rebalance); the batch is given back', {
          error: String(error),
        });
        return;
      }
    }
  }

  async poll(signal: AbortSignal): Promise<readonly IncomingRecord[]> {
    if (this.#closed) throw new ClosedError(`the kafka consumer of ${this.#options.groupId}`);
    if (this.#fault) throw this.#fault;
    if (this.#buffer.length === 0 && !signal.aborted) await this.#wait(this.#transport.options.maxWaitTimeInMs ?? 500, signal);
    if (this.#fault) throw this.#fault;
    return this.#buffer.splice(0, this.#options.batchSize);
  }

  ack(record: IncomingRecord): void {
    const next = Number(record.offset) + 1;
    if (next > (this.#acked.get(record.partition) ?? 0)) this.#acked.set(record.partition, next);
    // Wake the open batch of this partition only when the belt has acknowledged all of it.
    const target = this.#batchEnd.get(record.partition);
    if (target !== undefined && next > target) this.#wake();
  }

  async commit(): Promise<void> {
    const consumer = this.#consumer;
    if (consumer === undefined) return;
    if (this.#cutOff.since !== undefined) {
      // Committing blocks for the length of an outage; acknowledged offsets are cumulative, the next commit carries them.
      throw new TransportError(
        'kafka',
        `not committing while cut off from the brokers (since ${new Date(this.#cutOff.since).toISOString()})`,
        { address: this.#options.address },
      );
    }
    const offsets = [...this.#acked]
      .filter(([partition, next]) => this.#assigned.includes(partition) && next > (this.#committed.get(partition) ?? -1))
      .map(([partition, next]) => ({ topic: this.#topic, partition, offset: String(next) }));
    if (offsets.length === 0) return;
    try {
      await consumer.commitOffsets(offsets);
      for (const o of offsets) this.#committed.set(o.partition, Number(o.offset));
    } catch (error) {
      if (isConnectivity(error)) this.#cutOff.mark(Date.now());
      throw toTransportError(error, this.#options.address);
    }
  }

  pause(partition: number): void {
    this.#paused.add(partition);
    try {
      this.#consumer?.pause([{ topic: this.#topic, partitions: [partition] }]);
    } catch {
      // not running yet: applied when it starts
    }
    this.#wake();
  }

  resume(partition: number): void {
    this.#paused.delete(partition);
    try {
      this.#consumer?.resume([{ topic: this.#topic, partitions: [partition] }]);
    } catch {
      // not running: nothing to resume
    }
  }

  positions(): readonly PartitionPosition[] {
    return this.#assigned.map((partition) => {
      const committed = this.#committed.get(partition);
      const acked = this.#acked.get(partition);
      const high = this.#high.get(partition);
      return {
        partition,
        ...(committed === undefined ? {} : { committed: String(committed) }),
        ...(acked === undefined ? {} : { acknowledged: String(acked) }),
        ...(high === undefined ? {} : { highWatermark: String(high) }),
        ...(high === undefined ? {} : { lag: Math.max(0, high - (committed ?? 0)) }),
      };
    });
  }

  #checkCutOff(): void {
    const since = this.#cutOff.since;
    if (since === undefined || this.#closed || this.#fault || this.#rebuilding) return;
    const interval = this.#rebuildBackoff.delay(this.#cutOff.rebuilds + 1);
    const reference = Math.max(since, this.#cutOff.lastRebuild);
    if (Date.now() - reference >= interval) void this.#rebuild(`cut off from the brokers for ${Math.round((Date.now() - since) / 1000)} s`);
  }

  /** Replaces the kafkajs client in place; this object keeps its identity. Resumes from committed offsets. */
  async #rebuild(reason: string): Promise<void> {
    // One rebuild at a time: two overlapping rebuilds would leave an orphaned client in the group.
    if (this.#closed || this.#rebuilding) return;
    this.#rebuilding = true;
    try {
      await this.#replace(reason);
    } finally {
      this.#rebuilding = false;
    }
  }

  async #replace(reason: string): Promise<void> {
    const old = this.#consumer;
    const fence = this.#fence;
    this.#cutOff.rebuilds++;
    this.#cutOff.totalRebuilds++;
    this.#cutOff.lastRebuild = Date.now();
    this.#transport.logger.warn(`kafka: rebuilding the consumer of ${this.#options.groupId}: ${reason}`, {
      topic: this.#topic,
      rebuilds: this.#cutOff.rebuilds,
    });
    this.#consumer = undefined;
    this.#fence = undefined;
    // What was delivered but not acknowledged is redelivered by the new client from the committed offsets.
    this.#delivered.clear();
    this.#buffer.length = 0;
    // The old client opens no connection from now on: kafkajs may be starting it again (its own
    // restart), and such a start would join the group once the brokers are back.
    fence?.replace();
    // It leaves the group on the connections it has (bounded: with the broker gone it cannot say
    // goodbye, and the broker drops it after the session timeout); then they are cut.
    if (old) await bounded(old.disconnect(), 10_000, this.#transport.logger, 'disconnecting a replaced consumer');
    fence?.cut();
    if (this.#closed) return;
    this.#running = this.#start();
    await this.#running;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#watchdog) clearInterval(this.#watchdog);
    this.#wake();
    await this.#running?.catch(() => undefined);
    const consumer = this.#consumer;
    const fence = this.#fence;
    this.#consumer = undefined;
    if (consumer) await bounded(consumer.disconnect(), 10_000, this.#transport.logger, 'leaving the consumer group');
    // A client kafkajs was still starting when told to stop opens nothing more.
    fence?.cut();
    this.#onClose();
  }
}
