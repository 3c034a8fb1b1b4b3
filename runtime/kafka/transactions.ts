/**
 * Kafka transactions behind `Transport.transactionalProducer`: one kafkajs producer per
 * transactional id (namespaced like topics and groups), idempotent, one request in flight.
 * `begin()` opens a kafkajs transaction; records sent in it (as the plain producer sends them)
 * and consumed offsets given to it (`sendOffsets`) become visible to `read_committed` readers
 * together on `commit`, or never.
 *
 * The first `begin()` initialises the producer id under the transactional id, which fences any
 * earlier producer with that id and aborts the transaction it left open. A producer fenced in
 * turn (a newer one took the id over) fails with {@link ProducerFencedError} from then on, and
 * never re-initialises by itself: that would fence the newer one back. After any other failure the
 * next `begin()` starts over with a new kafkajs producer, which aborts whatever the failed
 * transaction left open.
 */
import {
  ClosedError,
  type ConsumedOffset,
  type OutgoingRecord,
  type TransactionalProducer,
  TransportError,
  type TransportTransaction,
} from '@keiyaku/runtime/adapter';
import type { LogEntry, Producer, Transaction } from 'kafkajs';
import { bounded, type KafkaClients } from './client.js';
import { toTransportError } from './errors.js';
import { keyPartitioner } from './partitioner.js';
import { isRetriesWarning, topicMessages } from './producer.js';
import { publishDeadline } from './publish-timeout.js';

/** kafkajs' and the Java client's default transaction timeout. */
export const DEFAULT_TRANSACTION_TIMEOUT_MS = 60_000;

/**
 * Another producer with the same transactional id took over (a restarted instance, or a second one
 * configured with the same id): this producer's open transaction was aborted, and it can no longer
 * write. Not retriable on this producer.
 */
export class ProducerFencedError extends TransportError {
  override readonly code: string = 'producer_fenced';
  readonly transactionalId: string;

  constructor(transactionalId: string, cause: unknown) {
    super(
      'kafka',
      `the transactional producer ${transactionalId} was fenced: another instance with the same transactional id took over, and this one's open transaction was aborted. Give each concurrently running instance its own stable transactional id`,
      { retriable: false, cause },
    );
    this.transactionalId = transactionalId;
  }
}

/** kafkajs 2.2.4 knows INVALID_PRODUCER_EPOCH (47) but not PRODUCER_FENCED (90), which it reports as an unknown code. */
export function isFenced(error: unknown): boolean {
  for (
    let e = error as { type?: string; message?: string; cause?: unknown } | undefined, depth = 0;
    e && depth < 5;
    e = e.cause as typeof e, depth++
  ) {
    if (e.type === 'INVALID_PRODUCER_EPOCH' || e.type === 'PRODUCER_FENCED') return true;
    if (e.type === 'KAFKAJS_UNKNOWN_ERROR_CODE' && /\b90\b/.test(e.message ?? '')) return true;
  }
  return false;
}

function isConcurrentTransactions(entry: LogEntry): boolean {
  const error = (entry.log as { error?: unknown }).error;
  return /another concurrent operation on the same transaction/.test(`${entry.log.message} ${String(error)}`);
}

/** @internal One transactional id's kafkajs producer. */
export class KafkaTransactionalProducer implements TransactionalProducer {
  readonly transactionalId: string;
  readonly #transport: KafkaClients;
  readonly #onClose: () => void;
  #producer: Producer | undefined;
  #open: KafkaTransaction | undefined;
  /** The next `begin()` starts over with a new kafkajs producer (after a failure). */
  #broken = false;
  #fenced: ProducerFencedError | undefined;
  #closed = false;

  constructor(transport: KafkaClients, transactionalId: string, onClose: () => void) {
    if (transactionalId === '')
      throw new TransportError('kafka', 'a transactional producer needs a non-empty transactional id', { retriable: false });
    this.#transport = transport;
    this.transactionalId = transactionalId;
    this.#onClose = onClose;
  }

