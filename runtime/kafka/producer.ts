/**
 * The producer of the Kafka transport. Each publisher batch is one kafkajs `sendBatch` with acks
 * from all in-sync replicas; per-key order comes from Kafka's key partitioner. A send that fails
 * after kafkajs' retries rejects, so the publisher can retry it and, in the end, reach the caller.
 * A producer cut off for longer than `rebuildAfterMs` gets a new kafkajs producer in place.
 * Producers are idempotent unless the transport's `idempotent` option is `false`. An idempotent
 * producer sends one batch at a time (KIP-98's one request in flight): kafkajs numbers each send's
 * records per partition when it builds the request and rewinds the numbers when the request fails, so
 * two sends in flight at once can reuse numbers, and the broker then acknowledges a batch as a
 * duplicate without writing it (kafkajs issue #1005). A send whose answer lacks some of its
 * partitions sends their records again ({@link unacknowledged}).
 */
import { ClosedError, type OutgoingRecord, TransportError, type TransportProducer } from '@keiyaku/runtime/adapter';
import { type LogEntry, logLevel, type Producer, type RecordMetadata } from 'kafkajs';
import { bounded, CutOff, type KafkaClients } from './client.js';
import { isConnectivity, toTransportError } from './errors.js';
import { wireMessage } from './messages.js';
import type { KafkaClientStatus } from './options.js';
import { keyPartitioner } from './partitioner.js';
import { publishDeadline } from './publish-timeout.js';

/**
 * @internal kafkajs warns on every idempotent producer built with bounded retries. keiyaku bounds them
 * on purpose (the publish timeout tells the caller) and replaces a producer whose send failed, which
 * keeps what the warning is about (reused sequence numbers) from happening.
 */
export function isRetriesWarning(entry: LogEntry): boolean {
  return entry.log.message.startsWith('Limiting retries for the idempotent producer');
}

type KafkaMessage = { key: string | null; value: Buffer; headers: Record<string, string>; partition?: number };

/** Sends of one batch before a batch whose partitions keep going unacknowledged fails (retriable). */
const MAX_PARTIAL_RESENDS = 5;

/**
 * @internal The messages of `sent` whose partition has no entry in kafkajs' answer, each pinned to the
 * partition it was given. kafkajs 2.2 retries a failed request only for brokers that have not answered
 * yet: a partition whose leader moved, during the send, to a broker that had already answered for
 * other partitions is never sent again, and `sendBatch` still resolves (the leader fault run lost one
 * partition's share of a batch that way). With acks from all in-sync replicas every written partition
 * has an entry, so a partition without one was not written.
 */
export function unacknowledged(
  sent: readonly { topic: string; messages: KafkaMessage[] }[],
  acknowledged: readonly RecordMetadata[],
  partitionOf: WeakMap<object, number>,
): { topic: string; messages: KafkaMessage[] }[] {
  const done = new Set(acknowledged.map((r) => `${r.partition} ${r.topicName}`));
  const missing: { topic: string; messages: KafkaMessage[] }[] = [];
  for (const { topic, messages } of sent) {
    const left: KafkaMessage[] = [];
    for (const message of messages) {
      const partition = partitionOf.get(message);
      if (partition === undefined)
        left.push(message); // never given a partition: not sent
      else if (!done.has(`${partition} ${topic}`)) left.push({ ...message, partition });
    }
    if (left.length > 0) missing.push({ topic, messages: left });
  }
  return missing;
}

/**
 * @internal Records as kafkajs topic messages: topics through `topic()`, binary or structured content mode by address.
 * Throws `TooManyHeadersError` when a record would carry more headers than `maxHeaders` (nothing of the batch is sent).
 */
export function topicMessages(transport: KafkaClients, records: readonly OutgoingRecord[]): { topic: string; messages: KafkaMessage[] }[] {
  const byTopic = new Map<string, KafkaMessage[]>();
  for (const record of records) {
    const topic = transport.topic(record.address);
    let list = byTopic.get(topic);
    if (list === undefined) {
      list = [];
      byTopic.set(topic, list);
    }
    list.push(wireMessage(transport, record) as KafkaMessage); // kafkajs only reads the headers
  }
  return [...byTopic].map(([topic, messages]) => ({ topic, messages }));
}

