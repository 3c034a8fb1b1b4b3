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
 *
 * This module is the transport itself (clients, topics, health); the roles live beside it:
 * `producer.ts`, `transactions.ts`, `consumer.ts`, `partitioner.ts`, `record.ts` (fetched messages as records),
 * `client.ts` (what producers and consumers share), `errors.ts` (what a kafkajs error means)
 * and `options.ts`.
 */
import {
  type ChannelBindings,
  type ConsumerOptions,
  KeiyakuError,
  type TransactionalProducer,
  type TransportConsumer,
  type TransportProducer,
} from '@keiyaku/runtime/adapter';
import { type Admin, Kafka, type LogEntry, logLevel, type RetryOptions } from 'kafkajs';
import { KafkaTransportBase } from './base.js';
import { type ClientFence, defaultSocketFactory, type KafkaClients } from './client.js';
import { KafkaTransportConsumer } from './consumer.js';
import { isLeadershipPending, toTransportError } from './errors.js';
import type { KafkaDriverTransport, KafkaTransportOptions } from './options.js';
import { KafkaTransportProducer } from './producer.js';
import { KafkaTransactionalProducer } from './transactions.js';

// Names this module defined before it was split by role; they stay importable from here.
export { ClientFence } from './client.js';
export type { KafkaClientStatus, KafkaTransportOptions } from './options.js';
export { keyPartitioner, murmur2 } from './partitioner.js';
export type { KafkaMessageIn } from './record.js';
export { recordFromKafka } from './record.js';

const DEFAULT_RETRY: RetryOptions = { retries: 5, initialRetryTime: 300, maxRetryTime: 30_000, factor: 0.2, multiplier: 2 };

export class KafkaTransport extends KafkaTransportBase implements KafkaDriverTransport, KafkaClients {
  readonly driver = 'kafkajs';
  #kafka: Kafka | undefined;

  constructor(options: KafkaTransportOptions) {
    super(options, 'kafkajs', 'KafkaTransport', 'kafkajs');
    if (options.groupProtocol === 'consumer')
      throw new KeiyakuError(
        'kafka_group_protocol_unsupported',
        'kafkajs has no KIP-848 consumer group protocol: leave groupProtocol at "classic" or choose driver "platformatic"',
      );
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

  protected async createTopic(
    topic: string,
    partitions: number,
    replicas: number | undefined,
    configs: Readonly<Record<string, string>> | undefined,
  ): Promise<void> {
    const admin = this.client().admin();
    try {
      await admin.connect();
      let created: boolean;
      try {
        created = await admin.createTopics({
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
      } catch (error) {
        // kafkajs' wait for the leaders of a topic it created retries LEADER_NOT_AVAILABLE only; a loaded KRaft
        // broker can still answer UNKNOWN_TOPIC_OR_PARTITION for it a moment after creating it. Waited for below.
        if (!isLeadershipPending(error)) throw error;
        created = true;
      }
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
    return this.trackProducer(new KafkaTransportProducer(this));
  }

  /**
   * A producer writing in Kafka transactions under `transactionalId` (with the namespace, as groups
   * are): idempotent, one request in flight, transactions aborted by the broker after
   * `transactionTimeoutMs`. Its first `begin()` fences any earlier producer with the same id.
   */
  transactionalProducer(transactionalId: string): TransactionalProducer {
    return this.trackTransactional((onClose) => new KafkaTransactionalProducer(this, transactionalId, onClose));
  }

  consumer(options: ConsumerOptions): TransportConsumer {
    return this.trackConsumer((onClose) => new KafkaTransportConsumer(this, options, onClose));
  }
}