  async begin(): Promise<TransportTransaction> {
    if (this.#closed) throw new ClosedError(`the kafka transactional producer ${this.transactionalId}`);
    if (this.#fenced) throw this.#fenced;
    if (this.#open?.active) {
      throw new TransportError(
        'kafka',
        `the transactional producer ${this.transactionalId} already has an open transaction; commit or abort it first`,
        {
          retriable: false,
        },
      );
    }
    if (this.#broken && this.#producer) {
      const old = this.#producer;
      this.#producer = undefined;
      await bounded(old.disconnect(), 10_000, this.#transport.logger, 'disconnecting a failed transactional producer');
    }
    this.#broken = false;
    try {
      if (this.#producer === undefined) {
        // A transaction begun right after a commit finds the broker still writing the last one's markers
        // (CONCURRENT_TRANSACTIONS): kafkajs retries it, logging an error first. It is the normal case, so
        // quiet; and retried from 50 ms rather than the transport's first wait (300 ms), with more retries
        // to cover as long an outage.
        const kafka = this.#transport.client((entry) => (isRetriesWarning(entry) || isConcurrentTransactions(entry) ? 'quiet' : undefined));
        const retry = this.#transport.retry;
        const producer = kafka.producer({
          transactionalId: this.#transport.group(this.transactionalId),
          idempotent: true,
          maxInFlightRequests: 1,
          transactionTimeout: this.#transport.options.transactionTimeoutMs ?? DEFAULT_TRANSACTION_TIMEOUT_MS,
          retry: { ...retry, initialRetryTime: Math.min(retry.initialRetryTime ?? 300, 50), retries: (retry.retries ?? 5) + 3 },
          allowAutoTopicCreation: false,
          createPartitioner: keyPartitioner,
        });
        this.#producer = producer;
        await producer.connect();
      }
      const transaction = await this.#producer.transaction();
      this.#open = new KafkaTransaction(this, this.#transport, transaction);
      return this.#open;
    } catch (error) {
      throw this.failed(error);
    }
  }

  /** @internal A failure of this producer or its transaction, as the typed error to throw. */
  failed(error: unknown, address?: string): TransportError {
    if (isFenced(error)) {
      this.#fenced ??= new ProducerFencedError(this.transactionalId, error);
      return this.#fenced;
    }
    this.#broken = true;
    return toTransportError(error, address);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#open?.abort();
    const producer = this.#producer;
    this.#producer = undefined;
    if (producer) await bounded(producer.disconnect(), 10_000, this.#transport.logger, 'disconnecting a transactional producer');
    this.#onClose();
  }
}

/** @internal One open kafkajs transaction. */
class KafkaTransaction implements TransportTransaction {
  readonly #owner: KafkaTransactionalProducer;
  readonly #transport: KafkaClients;
  readonly #transaction: Transaction;
  #ended = false;

  constructor(owner: KafkaTransactionalProducer, transport: KafkaClients, transaction: Transaction) {
    this.#owner = owner;
    this.#transport = transport;
    this.#transaction = transaction;
  }

  get active(): boolean {
    return !this.#ended && this.#transaction.isActive();
  }

  async send(records: readonly OutgoingRecord[]): Promise<void> {
    if (records.length === 0) return;
    const address = records[0]?.address;
    const deadline = publishDeadline(this.#transport.options.publishTimeoutMs, address);
    const { ackTimeoutMs } = this.#transport.options;
    try {
      await deadline.race(
        this.#transaction.sendBatch({
          topicMessages: topicMessages(this.#transport, records),
          acks: -1,
          ...(ackTimeoutMs === undefined ? {} : { timeout: ackTimeoutMs }),
        }),
      );
    } catch (error) {
      throw this.#owner.failed(error, address);
    } finally {
      deadline.clear();
    }
  }

  async sendOffsets(groupId: string, offsets: readonly ConsumedOffset[]): Promise<void> {
    if (offsets.length === 0) return;
    const byTopic = new Map<string, { partition: number; offset: string }[]>();
    for (const o of offsets) {
      const topic = this.#transport.topic(o.address);
      const list = byTopic.get(topic) ?? [];
      list.push({ partition: o.partition, offset: o.offset });
      byTopic.set(topic, list);
    }
    try {
      await this.#transaction.sendOffsets({
        consumerGroupId: this.#transport.group(groupId),
        topics: [...byTopic].map(([topic, partitions]) => ({ topic, partitions })),
      });
    } catch (error) {
      throw this.#owner.failed(error, offsets[0]?.address);
    }
  }

  async commit(): Promise<void> {
    try {
      await this.#transaction.commit();
      this.#ended = true;
    } catch (error) {
      // kafkajs takes no abort after a failed commit; the next begin() initialises the id again,
      // and that finishes what the broker holds of this transaction.
      throw this.#owner.failed(error);
    }
  }

  async abort(): Promise<void> {
    if (!this.active) return;
    this.#ended = true;
    try {
      await this.#transaction.abort();
    } catch (error) {
      // The broker aborts it anyway: on the transaction timeout, or when the id is initialised again.
      this.#owner.failed(error);
      this.#transport.logger.debug('kafka: aborting a transaction failed; it ends on the transaction timeout or the next begin', {
        error: String(error),
      });
    }
  }
}
