/**
 * The fault run's concurrent reader of topic `out`: a plain kafkajs consumer with `read_committed`,
 * as a downstream service would read. It reads from the start while the run goes on, through the
 * broker's kill (a consumer that gives up is replaced by a new one reading from the start), and
 * keeps each record once by partition and offset, so reading a record again counts nothing twice.
 * Duplicates are therefore distinct records with the same message id: written twice.
 */
import { randomUUID } from 'node:crypto';
import { type Consumer, Kafka, logLevel } from 'kafkajs';
import { type ReadRecord, recordOf, sleep } from './fault-kit.js';

export class CommittedReader {
  readonly #kafka: Kafka;
  readonly #topic: string;
  /** `partition:offset` → record. */
  readonly records = new Map<string, ReadRecord>();
  /** Next offset to read per partition, from the end of each fetched batch (markers included). */
  readonly #next = new Map<number, bigint>();
  #consumer: Consumer | undefined;
  #stopped = false;
  /** Consumers replaced after they gave up (the broker was away too long for their retries). */
  replaced = 0;

  constructor(brokers: string, topic: string) {
    this.#kafka = new Kafka({
      brokers: brokers.split(','),
      clientId: 'exactly-once-reader',
      logLevel: logLevel.NOTHING,
      retry: { retries: 10, initialRetryTime: 200, maxRetryTime: 2_000 },
    });
    this.#topic = topic;
  }

  async start(): Promise<void> {
    const consumer = this.#kafka.consumer({
      groupId: `exactly-once-reader-${randomUUID()}`,
      maxWaitTimeInMs: 100,
      sessionTimeout: 6_000,
      heartbeatInterval: 500,
      readUncommitted: false,
    });
    this.#consumer = consumer;
    consumer.on(consumer.events.END_BATCH_PROCESS, ({ payload }) => {
      const next = BigInt(payload.lastOffset) + 1n;
      if (next > (this.#next.get(payload.partition) ?? 0n)) this.#next.set(payload.partition, next);
    });
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      if (payload.restart || this.#stopped || this.#consumer !== consumer) return;
      this.replaced++;
      void consumer
        .disconnect()
        .catch(() => undefined)
        .then(() => sleep(1_000))
        .then(() => (this.#stopped ? undefined : this.start()))
        .catch(() => this.#retry(consumer));
    });
    try {
      await consumer.connect();
      await consumer.subscribe({ topic: this.#topic, fromBeginning: true });
      await consumer.run({
        eachMessage: async ({ partition, message }) => {
          this.records.set(`${partition}:${message.offset}`, recordOf(partition, message));
        },
      });
    } catch {
      await this.#retry(consumer);
    }
  }

  async #retry(consumer: Consumer): Promise<void> {
    if (this.#stopped || this.#consumer !== consumer) return;
    this.replaced++;
    await consumer.disconnect().catch(() => undefined);
    await sleep(1_000);
    if (!this.#stopped) await this.start();
  }

  /** Whether every partition is read up to `ends` (the high watermarks). */
  caughtUp(ends: ReadonlyMap<number, bigint>): boolean {
    for (const [partition, end] of ends) if (end > 0n && (this.#next.get(partition) ?? 0n) < end) return false;
    return true;
  }

  /** How often each message id (`ce_id`) was read. */
  counts(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const record of this.records.values()) {
      const id = record.headers['ce_id'] ?? '';
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    return counts;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#consumer?.disconnect().catch(() => undefined);
  }
}
