/**
 * The consumer of the Kafka transport: one consumer group per handler `groupId`. kafkajs runs
 * `eachBatch` with auto-commit and auto-resolve off: a batch is handed to the belt and kept open
 * (heart-beating) until the belt acknowledged it, so kafkajs never re-fetches what the belt holds;
 * a stalled partition is paused in kafkajs while the others keep flowing. Offsets are committed
 * only when the belt commits. A consumer cut off from the brokers does not commit and, after
 * `rebuildAfterMs`, gets a new kafkajs client in place, backing off towards `maxRebuildIntervalMs`.
 * Reads `read_committed` unless the subscription or the transport says `read_uncommitted`; offsets a
 * transaction commits (`sendOffsets`) are handed back through `committed()`.
 */
import {
  type Backoff,
  ClosedError,
  type ConsumedOffset,
  type ConsumerOptions,
  exponentialBackoff,
  type IncomingRecord,
  type PartitionPosition,
  type TransportConsumer,
  TransportError,
  type Waiter,
  waitForWake,
} from '@keiyaku/runtime/adapter';
import { type Consumer, type EachBatchPayload, logLevel } from 'kafkajs';
import { bounded, ClientFence, CutOff, type KafkaClients } from './client.js';
import { isAuthentication, isConnectivity, toTransportError } from './errors.js';
import { headerCount, maxHeaders } from './headers.js';
import type { KafkaClientStatus } from './options.js';
import { recordFromKafka } from './record.js';

