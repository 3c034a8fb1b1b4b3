/**
 * The producer of the Kafka transport. Each publisher batch is one kafkajs `sendBatch` with acks
 * from all in-sync replicas; per-key order comes from Kafka's key partitioner. A send that fails
 * after kafkajs' retries rejects, so the publisher can retry it and, in the end, reach the caller.
 * A producer cut off for longer than `rebuildAfterMs` gets a new kafkajs producer in place.
 */
import { ClosedError, type OutgoingRecord, type TransportProducer, toStructured } from '@keiyaku/runtime/adapter';
import { logLevel, type Producer } from 'kafkajs';
import { bounded, CutOff, type KafkaClients } from './client.js';
import { isConnectivity, toTransportError } from './errors.js';
import type { KafkaClientStatus } from './options.js';
import { keyPartitioner } from './partitioner.js';
import { publishDeadline } from './publish-timeout.js';

/** @internal A publisher's producer: one kafkajs producer, rebuilt in place after a long cut-off. */
export class KafkaTransportProducer implements TransportProducer {
  readonly #transport: KafkaClients;
  readonly #cutOff = new CutOff();
  #producer: Producer | undefined;
  #connected: Promise<void> | undefined;
  #inFlight = new Map<Producer, number>();
  #closed = false;

  constructor(transport: KafkaClients) {
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
