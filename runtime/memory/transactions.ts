/**
 * Transactions of the in-memory transport, as Kafka's behave for a `read_committed` reader:
 * records sent in a transaction are appended to their addresses (in order, like one send) only
 * when it commits, and the consumed offsets given to it are committed for their group at the same
 * moment; an aborted transaction leaves nothing. A second producer with the same transactional id
 * fences the first: its open transaction is aborted and its later calls throw
 * {@link ProducerFencedError}.
 */
import { ClosedError, KeiyakuError, ProducerFencedError } from '../core/errors.js';
import type { ConsumedOffset, OutgoingRecord, TransactionalProducer, TransportTransaction } from '../core/transport.js';

/** What a transaction needs of the transport at commit. */
export interface TransactionHost {
  append(records: readonly OutgoingRecord[]): void;
  notify(): void;
  /** Commits `offset` for `groupId` on `address`'s `partition`. */
  commitOffset(address: string, groupId: string, partition: number, offset: number): void;
}

/** The live producer of each transactional id (the newest: it fenced the ones before it). */
export class TransactionalIds {
  readonly #live = new Map<string, MemoryTransactionalProducer>();
  /** The note of each id's last committed transaction that carried one. */
  readonly #notes = new Map<string, string>();
  readonly #host: TransactionHost;

  constructor(host: TransactionHost) {
    this.#host = host;
  }

  producer(transactionalId: string): TransactionalProducer {
    if (transactionalId === '') throw new KeiyakuError('invalid_transactional_id', 'a transactional id must not be empty');
    this.#live.get(transactionalId)?.fence();
    const producer = new MemoryTransactionalProducer(transactionalId, this.#host, this.#notes, () => {
      if (this.#live.get(transactionalId) === producer) this.#live.delete(transactionalId);
    });
    this.#live.set(transactionalId, producer);
    return producer;
  }
}

class MemoryTransactionalProducer implements TransactionalProducer {
  readonly transactionalId: string;
  readonly #host: TransactionHost;
  readonly #notes: Map<string, string>;
  readonly #closed: () => void;
  #open: MemoryTransaction | undefined;
  #state: 'live' | 'fenced' | 'closed' = 'live';

  constructor(transactionalId: string, host: TransactionHost, notes: Map<string, string>, closed: () => void) {
    this.transactionalId = transactionalId;
    this.#host = host;
    this.#notes = notes;
    this.#closed = closed;
  }

  async lastNote(): Promise<string | undefined> {
    this.check('lastNote');
    return this.#notes.get(this.transactionalId);
  }

  /** @internal A committing transaction's note becomes the id's last. */
  noted(value: string): void {
    this.#notes.set(this.transactionalId, value);
  }

  /** Another producer took the id: the open transaction is aborted, later calls throw. */
  fence(): void {
    this.#state = 'fenced';
    this.#open?.end();
    this.#open = undefined;
  }

  /** Throws unless the producer may still write. */
  check(what: string): void {
    if (this.#state === 'fenced') throw new ProducerFencedError('memory', this.transactionalId, what);
    if (this.#state === 'closed') throw new ClosedError(`the in-memory transactional producer ${this.transactionalId}`);
  }

  async begin(): Promise<TransportTransaction> {
    this.check('begin');
    if (this.#open !== undefined)
      throw new KeiyakuError(
        'transaction_open',
        `the transactional producer ${this.transactionalId} has a transaction open: commit or abort it before beginning another`,
      );
    const transaction = new MemoryTransaction(this, this.#host, () => {
      if (this.#open === transaction) this.#open = undefined;
    });
    this.#open = transaction;
    return transaction;
  }

  async close(): Promise<void> {
    if (this.#state === 'closed') return;
    this.#open?.end();
    this.#open = undefined;
    if (this.#state === 'live') this.#closed();
    this.#state = 'closed';
  }
}

class MemoryTransaction implements TransportTransaction {
  readonly #producer: MemoryTransactionalProducer;
  readonly #host: TransactionHost;
  readonly #ended: () => void;
  readonly #records: OutgoingRecord[] = [];
  readonly #offsets: { groupId: string; offset: ConsumedOffset }[] = [];
  #note: string | undefined;
  #done = false;

  constructor(producer: MemoryTransactionalProducer, host: TransactionHost, ended: () => void) {
    this.#producer = producer;
    this.#host = host;
    this.#ended = ended;
  }

  #check(what: string): void {
    this.#producer.check(what);
    if (this.#done)
      throw new KeiyakuError('transaction_ended', `${what} refused: the transaction of ${this.#producer.transactionalId} has ended`);
  }

  async send(records: readonly OutgoingRecord[]): Promise<void> {
    this.#check('send');
    this.#records.push(...records);
  }

  async sendOffsets(groupId: string, offsets: readonly ConsumedOffset[]): Promise<void> {
    this.#check('sendOffsets');
    for (const offset of offsets) this.#offsets.push({ groupId, offset });
  }

  async note(value: string): Promise<void> {
    this.#check('note');
    this.#note = value;
  }

  async commit(): Promise<void> {
    this.#check('commit');
    this.end();
    if (this.#note !== undefined) this.#producer.noted(this.#note);
    if (this.#records.length > 0) this.#host.append(this.#records);
    for (const { groupId, offset } of this.#offsets)
      this.#host.commitOffset(offset.address, groupId, offset.partition, Number(offset.offset));
    this.#host.notify();
  }

  async abort(): Promise<void> {
    this.end();
  }

  /** Ends the transaction: what it holds is dropped unless `commit` applies it. */
  end(): void {
    if (this.#done) return;
    this.#done = true;
    this.#ended();
  }
}