/** @internal A publisher's producer: one kafkajs producer, rebuilt in place after a long cut-off. */
export class KafkaTransportProducer implements TransportProducer {
  readonly #transport: KafkaClients;
  readonly #cutOff = new CutOff();
  #producer: Producer | undefined;
  #connected: Promise<void> | undefined;
  #inFlight = new Map<Producer, number>();
  /** The partition kafkajs' partitioner gave each message last (see {@link unacknowledged}). */
  readonly #partitionOf = new WeakMap<object, number>();
  /** Idempotent producers: the end of the current send queue, one per kafkajs producer. */
  #queue = new WeakMap<Producer, Promise<void>>();
  #closed = false;
  readonly #idempotent: boolean;

  constructor(transport: KafkaClients) {
    this.#transport = transport;
    this.#idempotent = transport.options.idempotent ?? true;
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
        if (isRetriesWarning(entry)) return 'quiet';
        if (entry.level <= logLevel.WARN && isConnectivity(entry.log)) this.#cutOff.mark(Date.now());
        return undefined;
      });
      const producer = kafka.producer({
        retry: this.#transport.retry,
        allowAutoTopicCreation: false,
        idempotent: this.#idempotent,
        ...(this.#idempotent ? { maxInFlightRequests: 1 } : {}),
        createPartitioner: () => {
          const partitioner = keyPartitioner();
          return (args) => {
            const partition = partitioner(args);
            this.#partitionOf.set(args.message, partition);
            return partition;
          };
        },
      });
      this.#producer = producer;
      this.#connected = producer.connect().catch((error: unknown) => {
        if (this.#producer === producer) this.#connected = undefined;
        throw error;
      });
    }
    return { producer: this.#producer, connected: this.#connected };
  }

  async send(records: readonly OutgoingRecord[]): Promise<void> {
    if (this.#closed) throw new ClosedError('the kafka producer');
    // A record refused here (too many headers) leaves the producer as it is: nothing was sent.
    const topicMessagesToSend = topicMessages(this.#transport, records);
    this.#maybeRebuild();
    const { producer, connected } = this.#ensure();
    this.#inFlight.set(producer, (this.#inFlight.get(producer) ?? 0) + 1);
    const deadline = publishDeadline(this.#transport.options.publishTimeoutMs, records[0]?.address);
    // Idempotent: wait for the sends queued before this one on the same kafkajs producer. A send that
    // times out or fails replaces the producer before its turn ends, so no later send shares its numbers.
    const previous = this.#idempotent ? this.#queue.get(producer) : undefined;
    let endTurn: (() => void) | undefined;
    if (this.#idempotent) {
      const turn = new Promise<void>((resolve) => {
        endTurn = resolve;
      });
      this.#queue.set(producer, previous === undefined ? turn : previous.then(() => turn));
    }
    try {
      if (previous !== undefined) await deadline.race(previous);
      await deadline.race(connected);
      const { ackTimeoutMs } = this.#transport.options;
      let pending = topicMessagesToSend;
      for (let attempt = 1; ; attempt++) {
        const acknowledged = await deadline.race(
          producer.sendBatch({
            topicMessages: pending,
            acks: -1,
            ...(ackTimeoutMs === undefined ? {} : { timeout: ackTimeoutMs }),
          }),
        );
        pending = unacknowledged(pending, acknowledged, this.#partitionOf);
        if (pending.length === 0) break;
        const count = pending.reduce((n, t) => n + t.messages.length, 0);
        if (attempt === MAX_PARTIAL_RESENDS)
          throw new TransportError(
            'kafka',
            `${count} records were not acknowledged after ${attempt} sends (partition leaders kept moving)`,
            {
              ...(records[0]?.address === undefined ? {} : { address: records[0].address }),
              retriable: true,
            },
          );
        this.#transport.logger.warn(
          'kafka: a send came back without some of its partitions (a leader moved); sending their records again',
          {
            records: count,
            partitions: pending.flatMap((t) => [...new Set(t.messages.map((m) => `${t.topic}[${m.partition}]`))]),
          },
        );
      }
      this.#cutOff.clear();
    } catch (error) {
      if (isConnectivity(error)) this.#cutOff.mark(Date.now());
      // kafkajs rewinds the sequence numbers of a failed send; if the broker wrote it after all, the
      // next send under those numbers would be dropped as a duplicate or refused as out of order.
      if (this.#idempotent && this.#producer === producer) this.#replace(producer);
      throw toTransportError(error, records[0]?.address);
    } finally {
      endTurn?.();
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

  /** After a failed idempotent send: the next send goes through a new kafkajs producer (a new producer id). */
  #replace(old: Producer): void {
    this.#producer = undefined;
    this.#connected = undefined;
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
