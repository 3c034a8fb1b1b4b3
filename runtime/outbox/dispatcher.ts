/**
 * The outbox dispatcher: a component hosted by `Messaging` (`messaging.host(...)`, kind
 * `outbox`) that publishes committed outbox rows through the transport, in order per
 * partition key, in batches, then marks them published.
 *
 * - Steps overlap: while a batch is being sent, the next one is claimed (without the rows in
 *   flight), and the rows the transport acknowledged are deleted (or marked published) by that
 *   same claim, in one statement, when the store supports it (`claimNext`). A row of the next batch
 *   whose key had a row of the batch in flight not acknowledged is left for a later claim, so a key's
 *   rows still go out in order. Batches are capped by rows and by bytes.
 * - A batch goes out in one send. When that send fails, each key's rows are retried one by one
 *   (keys concurrently), so a row the broker refuses is found and only its key waits: the
 *   first failing row of a key gets its attempt counted and a backoff, later rows of that key
 *   wait behind it (order kept), and every other key keeps flowing.
 * - After `maxAttempts` failed attempts a row goes dead: it keeps its error and attempts, is
 *   logged, counted in health, and no longer holds its key back (see docs/outbox.md).
 * - At least once: a row is marked published only after the transport acknowledged it; a
 *   dispatcher that dies between the two publishes it again after a restart.
 * - `transactional` (Kafka): a batch goes out in one Kafka transaction, committed only while the
 *   dispatcher still holds its lease, and marked published after the commit. What a dispatcher
 *   killed mid-transaction sent is never read by `read_committed` readers: its successor (same
 *   transactional id) fences it and the broker aborts its transaction. Each transaction carries a
 *   note (`TransportTransaction.note`) of the row ids it publishes; before its first claim, and after
 *   marking rows published failed, the dispatcher reads the last committed note and marks its rows
 *   published: a dispatcher killed between the commit and the marking sends nothing twice.
 */
import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import { exponentialBackoff } from '../core/backoff.js';
import type { Clock } from '../core/clock.js';
import { systemClock } from '../core/clock.js';
import { isProducerFenced } from '../core/errors.js';
import type { HostedComponent, HostedComponentHealth } from '../core/hosted.js';
import { type Logger, silentLogger } from '../core/logger.js';
import type { OutgoingRecord, TransactionalProducer, Transport, TransportProducer, TransportTransaction } from '../core/transport.js';
import {
  type Batch,
  CommitUnknown,
  capOutboxBatch as capBytes,
  DEFAULT_OUTBOX_BATCH_BYTES,
  DEFAULT_RETRY,
  keysOf,
  LeaseLost,
  NO_KEYS,
  noteIds,
  type OutboxDispatcherDeps,
  type OutboxDispatcherOptions,
  type OutboxDispatcherStatus,
  Provisioner,
  SettleFirst,
} from './dispatcher-parts.js';
import { dispatcherOwner, type OutboxCounts, type OutboxDispatchStore, OutboxError, type OutboxRow } from './outbox.js';

export type { OutboxDispatcherDeps, OutboxDispatcherOptions, OutboxDispatcherStatus } from './dispatcher-parts.js';
export { DEFAULT_OUTBOX_BATCH_BYTES } from './dispatcher-parts.js';

export class OutboxDispatcher implements HostedComponent {
  readonly kind = 'outbox';
  readonly name: string;
  readonly owner: string;
  readonly #store: OutboxDispatchStore;
  readonly #transport: Transport;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #options: Required<Omit<OutboxDispatcherOptions, 'channels' | 'retry' | 'name' | 'transactional'>>;
  /** The transactional id when the dispatcher publishes in transactions. */
  readonly transactionalId: string | undefined;
  readonly #backoff;
  readonly #addresses: Provisioner;
  readonly #stop = new AbortController();
  #producer: TransportProducer | undefined;
  #transactions: TransactionalProducer | undefined;
  /** One transaction at a time: the keys of the row-by-row path take turns. */
  #turn: Promise<void> = Promise.resolve();
  /** Times the lease was found lost; a batch commits only if it did not change since its claim. */
  #leaseLosses = 0;
  /** Rows the transport acknowledged, deleted (or marked published) by the next claim. */
  #acked: string[] = [];
  #fenced: string | undefined;
  #loop: Promise<void> | undefined;
  #renewTimer: NodeJS.Timeout | undefined;
  #counts: OutboxCounts = { pending: 0, dead: 0, published: 0 };
  #countsAt = Number.NEGATIVE_INFINITY;
  #published = 0;
  #failedAttempts = 0;
  #lastError: string | undefined;
  #lostLease = false;
  #started = false;
  /** The rows of the last committed transaction's note are to be marked published before the next claim. */
  #recover = false;
  #prunedAt = Number.NEGATIVE_INFINITY;

