/**
 * Kafka transactions on `@platformatic/kafka`, as the kafkajs driver has them (`../transactions.ts`):
 * one producer per transactional id (namespaced like groups), idempotent, records written as the
 * plain producer writes them, consumed offsets given to the transaction (`sendOffsets`) and a note
 * (`note`) visible to `read_committed` readers together on `commit`, or never.
 *
 * The first `begin()` initialises the producer id under the transactional id, which fences any
 * earlier producer with that id and aborts the transaction it left open. A producer fenced in turn
 * fails with {@link ProducerFencedError} from then on and never re-initialises by itself. After any
 * other failure the next `begin()` starts over with a new client, which aborts whatever the failed
 * transaction left open. The broker aborts a transaction left open after `transactionTimeoutMs`.
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
import type { Admin, Consumer, Message, ProduceResult, Producer } from '@platformatic/kafka';
import { bounded } from '../client.js';
import { publishDeadline } from '../publish-timeout.js';
import { DEFAULT_TRANSACTION_TIMEOUT_MS, TRANSACTION_NOTES_ADDRESS } from '../transactions.js';
import type { PlatformaticClients, PlatformaticModule } from './client.js';
import { isFenced, toTransportError } from './errors.js';
import { idempotentRetries, keyPartitioner, platformaticMessages } from './producer.js';

type BytesProducer = Producer<Buffer, Buffer, Buffer, Buffer>;
type BytesTransaction = Awaited<ReturnType<BytesProducer['beginTransaction']>>;

const NOTES_BINDINGS: ChannelBindings = { kafka: { partitions: 1, configs: { 'cleanup.policy': 'compact' } } };

interface Notes {
  readonly topic: string;
  /** The record key: the transactional id as the broker knows it. */
  readonly key: string;
  /** The group whose committed offset is the last note's offset + 1. */
  readonly group: string;
}

function transactionNotes(transport: PlatformaticClients, transactionalId: string): Notes {
  return {
    topic: transport.topic(TRANSACTION_NOTES_ADDRESS),
    key: transport.group(transactionalId),
    group: transport.group(`${TRANSACTION_NOTES_ADDRESS}.${transactionalId}`),
  };
}

/** @internal One transactional id's `@platformatic/kafka` producer. */
export class PlatformaticTransactionalProducer implements TransactionalProducer {
  readonly transactionalId: string;
  readonly #transport: PlatformaticClients;
  readonly #onClose: () => void;
  #kafka: PlatformaticModule | undefined;
  #producer: BytesProducer | undefined;
  #admin: Admin | undefined;
  /** Group coordinators by group id (TxnOffsetCommit goes to the group's coordinator). */
  readonly #coordinators = new Map<string, number>();
  #open: PlatformaticTransaction | undefined;
  /** The next `begin()` starts over with a new client (after a failure). */
  #broken = false;
  #fenced: ProducerFencedError | undefined;
  #closed = false;
  /** This producer committed a transaction with a note: its value is the id's last note. */
  #noted = false;
  #lastNote: string | undefined;

  constructor(transport: PlatformaticClients, transactionalId: string, onClose: () => void) {
    if (transactionalId === '')
      throw new TransportError('kafka', 'a transactional producer needs a non-empty transactional id', { retriable: false });
    this.#transport = transport;
    this.transactionalId = transactionalId;
    this.#onClose = onClose;
  }

