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
  type ChannelBindings,
  ClosedError,
  type ConsumedOffset,
  isProducerFenced,
  type OutgoingRecord,
  ProducerFencedError,
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
  /** This producer committed a transaction with a note: its value is the id's last note. */
  #noted = false;
  #lastNote: string | undefined;

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
    try {
      const producer = await this.#connected();
      const transaction = await producer.transaction();
      this.#open = new KafkaTransaction(this, this.#transport, transaction);
      return this.#open;
    } catch (error) {
      throw this.failed(error);
    }
  }

  /** The kafkajs producer, connected: a new one after a failure. */
  async #connected(): Promise<Producer> {
    if (this.#broken && this.#producer) {
      const old = this.#producer;
      this.#producer = undefined;
      await bounded(old.disconnect(), 10_000, this.#transport.logger, 'disconnecting a failed transactional producer');
    }
    this.#broken = false;
    if (this.#producer !== undefined) return this.#producer;
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
    return producer;
  }

  /**
   * The note of the id's last committed transaction: the one this producer committed, or else the
   * record at the notes group's committed offset - 1. Takes the id over first (an empty kafkajs
   * transaction initialises the producer id, which finishes what a predecessor left open).
   */
  async lastNote(): Promise<string | undefined> {
    if (this.#closed) throw new ClosedError(`the kafka transactional producer ${this.transactionalId}`);
    if (this.#fenced) throw this.#fenced;
    if (this.#noted) return this.#lastNote;
    if (this.#open?.active)
      throw new TransportError('kafka', `lastNote of ${this.transactionalId} refused: a transaction is open`, { retriable: false });
    try {
      const producer = await this.#connected();
      await (await producer.transaction()).abort();
      const notes = transactionNotes(this.#transport, this.transactionalId);
      await this.#transport.provision(TRANSACTION_NOTES_ADDRESS, NOTES_BINDINGS);
      const admin = this.#transport.client().admin();
      let committed: string | undefined;
      try {
        await admin.connect();
        const [topic] = await admin.fetchOffsets({ groupId: notes.group, topics: [notes.topic] });
        committed = topic?.partitions.find((p) => p.partition === 0)?.offset;
      } finally {
        await admin.disconnect().catch(() => undefined);
      }
      if (committed === undefined || committed === '' || BigInt(committed) <= 0n) return undefined;
      return await readNote(this.#transport, notes, (BigInt(committed) - 1n).toString());
    } catch (error) {
      if (error instanceof TransportError) throw error;
      throw this.failed(error);
    }
  }

  /** @internal A commit failed: the last note is read from the broker again. */
  forgetNote(): void {
    this.#noted = false;
    this.#lastNote = undefined;
  }

  /** @internal A transaction with a note committed. */
  noted(value: string): void {
    this.#noted = true;
    this.#lastNote = value;
  }

  /** @internal A failure of this producer or its transaction, as the typed error to throw. */
  failed(error: unknown, address?: string): TransportError {
    if (isProducerFenced(error)) {
      this.#fenced ??= new ProducerFencedError('kafka', this.transactionalId, 'the transaction', { cause: error });
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

/** The address (namespaced like any) of the compacted one-partition topic of transaction notes. */
export const TRANSACTION_NOTES_ADDRESS = 'keiyaku.transaction-notes';
const NOTES_BINDINGS: ChannelBindings = { kafka: { partitions: 1, configs: { 'cleanup.policy': 'compact' } } };

interface Notes {
  readonly topic: string;
  /** The record key: the transactional id as the broker knows it. */
  readonly key: string;
  /** The group whose committed offset is the last note's offset + 1. */
  readonly group: string;
}

function transactionNotes(transport: KafkaClients, transactionalId: string): Notes {
  return {
    topic: transport.topic(TRANSACTION_NOTES_ADDRESS),
    key: transport.group(transactionalId),
    group: transport.group(`${TRANSACTION_NOTES_ADDRESS}.${transactionalId}`),
  };
}

/**
 * The note at `offset` (read_committed): a short-lived consumer seeks to it. kafkajs has no
 * assign-and-fetch; a startup-only cost.
 */
async function readNote(transport: KafkaClients, notes: Notes, offset: string): Promise<string | undefined> {
  const consumer = transport.client().consumer({
    groupId: `${notes.group}.reader`,
    readUncommitted: false,
    allowAutoTopicCreation: false,
    maxWaitTimeInMs: 100,
  });
  await consumer.connect();
  let timer: NodeJS.Timeout | undefined;
  try {
    await consumer.subscribe({ topics: [notes.topic], fromBeginning: false });
    return await new Promise<string | undefined>((resolve, reject) => {
      timer = setTimeout(
        () => reject(new TransportError('kafka', `reading the transaction note of ${notes.key} at ${notes.topic}:0@${offset} timed out`)),
        transport.options.ackTimeoutMs ?? 30_000,
      );
      consumer
        .run({
          autoCommit: false,
          eachMessage: async ({ message }) => {
            if (BigInt(message.offset) < BigInt(offset)) return;
            if (message.offset !== offset || message.key?.toString() !== notes.key)
              reject(
                new TransportError('kafka', `the transaction note of ${notes.key} is not at ${notes.topic}:0@${offset}`, {
                  retriable: false,
                }),
              );
            else resolve(message.value?.toString());
          },
        })
        .then(() => consumer.seek({ topic: notes.topic, partition: 0, offset }), reject);
    });
  } finally {
    clearTimeout(timer);
    await bounded(consumer.disconnect(), 10_000, transport.logger, 'disconnecting a transaction note reader');
  }
}

/** @internal One open kafkajs transaction. */
class KafkaTransaction implements TransportTransaction {
  readonly #owner: KafkaTransactionalProducer;
  readonly #transport: KafkaClients;
  readonly #transaction: Transaction;
  #note: string | undefined;
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
    // A record refused here (too many headers) is refused before anything is sent: the transaction stays usable.
    const messages = topicMessages(this.#transport, records);
    const deadline = publishDeadline(this.#transport.options.publishTimeoutMs, address);
    const { ackTimeoutMs } = this.#transport.options;
    try {
      await deadline.race(
        this.#transaction.sendBatch({
          topicMessages: messages,
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

  /** One record (key: the transactional id) in the notes topic, and its offset + 1 committed for the id's notes group. */
  async note(value: string): Promise<void> {
    const notes = transactionNotes(this.#transport, this.#owner.transactionalId);
    try {
      await this.#transport.provision(TRANSACTION_NOTES_ADDRESS, NOTES_BINDINGS);
      const [sent] = await this.#transaction.send({
        topic: notes.topic,
        messages: [{ key: notes.key, value, partition: 0 }],
        acks: -1,
      });
      if (sent?.baseOffset === undefined) throw new TransportError('kafka', `the broker gave no offset for the note of ${notes.key}`);
      await this.#transaction.sendOffsets({
        consumerGroupId: notes.group,
        topics: [{ topic: notes.topic, partitions: [{ partition: 0, offset: (BigInt(sent.baseOffset) + 1n).toString() }] }],
      });
      this.#note = value;
    } catch (error) {
      throw this.#owner.failed(error, TRANSACTION_NOTES_ADDRESS);
    }
  }

  async commit(): Promise<void> {
    try {
      await this.#transaction.commit();
      this.#ended = true;
      if (this.#note !== undefined) this.#owner.noted(this.#note);
    } catch (error) {
      // kafkajs takes no abort after a failed commit; the next begin() initialises the id again,
      // and that finishes what the broker holds of this transaction.
      // Whether it committed (and its note with it) is known only from the broker now.
      this.#owner.forgetNote();
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
