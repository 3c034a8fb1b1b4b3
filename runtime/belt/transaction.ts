/**
 * The transaction of a transactional subscription (Kafka → Kafka consume-process-produce): the
 * records its handlers publish and the offsets of the records it acknowledges commit together,
 * or not at all. One transaction is open at a time; it begins lazily with the first record sent
 * into it (or at a commit with offsets to commit), and the belt's commits end it:
 * wait for its sends, `sendOffsets(group, consumer.uncommitted())`, `commit()`, then
 * `consumer.committed(offsets)`.
 *
 * A record's outputs and its acknowledgment go together: {@link BeltTransaction.handOff} sends
 * them and acknowledges the record in one synchronous step while no commit is under way, so a
 * commit never carries a record's outputs without its offset, or its offset without its outputs.
 */
import { hostname } from 'node:os';
import type { ConsumedOffset, TransactionalProducer, Transport, TransportConsumer, TransportTransaction } from '../core/transport.js';
import type { Captured } from './belt.js';
import { type SubscriptionOptions, TransactionalSubscriptionError } from './options.js';

/** What {@link transactionFor} needs of the subscription. */
export interface TransactionSite {
  readonly transport: Transport;
  readonly consumer: TransportConsumer;
  readonly groupId: string;
  readonly channel: string;
  readonly topic: string;
  /** Told of a transaction that could not begin. */
  readonly failed: (error: unknown) => void;
}

/** The transaction of a subscription with the `transactional` option; throws when the transport cannot run one. */
export function transactionFor(option: SubscriptionOptions<never>['transactional'], site: TransactionSite): BeltTransaction {
  const { transport, consumer, groupId, channel } = site;
  if (transport.transactionalProducer === undefined || consumer.uncommitted === undefined || consumer.committed === undefined)
    throw new TransactionalSubscriptionError(
      'transactions_unsupported',
      `the subscription of ${groupId} to ${channel} is transactional, but the ${transport.name} transport has no transactions; remove the \`transactional\` option or use a transport with transactions (Kafka, memory)`,
    );
  const given = typeof option === 'object' ? option.transactionalId : undefined;
  if (given !== undefined && given.trim() === '')
    throw new TransactionalSubscriptionError(
      'invalid_transactional_id',
      `the transactionalId of the subscription of ${groupId} to ${channel} is empty; leave it out for the default or give a non-empty id`,
    );
  // Stable across restarts on one host, so a restarted instance fences what its predecessor left open.
  const id = given ?? `keiyaku.${groupId}.${site.topic}.${hostname()}`;
  return new BeltTransaction(transport.transactionalProducer(id), groupId, site.failed);
}

/** A promise that resolves when `signal` aborts (one per signal). */
const aborted = new WeakMap<AbortSignal, Promise<void>>();
function whenAborted(signal: AbortSignal): Promise<void> {
  let promise = aborted.get(signal);
  if (promise === undefined) {
    promise = new Promise((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', () => resolve(), { once: true });
    });
    aborted.set(signal, promise);
  }
  return promise;
}

export class BeltTransaction {
  readonly producer: TransactionalProducer;
  readonly #groupId: string;
  /** Told of a transaction that could not begin (the subscription restarts, or fails when fenced). */
  readonly #failed: (error: unknown) => void;
  #open: TransportTransaction | undefined;
  #beginning: Promise<TransportTransaction | undefined> | undefined;
  /** Sends into the open transaction not yet awaited by a commit. */
  #sends: Promise<void>[] = [];
  /** Settles when the commit under way ends. */
  #committing: Promise<void> | undefined;

  constructor(producer: TransactionalProducer, groupId: string, failed: (error: unknown) => void) {
    this.producer = producer;
    this.#groupId = groupId;
    this.#failed = failed;
  }

  /** Whether a transaction is open (or beginning). */
  get open(): boolean {
    return this.#open !== undefined || this.#beginning !== undefined;
  }

  /**
   * Sends `captured` into the open transaction (beginning one, after a commit under way) and calls
   * `ack` in the same step. False when `round` aborted first or the transaction could not begin:
   * then nothing was sent and the record is not acknowledged.
   */
  async handOff(captured: Captured, ack: () => void, round: AbortSignal): Promise<boolean> {
    while (true) {
      if (round.aborted) return false;
      if (this.#committing !== undefined) await Promise.race([this.#committing, whenAborted(round)]);
      else if (this.#open === undefined) {
        if ((await Promise.race([this.#begin(), whenAborted(round)])) === undefined && !round.aborted) return false;
      } else break;
    }
    const sent = this.#open.send(captured.records);
    // A failed send fails the commit that awaits it (which aborts the transaction); not unhandled meanwhile.
    sent.catch(() => undefined);
    this.#sends.push(sent);
    ack();
    return true;
  }

  /** Begins the transaction once for all who ask; undefined (and the subscription told) when it cannot. */
  #begin(): Promise<TransportTransaction | undefined> {
    this.#beginning ??= this.producer.begin().then(
      (transaction) => {
        this.#beginning = undefined;
        this.#open = transaction;
        return transaction;
      },
      (error: unknown) => {
        this.#beginning = undefined;
        this.#failed(error);
        return undefined;
      },
    );
    return this.#beginning;
  }

  /**
   * Commits the open transaction with the consumer's acknowledged offsets (beginning one when only
   * offsets are due). On failure the transaction is aborted and the error thrown: its outputs are
   * gone and its offsets not committed. Returns the offsets committed.
   */
  async commit(consumer: TransportConsumer): Promise<readonly ConsumedOffset[]> {
    let resolve!: () => void;
    this.#committing = new Promise<void>((r) => {
      resolve = r;
    });
    let transaction: TransportTransaction | undefined;
    try {
      if (this.#beginning !== undefined) await this.#beginning;
      transaction = this.#open;
      if (transaction === undefined) {
        if (consumer.uncommitted!().length === 0) return [];
        transaction = await this.producer.begin();
        this.#open = transaction;
      }
      const sends = this.#sends;
      this.#sends = [];
      await Promise.all(sends);
      const offsets = consumer.uncommitted!();
      if (offsets.length > 0) await transaction.sendOffsets(this.#groupId, offsets);
      await transaction.commit();
      consumer.committed!(offsets);
      return offsets;
    } catch (error) {
      await transaction?.abort().catch(() => undefined);
      throw error;
    } finally {
      this.#open = undefined;
      this.#sends = [];
      this.#committing = undefined;
      resolve();
    }
  }

  /** Aborts the open transaction, if any (a restart, or shutdown after a failure). Never throws. */
  async abort(): Promise<void> {
    if (this.#beginning !== undefined) await this.#beginning;
    const transaction = this.#open;
    this.#open = undefined;
    this.#sends = [];
    await transaction?.abort().catch(() => undefined);
  }
}