  async begin(): Promise<TransportTransaction> {
    this.#usable();
    if (this.#open?.active)
      throw new TransportError(
        'kafka',
        `the transactional producer ${this.transactionalId} already has an open transaction; commit or abort it first`,
        { retriable: false },
      );
    try {
      const producer = await this.#connected();
      this.#open = new PlatformaticTransaction(this, this.#transport, await producer.beginTransaction());
      return this.#open;
    } catch (error) {
      throw this.failed(error);
    }
  }

  #usable(): void {
    if (this.#closed) throw new ClosedError(`the kafka transactional producer ${this.transactionalId}`);
    if (this.#fenced) throw this.#fenced;
  }

  /** The client: a new one after a failure (its first transaction takes the id over again). */
  async #connected(): Promise<BytesProducer> {
    if (this.#broken && this.#producer) {
      const old = this.#producer;
      this.#producer = undefined;
      await bounded(old.close(), 10_000, this.#transport.logger, 'closing a failed transactional producer');
    }
    this.#broken = false;
    if (this.#producer !== undefined) return this.#producer;
    this.#kafka ??= await this.#transport.load();
    const base = this.#transport.baseOptions();
    this.#producer = new this.#kafka.Producer<Buffer, Buffer, Buffer, Buffer>({
      ...base,
      // A transaction begun right after a commit finds the broker still writing the last one's
      // markers (CONCURRENT_TRANSACTIONS), retried by the client: a few more retries than a send.
      retries: idempotentRetries(base.retries) + 3,
      idempotent: true,
      transactionalId: this.#transport.group(this.transactionalId),
      // InitProducerId "with no producer yet": the client's default (0, 0) asks the broker to bump
      // producer 0's epoch, which it refuses as fenced whenever another producer holds the id.
      producerId: -1n,
      producerEpoch: -1,
      // The client sends its `timeout` as the transaction timeout of InitProducerId.
      timeout: this.#transport.options.transactionTimeoutMs ?? DEFAULT_TRANSACTION_TIMEOUT_MS,
      acks: this.#kafka.ProduceAcks.ALL,
      autocreateTopics: false,
      partitioner: keyPartitioner(),
    });
    return this.#producer;
  }

  /** @internal The admin client of this producer (coordinators, the notes group's offset). */
  async admin(): Promise<Admin> {
    this.#kafka ??= await this.#transport.load();
    this.#admin ??= new this.#kafka.Admin(this.#transport.baseOptions());
    return this.#admin;
  }

  /** @internal The node coordinating `group` (asked once per group). */
  async coordinator(group: string): Promise<number> {
    const known = this.#coordinators.get(group);
    if (known !== undefined) return known;
    const [found] = await (await this.admin()).findCoordinator({ keyType: 0, keys: [group] });
    if (found === undefined) throw new TransportError('kafka', `no coordinator found for group ${group}`);
    this.#coordinators.set(group, found.nodeId);
    return found.nodeId;
  }

  /**
   * The note of the id's last committed transaction: the one this producer committed, or else the
   * record at the notes group's committed offset - 1. Takes the id over first (beginning a
   * transaction initialises the producer id, which finishes what a predecessor left open).
   */
  async lastNote(): Promise<string | undefined> {
    this.#usable();
    if (this.#noted) return this.#lastNote;
    if (this.#open?.active)
      throw new TransportError('kafka', `lastNote of ${this.transactionalId} refused: a transaction is open`, { retriable: false });
    try {
      const producer = await this.#connected();
      await (await producer.beginTransaction()).cancel();
      const notes = transactionNotes(this.#transport, this.transactionalId);
      await this.#transport.provision(TRANSACTION_NOTES_ADDRESS, NOTES_BINDINGS);
      const [group] = await (await this.admin()).listConsumerGroupOffsets({
        groups: [{ groupId: notes.group, topics: [{ name: notes.topic, partitionIndexes: [0] }] }],
        requireStable: true,
      });
      const committed = group?.topics.find((t) => t.name === notes.topic)?.partitions.find((p) => p.partitionIndex === 0)?.committedOffset;
      if (committed === undefined || committed <= 0n) return undefined;
      return await readNote(this.#transport, this.#kafka!, notes, committed - 1n);
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

  /** @internal The fenced error, once this producer is known to be fenced. */
  get fenced(): ProducerFencedError | undefined {
    return this.#fenced;
  }

  /** @internal A failure of this producer or its transaction, as the typed error to throw. */
  failed(error: unknown, address?: string): TransportError {
    if (this.#fenced) return this.#fenced;
    if (isFenced(error) || isProducerFenced(error)) {
      this.#fenced = new ProducerFencedError('kafka', this.transactionalId, 'the transaction', { cause: error });
      return this.#fenced;
    }
    this.#broken = true;
    this.#coordinators.clear();
    return toTransportError(error, address);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#open?.abort();
    const producer = this.#producer;
    this.#producer = undefined;
    if (producer) await bounded(producer.close(), 10_000, this.#transport.logger, 'closing a transactional producer');
    const admin = this.#admin;
    this.#admin = undefined;
    if (admin) await bounded(admin.close(), 10_000, this.#transport.logger, 'closing the admin client of a transactional producer');
    this.#onClose();
  }
}

/** The note at `offset` (read_committed): a short-lived consumer reads from it. A startup-only cost. */
async function readNote(
  transport: PlatformaticClients,
  kafka: PlatformaticModule,
  notes: Notes,
  offset: bigint,
): Promise<string | undefined> {
  const consumer = new kafka.Consumer<Buffer, Buffer, Buffer, Buffer>({
    ...transport.baseOptions(),
    groupId: `${notes.group}.reader`,
    isolationLevel: kafka.FetchIsolationLevels.READ_COMMITTED,
    maxWaitTime: 100,
    autocommit: false,
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    const stream = await consumer.consume({
      topics: [notes.topic],
      mode: 'manual',
      offsets: [{ topic: notes.topic, partition: 0, offset }],
    });
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new TransportError('kafka', `reading the transaction note of ${notes.key} at ${notes.topic}:0@${offset} timed out`)),
        transport.options.ackTimeoutMs ?? 30_000,
      );
    });
    const read = (async (): Promise<string | undefined> => {
      for await (const message of stream) {
        if (message.offset < offset) continue;
        if (message.offset !== offset || message.key?.toString('utf8') !== notes.key)
          throw new TransportError('kafka', `the transaction note of ${notes.key} is not at ${notes.topic}:0@${offset}`, {
            retriable: false,
          });
        return message.value?.toString('utf8');
      }
      return undefined;
    })();
    try {
      return await Promise.race([read, timeout]);
    } finally {
      await bounded(stream.close(), 10_000, transport.logger, 'closing a transaction note reader');
    }
  } finally {
    clearTimeout(timer);
    await bounded(consumer.close(true as boolean | undefined), 10_000, transport.logger, 'closing a transaction note reader');
  }
}

/** @internal One open transaction. */
class PlatformaticTransaction implements TransportTransaction {
  readonly #owner: PlatformaticTransactionalProducer;
  readonly #transport: PlatformaticClients;
  readonly #transaction: BytesTransaction;
  /** Sends and offsets one after the other: the client numbers a batch when it builds the request. */
  #tail: Promise<unknown> = Promise.resolve();
  #note: string | undefined;
  /** Something was sent or offset in it (an empty one ends without asking the broker). */
  #touched = false;
  #ended = false;

  constructor(owner: PlatformaticTransactionalProducer, transport: PlatformaticClients, transaction: BytesTransaction) {
    this.#owner = owner;
    this.#transport = transport;
    this.#transaction = transaction;
  }

  get active(): boolean {
    return !this.#ended && !this.#transaction.completed;
  }

  /** Runs `step` after the steps before it, failing it as the producer's failure. */
  #step<T>(step: () => Promise<T>, address?: string): Promise<T> {
    const fenced = this.#owner.fenced;
    if (fenced) return Promise.reject(fenced);
    this.#touched = true;
    const run = this.#tail.then(step, step);
    this.#tail = run.catch(() => undefined);
    return run.catch((error: unknown) => {
      throw this.#owner.failed(error, address);
    });
  }

  async send(records: readonly OutgoingRecord[]): Promise<void> {
    if (records.length === 0) return;
    const address = records[0]?.address;
    const deadline = publishDeadline(this.#transport.options.publishTimeoutMs, address);
    const messages = platformaticMessages(this.#transport, records);
    try {
      await deadline.race(this.#step(() => this.#transaction.send({ messages }), address));
    } catch (error) {
      throw this.#owner.failed(error, address);
    } finally {
      deadline.clear();
    }
  }

  async sendOffsets(groupId: string, offsets: readonly ConsumedOffset[]): Promise<void> {
    if (offsets.length === 0) return;
    await this.#offsets(
      this.#transport.group(groupId),
      offsets.map((o) => ({ topic: this.#transport.topic(o.address), partition: o.partition, next: BigInt(o.offset) })),
      offsets[0]?.address,
    );
  }

  /**
   * Commits `next` of each partition for `group` with the transaction. The client commits a consumed
   * message's offset + 1 and reads the group from the message: offsets committed for a group this
   * producer is not a member of carry no generation (-1) and no member id, as the Java client's
   * `sendOffsetsToTransaction(offsets, groupId)` does.
   */
  #offsets(group: string, offsets: readonly { topic: string; partition: number; next: bigint }[], address?: string): Promise<void> {
    return this.#step(async () => {
      await this.#transaction.addConsumer({ groupId: group } as Consumer<Buffer, Buffer, Buffer, Buffer>);
      const coordinatorId = await this.#owner.coordinator(group);
      for (const { topic, partition, next } of offsets) {
        await this.#transaction.addOffset({
          topic,
          partition,
          offset: next - 1n,
          metadata: { consumer: { groupId: group, generationId: -1, memberId: '', coordinatorId } },
        } as unknown as Message<Buffer, Buffer, Buffer, Buffer>);
      }
    }, address);
  }

  /** One record (key: the transactional id) in the notes topic, and its offset + 1 committed for the id's notes group. */
  async note(value: string): Promise<void> {
    const notes = transactionNotes(this.#transport, this.#owner.transactionalId);
    try {
      await this.#transport.provision(TRANSACTION_NOTES_ADDRESS, NOTES_BINDINGS);
    } catch (error) {
      throw this.#owner.failed(error, TRANSACTION_NOTES_ADDRESS);
    }
    const sent = await this.#step<ProduceResult>(
      () =>
        this.#transaction.send({
          messages: [{ topic: notes.topic, partition: 0, key: Buffer.from(notes.key, 'utf8'), value: Buffer.from(value, 'utf8') }],
        }),
      TRANSACTION_NOTES_ADDRESS,
    );
    const base = sent.offsets?.find((o) => o.topic === notes.topic && o.partition === 0)?.offset;
    if (base === undefined) throw new TransportError('kafka', `the broker gave no offset for the note of ${notes.key}`);
    await this.#offsets(notes.group, [{ topic: notes.topic, partition: 0, next: base + 1n }], TRANSACTION_NOTES_ADDRESS);
    this.#note = value;
  }

  async commit(): Promise<void> {
    try {
      await this.#step(() => this.#transaction.commit());
      this.#ended = true;
      if (this.#note !== undefined) this.#owner.noted(this.#note);
    } catch (error) {
      // Whether it committed (and its note with it) is known only from the broker now; the next
      // begin() starts over with a new client, which finishes what the broker holds of it.
      this.#owner.forgetNote();
      this.#ended = true;
      throw error;
    }
  }

  async abort(): Promise<void> {
    if (!this.active) return;
    this.#ended = true;
    if (this.#owner.fenced) return;
    try {
      await this.#tail;
      if (this.#touched) await this.#transaction.abort();
      else await this.#transaction.cancel();
    } catch (error) {
      // The broker aborts it anyway: on the transaction timeout, or when the id is initialised again.
      this.#owner.failed(error);
      this.#transport.logger.debug('kafka: aborting a transaction failed; it ends on the transaction timeout or the next begin', {
        error: String(error),
      });
    }
  }
}