/** @internal The consumer of one handler group: one kafkajs consumer, rebuilt in place while cut off. */
export class KafkaTransportConsumer implements TransportConsumer {
  readonly #transport: KafkaClients;
  readonly #options: ConsumerOptions;
  readonly #topic: string;
  readonly #onClose: () => void;
  readonly #cutOff = new CutOff();
  /** Rebuilds while cut off, on the runtime's backoff without jitter: rebuildAfterMs, doubling, up to maxRebuildIntervalMs. */
  readonly #rebuildBackoff: Backoff;
  readonly #buffer: IncomingRecord[] = [];
  readonly #acked = new Map<number, number>();
  readonly #committed = new Map<number, number>();
  readonly #delivered = new Map<number, number>();
  readonly #high = new Map<number, number>();
  readonly #paused = new Set<number>();
  /** Last offset of the batch kafkajs holds open, per partition. */
  readonly #batchEnd = new Map<number, number>();
  #assigned: number[] = [];
  #waiters = new Set<Waiter>();
  #consumer: Consumer | undefined;
  /** The connections of the current kafkajs client. */
  #fence: ClientFence | undefined;
  #running: Promise<void> | undefined;
  #fault: TransportError | undefined;
  #watchdog: NodeJS.Timeout | undefined;
  #rebuilding = false;
  #closed = false;
  /** Resolves {@link positioned}: joined with partitions and fetched once (kafkajs resolves start offsets before a fetch), or closed. */
  #isPositioned: () => void = () => undefined;
  readonly #positioned = new Promise<void>((resolve) => {
    this.#isPositioned = resolve;
  });
  #joined = false;

  constructor(transport: KafkaClients, options: ConsumerOptions, onClose: () => void) {
    this.#transport = transport;
    this.#options = options;
    this.#topic = transport.topic(options.address);
    this.#onClose = onClose;
    this.#rebuildBackoff = exponentialBackoff({
      initialMs: transport.options.rebuildAfterMs ?? 90_000,
      multiplier: 2,
      maxMs: transport.options.maxRebuildIntervalMs ?? 600_000,
      jitter: 0,
    });
    this.#running = this.#start();
    this.#watchdog = setInterval(() => this.#checkCutOff(), 1_000);
    this.#watchdog.unref();
  }

  #wake(): void {
    const waiters = [...this.#waiters];
    this.#waiters.clear();
    for (const wake of waiters) wake();
  }

  #wait(ms: number, signal?: AbortSignal): Promise<void> {
    return waitForWake(this.#waiters, { timeoutMs: ms, signal });
  }

  async #start(): Promise<void> {
    const { logger } = this.#transport;
    const fence = new ClientFence();
    const kafka = this.#transport.client((entry) => {
      // A replaced client's retries and errors say nothing about the current one.
      if (fence.replaced) return 'quiet';
      if (entry.level <= logLevel.WARN && isConnectivity(entry.log)) this.#cutOff.mark(Date.now());
      if (entry.level <= logLevel.ERROR && isAuthentication(entry.log))
        this.#faultWith(new TransportError('kafka', `authentication failed: ${entry.log.message}`, { retriable: false }));
      return undefined;
    }, fence);
    const consumer = kafka.consumer({
      groupId: this.#transport.group(this.#options.groupId),
      // A replaced client must never restart itself and rejoin the group as a stale member.
      retry: { ...this.#transport.retry, restartOnFailure: async () => !fence.replaced && !this.#closed },
      sessionTimeout: this.#transport.options.sessionTimeoutMs ?? 30_000,
      heartbeatInterval: this.#transport.options.heartbeatIntervalMs ?? 3_000,
      maxWaitTimeInMs: this.#transport.options.maxWaitTimeInMs ?? 500,
      allowAutoTopicCreation: false,
      readUncommitted: (this.#options.isolation ?? this.#transport.options.isolation ?? 'read_committed') === 'read_uncommitted',
    });
    this.#consumer = consumer;
    this.#fence = fence;
    consumer.on(consumer.events.GROUP_JOIN, (event) => {
      if (fence.replaced) {
        // Only a join already under way when the client was replaced gets here: cut its connections
        // at once, so it holds partitions no longer than its session timeout.
        logger.warn('kafka: a replaced client rejoined the group; cutting its connections', { group: event.payload.groupId });
        fence.cut();
        return;
      }
      const assignment = event.payload.memberAssignment[this.#topic] ?? [];
      this.#assigned = [...assignment].sort((a, b) => a - b);
      for (const map of [this.#delivered, this.#acked, this.#committed])
        for (const p of [...map.keys()]) if (!this.#assigned.includes(p)) map.delete(p);
      this.#cutOff.clear();
      logger.info('kafka: joined group', { group: event.payload.groupId, topic: this.#topic, partitions: this.#assigned });
      this.#joined = this.#assigned.length > 0;
    });
    consumer.on(consumer.events.FETCH, () => {
      if (this.#joined && !fence.replaced) this.#isPositioned();
    });
    consumer.on(consumer.events.END_BATCH_PROCESS, ({ payload }) => {
      // A fetch of only transaction markers (or aborted records) never reaches eachBatch: kafkajs
      // steps over it. Right after what the belt acknowledged, so do the offsets to commit — else a
      // partition written in transactions keeps its commit marker as a lag of one.
      if (fence.replaced || consumer !== this.#consumer || payload.batchSize !== 0 || payload.topic !== this.#topic) return;
      if (payload.firstOffset === null) return;
      const acked = this.#acked.get(payload.partition);
      if (acked === undefined || acked < Number(payload.firstOffset)) return;
      const next = Number(payload.lastOffset) + 1;
      if (next > acked) this.#acked.set(payload.partition, next);
      this.#high.set(payload.partition, Number(payload.highWatermark));
    });
    consumer.on(consumer.events.CRASH, (event) => {
      const error = event.payload.error;
      if (fence.replaced) {
        // The end of a replaced client: nothing to rebuild (the current client is another one).
        logger.debug('kafka: a replaced consumer client stopped', { group: event.payload.groupId, error: error.message });
        return;
      }
      if (isAuthentication(error)) {
        this.#faultWith(new TransportError('kafka', `authentication failed: ${error.message}`, { retriable: false, cause: error }));
        return;
      }
      // A crash on lost connections is evidence of a cut-off even when no log entry said so.
      if (isConnectivity(error) || isConnectivity((error as { cause?: unknown }).cause)) this.#cutOff.mark(Date.now());
      logger.error('kafka: consumer crashed', { group: event.payload.groupId, restart: event.payload.restart, error: error.message });
      if (!event.payload.restart && !this.#closed) void this.#rebuild('the consumer crashed and kafkajs will not restart it');
    });
    try {
      await consumer.connect();
      const fromBeginning =
        this.#options.start === undefined ? (this.#transport.options.fromBeginning ?? true) : this.#options.start === 'earliest';
      await consumer.subscribe({ topic: this.#topic, fromBeginning });
      await consumer.run({
        autoCommit: false,
        eachBatchAutoResolve: false,
        partitionsConsumedConcurrently: 64,
        eachBatch: (payload) => this.#eachBatch(consumer, fence, payload),
      });
      for (const partition of this.#paused) consumer.pause([{ topic: this.#topic, partitions: [partition] }]);
    } catch (error) {
      if (isAuthentication(error))
        this.#faultWith(
          new TransportError('kafka', `authentication failed: ${String((error as Error).message)}`, { retriable: false, cause: error }),
        );
      else {
        this.#cutOff.mark(Date.now());
        logger.error('kafka: consumer could not start; it will be rebuilt', { topic: this.#topic, error: String(error) });
      }
    }
  }

  status(): KafkaClientStatus {
    const since = this.#cutOff.since;
    return {
      role: 'consumer',
      topic: this.#topic,
      group: this.#transport.group(this.#options.groupId),
      ...(since === undefined ? {} : { cutOffSince: new Date(since).toISOString() }),
      rebuilds: this.#cutOff.totalRebuilds,
      ...(this.#fault === undefined ? {} : { fault: this.#fault.message }),
    };
  }

  #faultWith(error: TransportError): void {
    if (this.#fault) return;
    this.#fault = error;
    this.#transport.logger.error(`kafka: ${error.message}`, { topic: this.#topic, group: this.#options.groupId });
    this.#wake();
  }

  async #eachBatch(
    consumer: Consumer,
    fence: ClientFence,
    { batch, resolveOffset, heartbeat, isRunning, isStale }: EachBatchPayload,
  ): Promise<void> {
    // A replaced client stops for good (not retriable: kafkajs neither retries nor restarts it);
    // returning would have it fetch the same batch again and again.
    if (fence.replaced) throw new TransportError('kafka', 'this consumer client was replaced', { retriable: false });
    if (consumer !== this.#consumer) return;
    const partition = batch.partition;
    this.#high.set(partition, Number(batch.highWatermark));
    if (batch.messages.length === 0) return;
    this.#cutOff.clear();
    const delivered = this.#delivered.get(partition) ?? -1;
    const fresh = batch.messages.filter((m) => Number(m.offset) > delivered);
    const limit = maxHeaders(this.#transport.options);
    for (const message of fresh) {
      const count = headerCount(message.headers);
      if (count > limit) this.#overLimit(partition, message.offset, count, limit);
      this.#buffer.push(recordFromKafka(message, this.#options.address, partition, count > limit));
    }
    const last = Number(batch.messages[batch.messages.length - 1]!.offset);
    if (last > delivered) this.#delivered.set(partition, last);
    this.#batchEnd.set(partition, last);
    this.#wake();
    // Keep the batch open until the belt acknowledged all of it, so kafkajs does not fetch it again.
    while (isRunning() && !isStale() && !this.#closed && consumer === this.#consumer) {
      const acked = this.#acked.get(partition);
      if (acked !== undefined && acked > 0) resolveOffset(String(acked - 1));
      if (acked !== undefined && acked > last) {
        // Transaction markers (or aborted records) after the last record are stepped over with it.
        const end = Number(batch.lastOffset());
        if (end > last && acked <= end) {
          resolveOffset(String(end));
          this.#acked.set(partition, end + 1);
        }
        return;
      }
      if (this.#paused.has(partition)) return; // resumed later; what the belt holds is not delivered twice
      await this.#wait(1_000);
      try {
        await heartbeat();
      } catch (error) {
        this.#transport.logger.debug('kafka: heartbeat during a batch failed (rebalance); the batch is given back', {
          error: String(error),
        });
        return;
      }
    }
  }

  /**
   * A record over `maxHeaders` is handed over without its headers: it fails to decode (no `ce_type`) and takes the
   * path of any undecodable record (parked at once under a dead-letter policy, else its partition stalls). kafkajs
   * has already paid for decoding it; a stream of them is a denial of service only the other driver avoids.
   */
  #overLimit(partition: number, offset: string, count: number, limit: number): void {
    this.#transport.logger.warn(
      `kafka: record ${partition}/${offset} on ${this.#topic} has ${count} headers, over the limit of ${limit} (maxHeaders); it is delivered without headers, as undecodable`,
      { topic: this.#topic, group: this.#options.groupId, partition, offset, headers: count, maxHeaders: limit },
    );
  }

  async poll(signal: AbortSignal): Promise<readonly IncomingRecord[]> {
    if (this.#closed) throw new ClosedError(`the kafka consumer of ${this.#options.groupId}`);
    if (this.#fault) throw this.#fault;
    if (this.#buffer.length === 0 && !signal.aborted) await this.#wait(this.#transport.options.maxWaitTimeInMs ?? 500, signal);
    if (this.#fault) throw this.#fault;
    return this.#buffer.splice(0, this.#options.batchSize);
  }

  ack(record: IncomingRecord): void {
    const next = Number(record.offset) + 1;
    if (next > (this.#acked.get(record.partition) ?? 0)) this.#acked.set(record.partition, next);
    // Wake the open batch of this partition only when the belt has acknowledged all of it.
    const target = this.#batchEnd.get(record.partition);
    if (target !== undefined && next > target) this.#wake();
  }

  async commit(): Promise<void> {
    const consumer = this.#consumer;
    if (consumer === undefined) return;
    if (this.#cutOff.since !== undefined) {
      // Committing blocks for the length of an outage; acknowledged offsets are cumulative, the next commit carries them.
      throw new TransportError(
        'kafka',
        `not committing while cut off from the brokers (since ${new Date(this.#cutOff.since).toISOString()})`,
        { address: this.#options.address },
      );
    }
    const offsets = [...this.#acked]
      .filter(([partition, next]) => this.#assigned.includes(partition) && next > (this.#committed.get(partition) ?? -1))
      .map(([partition, next]) => ({ topic: this.#topic, partition, offset: String(next) }));
    if (offsets.length === 0) return;
    try {
      await consumer.commitOffsets(offsets);
      for (const o of offsets) this.#committed.set(o.partition, Number(o.offset));
    } catch (error) {
      if (isConnectivity(error)) this.#cutOff.mark(Date.now());
      throw toTransportError(error, this.#options.address);
    }
  }

  /** Acknowledged and not yet committed, per assigned partition: the next offset to read (for a transaction's `sendOffsets`). */
  uncommitted(): readonly ConsumedOffset[] {
    return [...this.#acked]
      .filter(([partition, next]) => this.#assigned.includes(partition) && next > (this.#committed.get(partition) ?? -1))
      .map(([partition, next]) => ({ address: this.#options.address, partition, offset: String(next) }));
  }

  /** A transaction committed `offsets` for this group: positions show them, and the next plain commit leaves them out. */
  committed(offsets: readonly ConsumedOffset[]): void {
    for (const o of offsets) {
      if (o.address !== this.#options.address || !this.#assigned.includes(o.partition)) continue;
      const next = Number(o.offset);
      if (next > (this.#committed.get(o.partition) ?? -1)) this.#committed.set(o.partition, next);
    }
  }

  pause(partition: number): void {
    this.#paused.add(partition);
    try {
      this.#consumer?.pause([{ topic: this.#topic, partitions: [partition] }]);
    } catch {
      // not running yet: applied when it starts
    }
    this.#wake();
  }

  resume(partition: number): void {
    this.#paused.delete(partition);
    try {
      this.#consumer?.resume([{ topic: this.#topic, partitions: [partition] }]);
    } catch {
      // not running: nothing to resume
    }
  }

  /** Resolves once the group gave this consumer partitions and kafkajs fetched once (it looks up where each starts before its first fetch). */
  positioned(): Promise<void> {
    return this.#positioned;
  }

  positions(): readonly PartitionPosition[] {
    return this.#assigned.map((partition) => {
      const committed = this.#committed.get(partition);
      const acked = this.#acked.get(partition);
      const high = this.#high.get(partition);
      return {
        partition,
        ...(committed === undefined ? {} : { committed: String(committed) }),
        ...(acked === undefined ? {} : { acknowledged: String(acked) }),
        ...(high === undefined ? {} : { highWatermark: String(high) }),
        ...(high === undefined ? {} : { lag: Math.max(0, high - (committed ?? 0)) }),
      };
    });
  }

  #checkCutOff(): void {
    const since = this.#cutOff.since;
    if (since === undefined || this.#closed || this.#fault || this.#rebuilding) return;
    const interval = this.#rebuildBackoff.delay(this.#cutOff.rebuilds + 1);
    const reference = Math.max(since, this.#cutOff.lastRebuild);
    if (Date.now() - reference >= interval) void this.#rebuild(`cut off from the brokers for ${Math.round((Date.now() - since) / 1000)} s`);
  }

  /** Replaces the kafkajs client in place; this object keeps its identity. Resumes from committed offsets. */
  async #rebuild(reason: string): Promise<void> {
    // One rebuild at a time: two overlapping rebuilds would leave an orphaned client in the group.
    if (this.#closed || this.#rebuilding) return;
    this.#rebuilding = true;
    try {
      await this.#replace(reason);
    } finally {
      this.#rebuilding = false;
    }
  }

  async #replace(reason: string): Promise<void> {
    const old = this.#consumer;
    const fence = this.#fence;
    this.#cutOff.rebuilds++;
    this.#cutOff.totalRebuilds++;
    this.#cutOff.lastRebuild = Date.now();
    this.#transport.logger.warn(`kafka: rebuilding the consumer of ${this.#options.groupId}: ${reason}`, {
      topic: this.#topic,
      rebuilds: this.#cutOff.rebuilds,
    });
    this.#consumer = undefined;
    this.#fence = undefined;
    // What was delivered but not acknowledged is redelivered by the new client from the committed offsets.
    this.#delivered.clear();
    this.#buffer.length = 0;
    // The old client opens no connection from now on: kafkajs may be starting it again (its own
    // restart), and such a start would join the group once the brokers are back.
    fence?.replace();
    // It leaves the group on the connections it has (bounded: with the broker gone it cannot say
    // goodbye, and the broker drops it after the session timeout); then they are cut.
    if (old) await bounded(old.disconnect(), 10_000, this.#transport.logger, 'disconnecting a replaced consumer');
    fence?.cut();
    if (this.#closed) return;
    this.#running = this.#start();
    await this.#running;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#isPositioned();
    if (this.#watchdog) clearInterval(this.#watchdog);
    this.#wake();
    await this.#running?.catch(() => undefined);
    const consumer = this.#consumer;
    const fence = this.#fence;
    this.#consumer = undefined;
    if (consumer) await bounded(consumer.disconnect(), 10_000, this.#transport.logger, 'leaving the consumer group');
    // A client kafkajs was still starting when told to stop opens nothing more.
    fence?.cut();
    this.#onClose();
  }
}