  constructor(deps: OutboxDispatcherDeps, options: OutboxDispatcherOptions = {}) {
    this.#store = deps.store;
    this.#transport = deps.transport;
    this.#clock = deps.clock ?? systemClock;
    this.#logger = deps.logger ?? silentLogger;
    this.name = options.name ?? 'outbox';
    this.owner = dispatcherOwner(hostname(), process.pid);
    this.#options = {
      batchSize: options.batchSize ?? 500,
      batchBytes: options.batchBytes ?? DEFAULT_OUTBOX_BATCH_BYTES,
      pollIntervalMs: options.pollIntervalMs ?? 1_000,
      maxAttempts: options.maxAttempts ?? 10,
      retentionMs: options.retentionMs ?? 0,
      renewIntervalMs: options.renewIntervalMs ?? 5_000,
      healthIntervalMs: options.healthIntervalMs ?? 1_000,
    };
    this.#backoff = exponentialBackoff({ ...DEFAULT_RETRY, ...options.retry }, deps.random);
    const transactional = options.transactional;
    this.transactionalId =
      transactional === undefined || transactional === false
        ? undefined
        : ((typeof transactional === 'object' ? transactional.transactionalId : undefined) ??
          `keiyaku-outbox.${this.name}.${createHash('sha256').update(deps.store.description).digest('hex').slice(0, 8)}`);
    this.#addresses = new Provisioner(this.#transport, options.channels ?? []);
  }

  /** Takes the store's dispatcher lock or notifications and starts publishing. Rejects with `OutboxLockedError` for a second SQLite dispatcher. */
  async start(): Promise<void> {
    if (this.#started) return;
    if (this.transactionalId !== undefined) {
      if (this.#transport.transactionalProducer === undefined)
        throw new OutboxError(
          'outbox_transactions_unsupported',
          `outbox dispatcher ${this.name}: the option transactional needs a transport with transactions (transactionalProducer); the ${this.#transport.name} transport has none — use the Kafka transport or leave transactional out`,
        );
      if (this.transactionalId === '')
        throw new OutboxError(
          'outbox_transactional_id',
          `outbox dispatcher ${this.name}: transactional.transactionalId is empty; give it a stable id per instance`,
        );
    }
    this.#started = true;
    try {
      await this.#store.open(this.owner);
    } catch (error) {
      this.#started = false;
      throw error;
    }
    await this.#refreshCounts(true);
    this.#producer = this.#transport.producer();
    if (this.transactionalId !== undefined) {
      this.#transactions = this.#transport.transactionalProducer!(this.transactionalId);
      this.#recover = true;
    }
    this.#renewTimer = setInterval(() => void this.#renew(), this.#options.renewIntervalMs);
    this.#renewTimer.unref();
    this.#loop = this.#run();
    this.#logger.info('outbox dispatcher started', { name: this.name, store: this.#store.description, owner: this.owner });
  }

  health(): HostedComponentHealth {
    const status = this.status();
    const ready = status.running && !this.#lostLease && this.#fenced === undefined;
    const reason = this.#lostLease ? 'lost its lease to another dispatcher' : (this.#fenced ?? (this.#started ? 'stopped' : 'not started'));
    return {
      kind: this.kind,
      name: this.name,
      ready,
      ...(ready ? {} : { reason }),
      details: {
        ...(this.transactionalId === undefined ? {} : { transactional: true, transactionalId: this.transactionalId }),
        backlog: status.backlog,
        oldestPendingAgeMs: status.oldestPendingAgeMs,
        dead: status.dead,
        published: status.published,
        failedAttempts: status.failedAttempts,
        ...(status.lastError === undefined ? {} : { lastError: status.lastError }),
      },
    };
  }

  status(): OutboxDispatcherStatus {
    const oldest = this.#counts.oldestPendingAt;
    return {
      running: this.#loop !== undefined && !this.#stop.signal.aborted,
      published: this.#published,
      failedAttempts: this.#failedAttempts,
      dead: this.#counts.dead,
      backlog: this.#counts.pending,
      oldestPendingAgeMs: oldest === undefined ? 0 : Math.max(0, this.#clock.now() - oldest),
      ...(this.#lastError === undefined ? {} : { lastError: this.#lastError }),
    };
  }

  /** Re-reads the backlog figures now (health refreshes them every `healthIntervalMs`). */
  async refresh(): Promise<OutboxDispatcherStatus> {
    await this.#refreshCounts(true);
    return this.status();
  }

  /** Finishes the batch in flight (or abandons it at the deadline: it is published again later), then releases the store. Never throws. */
  async stop(deadline: AbortSignal = AbortSignal.timeout(10_000)): Promise<void> {
    if (!this.#started) return;
    this.#stop.abort();
    if (this.#renewTimer) clearInterval(this.#renewTimer);
    this.#renewTimer = undefined;
    if (this.#loop) {
      await new Promise<void>((resolve) => {
        const done = (): void => resolve();
        if (deadline.aborted) return resolve();
        deadline.addEventListener('abort', done, { once: true });
        void this.#loop!.finally(() => {
          deadline.removeEventListener('abort', done);
          resolve();
        });
      });
    }
    for (const step of [
      () => this.#store.release(this.owner),
      () => this.#producer?.close(),
      () => this.#transactions?.close(),
      () => this.#store.close(),
    ]) {
      try {
        await step();
      } catch (error) {
        this.#logger.error('outbox dispatcher: stopping step failed', { name: this.name, error: String(error) });
      }
    }
    this.#logger.info('outbox dispatcher stopped', { name: this.name, published: this.#published });
  }

  async #renew(): Promise<void> {
    try {
      this.#held(await this.#store.renew(this.owner));
    } catch (error) {
      this.#logger.warn('outbox dispatcher could not renew its lease', { name: this.name, error: String(error) });
    }
  }

  /** What a renewal found: a lost lease is counted (a batch claimed before it does not commit) and stops claims until renewed. */
  #held(held: boolean): boolean {
    if (held) {
      this.#lostLease = false;
      return true;
    }
    this.#leaseLosses++;
    if (!this.#lostLease) {
      this.#lostLease = true;
      this.#logger.error('outbox dispatcher lost its lease; another dispatcher took over', { name: this.name, owner: this.owner });
    }
    return false;
  }

  async #refreshCounts(force = false): Promise<void> {
    const now = this.#clock.now();
    if (!force && now - this.#countsAt < this.#options.healthIntervalMs) return;
    this.#countsAt = now;
    this.#counts = await this.#store.counts();
  }

  async #run(): Promise<void> {
    const signal = this.#stop.signal;
    let failures = 0;
    while (!signal.aborted) {
      try {
        await this.#refreshCounts();
        await this.#pruneIfDue();
        if (this.#lostLease) {
          await this.#settle();
          await this.#store.wait(this.#options.pollIntervalMs, signal);
          continue;
        }
        if (this.#recover) await this.#recoverNoted();
        const batch = await this.#claim([]);
        failures = 0;
        if (batch.rows.length === 0) {
          await this.#settle();
          await this.#refreshCounts(true);
          await this.#store.wait(this.#options.pollIntervalMs, signal);
          continue;
        }
        await this.#pipeline(batch);
      } catch (error) {
        if (signal.aborted) break;
        // The database is unreachable (restart, network): keep trying; rows stay pending.
        failures++;
        this.#lastError = String(error);
        const delay = Math.min(this.#options.pollIntervalMs * 2 ** Math.min(failures - 1, 5), 30_000);
        this.#logger.warn('outbox dispatcher: database step failed; retrying', { name: this.name, error: this.#lastError, delayMs: delay });
        await this.#clock.sleep(delay, signal).catch(() => undefined);
      }
    }
    // Stopping: the rows the transport acknowledged are marked now rather than sent again after a restart.
    await this.#settle().catch((error: unknown) =>
      this.#logger.warn('outbox dispatcher: marking the last acknowledged rows failed; they are sent again', {
        name: this.name,
        rows: this.#acked.length,
        error: String(error),
      }),
    );
  }

  /** Whether the store overlaps claims with sends (and settles acknowledged rows in its claims). */
  get #pipelined(): boolean {
    return this.#store.claimNext !== undefined;
  }

  /**
   * Claims the next batch, without the rows `inFlight`; the rows acknowledged so far are settled in
   * the same statement (pipelined stores), and the lease losses seen so far noted with the batch.
   */
  async #claim(inFlight: readonly string[]): Promise<Batch> {
    const losses = this.#leaseLosses;
    const now = this.#clock.now();
    const { batchSize: limit, batchBytes: maxBytes, retentionMs } = this.#options;
    if (this.#store.claimNext === undefined) {
      const rows = await this.#store.claim(this.owner, limit, now);
      return { rows: capBytes(rows, maxBytes), losses };
    }
    const published = this.#acked;
    this.#acked = [];
    try {
      const rows = await this.#store.claimNext(this.owner, { limit, maxBytes, now, inFlight, published, keep: retentionMs > 0 });
      this.#published += published.length;
      return { rows, losses };
    } catch (error) {
      this.#acked = [...published, ...this.#acked];
      throw error;
    }
  }

  /** Marks the acknowledged rows not yet marked (before sleeping, on a lost lease, when stopping). */
  async #settle(): Promise<void> {
    if (this.#acked.length === 0) return;
    const ids = this.#acked;
    this.#acked = [];
    try {
      await this.#store.published(ids, this.#clock.now(), this.#options.retentionMs > 0);
    } catch (error) {
      this.#acked = [...ids, ...this.#acked];
      throw error;
    }
    this.#published += ids.length;
  }

  /**
   * Sends `first`, and while each batch is in flight claims the next one; a row of the next batch
   * whose key kept a row of the batch in flight from the transport waits for a later claim.
   * Returns when a claim finds nothing (or the dispatcher stops); throws what the send or the claim threw.
   */
  async #pipeline(first: Batch): Promise<void> {
    let batch = first;
    for (;;) {
      const sending = this.#dispatch(batch.rows, batch.losses);
      if (!this.#pipelined) {
        await sending;
        return;
      }
      const claiming = this.#stop.signal.aborted ? Promise.resolve(undefined) : this.#claim(batch.rows.map((row) => row.id));
      const [sent, next] = await Promise.allSettled([sending, claiming]);
      if (sent.status === 'rejected') throw sent.reason;
      if (next.status === 'rejected') throw next.reason;
      if (next.value === undefined || next.value.rows.length === 0 || this.#stop.signal.aborted) return;
      // A lost lease or a fenced producer: the loop decides what comes next.
      if (this.#lostLease || this.#fenced !== undefined) return;
      const heldBack = sent.value;
      const rows = heldBack.size === 0 ? next.value.rows : next.value.rows.filter((row) => row.key === undefined || !heldBack.has(row.key));
      if (rows.length === 0) return;
      batch = { rows, losses: next.value.losses };
    }
  }

  async #pruneIfDue(): Promise<void> {
    if (this.#options.retentionMs <= 0) return;
    const now = this.#clock.now();
    if (now - this.#prunedAt < Math.min(60_000, this.#options.retentionMs)) return;
    this.#prunedAt = now;
    const pruned = await this.#store.prune(now - this.#options.retentionMs);
    if (pruned > 0) this.#logger.debug('outbox dispatcher pruned published rows', { name: this.name, rows: pruned });
  }

  #record(row: OutboxRow): OutgoingRecord {
    return { address: row.address, value: row.payload, headers: row.headers, ...(row.key === undefined ? {} : { key: row.key }) };
  }

  /**
   * Marks published the pending rows of the last committed transaction's note: rows a dispatcher
   * (this one, or its killed predecessor with the same transactional id) committed to the broker
   * but did not mark. Rows already published, deleted or dead are left as they are.
   */
  async #recoverNoted(): Promise<void> {
    const producer = this.#transactions;
    if (producer?.lastNote === undefined) {
      this.#recover = false;
      return;
    }
    const note = await producer.lastNote();
    const ids = note === undefined ? [] : noteIds(note);
    const pending: string[] = [];
    for (const id of ids) if ((await this.#store.get(id))?.state === 'pending') pending.push(id);
    if (pending.length > 0) await this.#store.published(pending, this.#clock.now(), this.#options.retentionMs > 0);
    this.#recover = false;
    this.#published += pending.length;
    if (pending.length > 0)
      this.#logger.info('outbox dispatcher marked published the rows its last committed transaction sent', {
        name: this.name,
        transactionalId: this.transactionalId,
        rows: pending.length,
      });
  }

  /**
   * The transport acknowledged rows: a pipelined, non-transactional dispatcher leaves them to its
   * next claim; otherwise they are marked published now (a transaction's rows before the next one's note).
   */
  async #acknowledge(ids: readonly string[]): Promise<void> {
    if (this.#pipelined && this.#transactions === undefined) {
      for (const id of ids) this.#acked.push(id);
      return;
    }
    await this.#markPublished(ids);
  }

  /** Marks rows published after their send; when that fails, the next claim first recovers them from the note. */
  async #markPublished(ids: readonly string[]): Promise<void> {
    try {
      await this.#store.published(ids, this.#clock.now(), this.#options.retentionMs > 0);
    } catch (error) {
      if (this.#transactions !== undefined) this.#recover = true;
      throw error;
    }
    this.#published += ids.length;
  }

  /** Publishes a claimed batch; resolves to the keys of the rows it left pending (to be sent after those). */
  async #dispatch(rows: readonly OutboxRow[], losses: number): Promise<ReadonlySet<string>> {
    const ids = rows.map((r) => r.id);
    try {
      await this.#addresses.provision(rows);
      await this.#send(
        rows.map((row) => this.#record(row)),
        ids,
        losses,
      );
    } catch (batchError) {
      if (batchError instanceof SettleFirst) throw batchError;
      if (this.#stop.signal.aborted || this.#notTheRows(batchError)) return keysOf(rows);
      this.#logger.debug('outbox batch send failed; retrying row by row', {
        name: this.name,
        rows: rows.length,
        error: String(batchError),
      });
      return this.#dispatchRows(rows, losses);
    }
    // Sent: a failure to mark the rows is the database's (the loop retries), never a reason to send them again.
    await this.#acknowledge(ids);
    this.#lastError = undefined;
    this.#fenced = undefined;
    return NO_KEYS;
  }

  /** After a failed batch: each key's rows in order, keys concurrently; all settle before a failure is thrown. */
  async #dispatchRows(rows: readonly OutboxRow[], losses: number): Promise<ReadonlySet<string>> {
    // Find the rows the transport refuses: each key's rows in order, keys concurrently.
    const byKey = new Map<string, OutboxRow[]>();
    for (const row of rows) {
      const group = row.key ?? `\u0000${row.id}`;
      const list = byKey.get(group);
      if (list) list.push(row);
      else byKey.set(group, [row]);
    }
    let halted = false;
    let unknown: SettleFirst | undefined;
    const heldBack = new Set<string>();
    const settled = await Promise.allSettled(
      [...byKey.values()].map(async (keyRows) => {
        const done: string[] = [];
        for (const row of keyRows) {
          if (halted) break;
          try {
            await this.#addresses.provision([row]);
            await this.#send([this.#record(row)], [row.id], losses);
            done.push(row.id);
          } catch (error) {
            if (error instanceof SettleFirst) {
              halted = true;
              unknown ??= error;
            } else if (this.#notTheRows(error)) halted = true;
            else await this.#fail(row, error);
            break;
          }
        }
        const key = keyRows[0]!.key;
        if (done.length < keyRows.length && key !== undefined) heldBack.add(key);
        if (done.length > 0) await this.#acknowledge(done);
      }),
    );
    const failed = settled.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
    if (unknown) throw unknown;
    return heldBack;
  }

  /** Sends `records` through the producer, or in one transaction of their own, noting the rows' `ids`, when transactional. */
  async #send(records: readonly OutgoingRecord[], ids: readonly string[], losses: number): Promise<void> {
    if (this.#transactions === undefined) return this.#producer!.send(records);
    const previous = this.#turn;
    let release!: () => void;
    this.#turn = new Promise<void>((resolve) => {
      release = resolve;
    });
    await previous;
    const producer = this.#transactions;
    let transaction: TransportTransaction | undefined;
    try {
      if (this.#recover) throw new SettleFirst();
      transaction = await producer.begin();
      await transaction.send(records);
      await transaction.note?.(JSON.stringify(ids));
      // A dispatcher whose lease ran out may see its rows claimed and sent by another: it must not commit.
      // A renewal that fails (the database unreachable) cannot tell: the transaction is aborted and the rows sent again later.
      const held = await this.#store.renew(this.owner).then(
        (held) => this.#held(held),
        () => false,
      );
      if (!held || this.#leaseLosses !== losses) throw new LeaseLost();
      await transaction.commit().catch((error: unknown) => {
        // A failed commit may have committed (its answer lost): the note tells, before the next claim.
        if (isProducerFenced(error) || producer.lastNote === undefined) throw error;
        this.#recover = true;
        throw new CommitUnknown(error);
      });
    } catch (error) {
      await transaction?.abort();
      if (isProducerFenced(error) && this.#transactions === producer) {
        // The next transaction starts a new producer, which fences the other one in turn.
        this.#transactions = this.#transport.transactionalProducer!(this.transactionalId!);
        void producer.close().catch(() => undefined);
        this.#logger.error('outbox dispatcher was fenced: another instance uses its transactional id; give each instance its own', {
          name: this.name,
          transactionalId: this.transactionalId,
          error: String(error),
        });
      }
      throw error;
    } finally {
      release();
    }
  }

  /**
   * A failure that says nothing about the rows: the lease was lost before the commit (the rows are
   * the new holder's), or the transactional producer was fenced. No attempt is counted.
   */
  #notTheRows(error: unknown): boolean {
    if (error instanceof LeaseLost) {
      this.#logger.warn(
        'outbox dispatcher lost its lease before committing; the transaction was aborted and the rows are left to the new holder',
        {
          name: this.name,
          owner: this.owner,
        },
      );
      return true;
    }
    if (isProducerFenced(error)) {
      this.#fenced = `fenced: another dispatcher uses the transactional id ${this.transactionalId}`;
      this.#lastError = String(error);
      return true;
    }
    return false;
  }

  async #fail(row: OutboxRow, error: unknown): Promise<void> {
    const attempts = row.attempts + 1;
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    const now = this.#clock.now();
    const dead = attempts >= this.#options.maxAttempts;
    this.#failedAttempts++;
    this.#lastError = message;
    const next = dead ? 'dead' : now + this.#backoff.delay(attempts);
    await this.#store.failed(row.id, { attempts, error: message, next, now });
    if (dead) {
      this.#counts = { ...this.#counts, dead: this.#counts.dead + 1 };
      this.#logger.error('outbox row is dead after its last attempt; later rows of its key go on', {
        name: this.name,
        id: row.id,
        messageId: row.messageId,
        channel: row.channel,
        type: row.type,
        key: row.key,
        attempts,
        error: message,
      });
    } else {
      this.#logger.warn('outbox publish failed; retrying', {
        name: this.name,
        id: row.id,
        attempts,
        retryInMs: (next as number) - now,
        error: message,
      });
    }
  }
}
