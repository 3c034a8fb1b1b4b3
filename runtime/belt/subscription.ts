/**
 * A subscription is a conveyor belt: poll → route → decode → trace → handle → ack → commit, for one handler and its
 * consumer group. This file is the belt itself (polling, lanes, acks and commits, stopping, health); the path of one record
 * is a chain of steps composed in `compose.ts`, each in its own module: `route`, `decode`, `trace`, `handle`, and the
 * policies around `handle` (`retry`, `park` or `retry-later`, and the slot of an inbox).
 *
 * - Records of one partition are handled one at a time, in order; other partitions run beside.
 * - A handler that throws stops its lane at that record: the partition is paused, the record is retried with exponential
 *   backoff (cap, jitter) until it succeeds, and the stall shows in {@link SubscriptionHealth}. Nothing is skipped by default.
 * - Under a {@link DeadLetterPolicy} the record is retried on the policy's schedule, then parked in the {@link DeadLetterStore}
 *   and the lane moves on; a store that fails to park keeps the lane blocked at it (reason in health and log), asked again on
 *   the blocking backoff: parked once. Under `retryLater` it moves to delay tiers instead, each read by a belt of its own.
 * - Undecodable bytes fail the same way every time: under either policy parked at once, else they block like a failing handler.
 * - A record whose type is outside the handler's declared types (or the channel's: a newer
 *   producer, logged once per type) is skipped and acked, decided from its `ce_type` header
 *   before decoding; one without a type header is decoded, and fails.
 * - Offsets are acknowledged after success and committed every `batchSize` acks, when idle, and
 *   on shutdown: at least once, unless the handler runs in an `inbox` (once per message id) or
 *   the subscription is `transactional` (outputs and offsets in one transaction, `transaction.ts`).
 */
import type { Histogram } from '@opentelemetry/api';
import { resolveAddress } from '../core/address.js';
import { DEFAULT_DEAD_LETTER_SCHEDULE, type DeadLetterPolicy, exponentialBackoff, scheduleBackoff } from '../core/backoff.js';
import { systemClock } from '../core/clock.js';
import type { AnyChannel, AnyContractMessage, MessageHandler } from '../core/contract.js';
import { DurationHistogram } from '../core/counters.js';
import { isProducerFenced } from '../core/errors.js';
import { failureText } from '../core/failure-text.js';
import { stderrLogger } from '../core/logger.js';
import { METRICS } from '../core/metrics.js';
import { otelApi } from '../core/otel-api.js';
import { INSTRUMENTATION_NAME, tracer, tracingEnabled } from '../core/tracing.js';
import type { IncomingRecord, TransportConsumer } from '../core/transport.js';
import type { InboxStore } from '../inbox/inbox.js';
import { InMemoryDeadLetterStore } from '../stores/dead-letter/store.js';
import { type BatchLanes, batchLanes } from './batch.js';
import { type Belt, type BeltNext, type BeltStep, type Delivery, delivery } from './belt.js';
import { captureStep } from './capture.js';
import { CommitLog } from './commit-log.js';
import { compose } from './compose.js';
import { decodeStep } from './decode.js';
import { FlaggedAbortController } from './flagged.js';
import { handleStep } from './handle.js';
import { inboxStep, refuseInboxInTransaction } from './inbox.js';
import { type Lane, Lanes } from './lanes.js';
import type { SubscriptionDeps, SubscriptionHealth, SubscriptionMetrics, SubscriptionOptions, SubscriptionState } from './options.js';
import { parkStep } from './park.js';
import { retryStep } from './retry.js';
import { RetryLater } from './retry-later.js';
import { routeStep } from './route.js';
import { StallLog } from './stall.js';
import { spanStep, traceStep } from './trace.js';
import { type BeltTransaction, transactionFor } from './transaction.js';

export * from './options.js';
export type { Stall } from './stall.js';

export class Subscription<M extends AnyContractMessage> {
  readonly channel: AnyChannel<M>;
  readonly handler: MessageHandler<M>;
  readonly address: string;
  /** The inbox the handler runs in, if any. */
  readonly inbox: InboxStore | undefined;
  readonly #deps: Required<Omit<SubscriptionDeps, 'random'>> & { random: () => number };
  readonly #batchSize: number;
  #topic: string | undefined;
  readonly #lanes: Lanes;
  readonly #stop = new FlaggedAbortController();
  readonly #abandon = new FlaggedAbortController();
  /** The record path without tracing, and with it (while an OpenTelemetry SDK is registered). */
  readonly #plain: BeltNext<M>;
  readonly #traced: BeltNext<M>;
  readonly #batches: BatchLanes<M> | undefined; // a batch subscription's (`batch.ts`): they take a lane's records in batches
  readonly #handOffNow = (record: IncomingRecord, current: Delivery<M>) => this.#handOff(record, current, this.#round.signal);
  #consumer: TransportConsumer | undefined;
  /**
   * One consumer's run: aborts when a failed transaction makes the belt restart from the committed
   * offsets (the lanes end at their record, and nothing of this round is acknowledged after it).
   */
  #round = new FlaggedAbortController();
  /** Aborts on stop or on the end of the round: waits between attempts end. */
  #waits: AbortSignal = AbortSignal.any([this.#stop.signal, this.#round.signal]);
  readonly #transactional: SubscriptionOptions<M, unknown>['transactional'];
  readonly #later: RetryLater<M> | undefined;
  #transaction: BeltTransaction | undefined;
  #fenced = false;
  #loop: Promise<void> | undefined;
  #state: SubscriptionState = 'idle';
  #wake: (() => void) | undefined;
  #pendingAcks = 0;
  #commitChain: Promise<void> = Promise.resolve();
  #commitQueued = false;
  /** Commits failing in a row (a broker cut off): the first is a warning, then at most one per stall-log interval. */
  readonly #commitLog: CommitLog;
  #lastError: string | undefined;
  #stopped: Promise<void> | undefined;
  readonly #duration = new DurationHistogram();
  #otelDuration: Histogram | undefined;

  constructor(channel: AnyChannel<M>, handler: MessageHandler<M>, deps: SubscriptionDeps, options: SubscriptionOptions<M, unknown> = {}) {
    this.channel = channel;
    this.handler = handler;
    this.#deps = {
      transport: deps.transport,
      deadLetters: deps.deadLetters ?? new InMemoryDeadLetterStore(),
      clock: deps.clock ?? systemClock,
      logger: deps.logger ?? stderrLogger,
      random: deps.random ?? Math.random,
    };
    this.address = resolveAddress(channel, options, this.#deps.logger);
    deps.transport.checkChannel?.(channel, this.address); // a channel the transport cannot carry is refused now, not at the first record
    this.#batchSize = options.batchSize ?? 100;
    const { clock, logger, transport } = this.#deps;
    const logIntervalMs = options.stallLogIntervalMs ?? 30_000;
    const stallLog = new StallLog(logger, logIntervalMs);
    this.#commitLog = new CommitLog({ logger, clock, intervalMs: logIntervalMs, fields: { channel: channel.id, groupId: this.groupId } });
    this.#lanes = new Lanes({
      system: transport.name,
      channel: channel.id,
      address: this.address,
      groupId: this.groupId,
      logger,
      clock,
      stallLog,
      pause: (partition) => this.#consumer?.pause(partition),
      resume: (partition) => this.#consumer?.resume(partition),
      changed: () => this.#notify(),
    });
    const accepts: readonly string[] | undefined = options.accepts ?? handler.accepts;
    const wanted = new Set<string>(accepts === undefined ? channel.messageTypes : channel.messageTypes.filter((t) => accepts.includes(t)));
    const declared = new Set<string>(channel.messageTypes);
    const policy: DeadLetterPolicy | undefined = options.deadLetter;
    const blocking = exponentialBackoff({ initialMs: 1_000, maxMs: 60_000, jitter: 0.2, ...options.retry }, this.#deps.random);
    const belt = this.#belt(stallLog);
    // One instance of each step serves both chains (routing remembers the unknown types it logged).
    const route = routeStep(belt, wanted, declared);
    const decode = decodeStep(belt, blocking);
    // A record the retry policy gives up on is parked (dead-letter policy) or moved to a retry tier (retryLater).
    this.#later = RetryLater.of(belt, options, blocking, (tier, tierOptions) => new Subscription(tier, handler, this.#deps, tierOptions));
    const park = this.#later?.step ?? (policy === undefined ? undefined : parkStep(belt, blocking));
    const schedule = policy && scheduleBackoff(policy.backoffSchedule ?? DEFAULT_DEAD_LETTER_SCHEDULE);
    const retrying = { backoff: schedule ?? blocking, maxRetries: policy?.maxRetries, ...this.#later?.policy };
    const retry = retryStep(belt, retrying);
    // The slot of an inbox policy (once per message id, in the handler's transaction): inside
    // the retry policy, so each attempt consults it, and outside the span of the attempt.
    const inbox: BeltStep<M> | undefined = options.inbox === undefined ? undefined : inboxStep(belt, options.inbox);
    this.inbox = options.inbox;
    // A transactional subscription buffers each attempt's publishes: inside the retry policy (one
    // buffer per attempt), outside the inbox (kept only when the inbox transaction committed too).
    this.#transactional = options.transactional === false ? undefined : options.transactional;
    refuseInboxInTransaction(this.groupId, channel.id, options);
    const capture = this.#transactional === undefined ? undefined : captureStep(belt);
    const handle = handleStep(belt);
    this.#plain = compose([this.#later?.due, route, decode, park, retry, capture, inbox], handle);
    this.#traced =
      otelApi() === undefined
        ? this.#plain
        : compose([this.#later?.due, route, decode, traceStep(), park, retry, capture, inbox, spanStep(belt, tracer()!)], handle);
    this.#batches = batchLanes(belt, { route, decode, retry: retrying, park, capture, handOff: this.#handOffNow });
  }

  /** The subscription as the steps of its belt see it. */
  #belt(stallLog: StallLog): Belt<M> {
    const { transport, deadLetters, clock, logger } = this.#deps;
    const subscription = this;
    return {
      channel: this.channel,
      handler: this.handler,
      address: this.address,
      groupId: this.groupId,
      get topic() {
        return subscription.topic;
      },
      transport,
      deadLetters,
      clock,
      logger,
      lanes: this.#lanes,
      stallLog,
      get stop() {
        return subscription.#waits;
      },
      abandon: this.#abandon.signal,
      abandoned: this.#abandon,
      noteError: (reason) => {
        this.#lastError = reason;
      },
      observe: (lane, started) => {
        const seconds = (performance.now() - started) / 1000;
        this.#duration.observe(seconds);
        this.#otelDuration?.record(seconds, lane.attributes);
      },
    };
  }

  /** The broker's name of {@link address} (Kafka topic, Iggy `stream/topic`), the address itself when the transport has none. */
  get topic(): string {
    this.#topic ??= this.#deps.transport.destination?.(this.address, this.channel.bindings) ?? this.address;
    return this.#topic;
  }

  get groupId(): string {
    return this.handler.groupId;
  }

  get state(): SubscriptionState {
    return this.#state;
  }

  /** Provisions the address if the transport can, joins the group and starts the belt. */
  async start(): Promise<void> {
    if (this.#state !== 'idle') return;
    this.#state = 'running';
    try {
      await this.#deps.transport.provision?.(this.address, this.channel.bindings);
      await this.#later?.start();
    } catch (error) {
      this.#state = 'failed';
      this.#lastError = error instanceof Error ? error.message : String(error);
      throw error;
    }
    if (this.#stop.signal.aborted) return;
    const { unit, otel } = METRICS.handlerDuration;
    this.#otelDuration = otelApi()
      ?.metrics.getMeter(INSTRUMENTATION_NAME)
      .createHistogram(otel.name, { description: otel.description, unit });
    this.#consumer = this.#newConsumer();
    if (this.#transactional !== undefined) {
      try {
        this.#transaction = transactionFor(this.#transactional, {
          transport: this.#deps.transport,
          consumer: this.#consumer,
          groupId: this.groupId,
          channel: this.channel.id,
          topic: this.topic,
          failed: (error) => void this.#transactionFailed(error),
        });
      } catch (error) {
        this.#state = 'failed';
        this.#lastError = failureText(error);
        await this.#consumer.close().catch(() => undefined);
        throw error;
      }
    }
    this.#loop = this.#run();
  }

  #newConsumer(): TransportConsumer {
    return this.#deps.transport.consumer({
      address: this.address,
      groupId: this.#later?.group ?? this.groupId,
      batchSize: this.#batchSize,
    });
  }

  /** The transaction id this subscription writes under (transactional subscriptions, once started). */
  get transactionalId(): string | undefined {
    return this.#transaction?.producer.transactionalId;
  }

  health(): SubscriptionHealth {
    const stalls = this.#lanes.stalls();
    const state = this.#state === 'running' && stalls.length > 0 ? 'stalled' : this.#state;
    return {
      channel: this.channel.id,
      address: this.address,
      topic: this.topic,
      groupId: this.groupId,
      state,
      ready: state === 'running',
      stalls,
      processed: this.#lanes.processed,
      skipped: this.#lanes.skipped,
      parked: this.#lanes.parked,
      duplicatesSkipped: this.#lanes.duplicates,
      positions: this.#consumer?.positions() ?? [],
      ...(this.#lastError === undefined ? {} : { lastError: this.#lastError }),
      ...this.#later?.health(),
    };
  }

  /** Counts per partition and handler durations since the subscription started. */
  metrics(): SubscriptionMetrics {
    return {
      channel: this.channel.id,
      address: this.address,
      topic: this.topic,
      groupId: this.groupId,
      partitions: this.#lanes.counters(),
      handlerDuration: this.#duration.snapshot(),
    };
  }

  /**
   * Stops the belt: no new records start, retry waits end, the in-flight handler may finish until `deadline` aborts
   * (then its `context.signal` aborts and it is abandoned, unacked). Commits what was acknowledged and leaves the group. Never throws.
   */
  stop(deadline?: AbortSignal): Promise<void> {
    this.#stopped ??= this.#shutdown(deadline);
    return this.#stopped;
  }

  async #shutdown(deadline: AbortSignal | undefined): Promise<void> {
    if (this.#state === 'idle' || this.#consumer === undefined) {
      this.#state = 'stopped';
      await this.#transaction?.producer.close().catch(() => undefined);
      return;
    }
    const fenced = this.#fenced;
    if (!fenced) this.#state = 'stopping';
    this.#stop.abort();
    this.#notify();
    const lanesDone = (async () => {
      await this.#loop;
      while (this.#lanes.anyRunning()) await this.#changed();
    })();
    let overran = false;
    if (deadline !== undefined) {
      const expired = new Promise<void>((resolve) => {
        if (deadline.aborted) resolve();
        deadline.addEventListener('abort', () => resolve(), { once: true });
      });
      await Promise.race([lanesDone, expired.then(() => (overran = true))]);
      if (overran) {
        this.#abandon.abort();
        this.#deps.logger.warn('shutdown budget spent: abandoning the in-flight handler; its record stays unacknowledged', {
          channel: this.channel.id,
          groupId: this.groupId,
        });
      }
    } else {
      await lanesDone;
    }
    try {
      if (!fenced) await this.#commit();
      await this.#transaction?.abort();
      await this.#transaction?.producer.close();
      await this.#later?.stop(deadline);
      await this.#consumer?.close();
    } catch (error) {
      this.#deps.logger.error('closing the consumer failed', { channel: this.channel.id, groupId: this.groupId, error: String(error) });
    }
    // A fenced subscription stays failed: health keeps saying why it stopped.
    if (!fenced) this.#state = 'stopped';
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  #changed(): Promise<void> {
    return new Promise((resolve) => {
      const previous = this.#wake;
      this.#wake = () => {
        previous?.();
        resolve();
      };
    });
  }

  async #run(): Promise<void> {
    try {
      while (!this.#stop.signal.aborted) {
        // Poll again only when every lane that is not stalled has emptied its queue.
        while (!this.#stop.signal.aborted && this.#lanes.anyFlowing()) await this.#changed();
        if (this.#stop.signal.aborted) break;
        const round = this.#round.signal;
        const consumer = this.#consumer;
        if (round.aborted || consumer === undefined) {
          await this.#changed(); // a restart from the committed offsets is under way
          continue;
        }
        let records: readonly IncomingRecord[];
        try {
          records = await consumer.poll(this.#waits);
        } catch (error) {
          if (round.aborted) continue; // the restart closed this consumer
          throw error;
        }
        if (round.aborted) continue; // records of the consumer the restart closed
        if (records.length === 0) {
          if (this.#pendingAcks > 0) await this.#commit();
          continue;
        }
        this.#lanes.takeAll(records);
        // The lanes start once the whole poll is sorted into them: each takes its records in one
        // run (one promise per lane and poll, not per record).
        for (const lane of this.#lanes.values()) {
          if (!lane.running && lane.queue.length > 0) {
            lane.running = true;
            this.#runLane(lane).catch((error: unknown) => this.#laneFailed(lane, error));
          }
        }
      }
    } catch (error) {
      if (this.#stop.signal.aborted) return;
      this.#state = 'failed';
      this.#lastError = error instanceof Error ? error.message : String(error);
      this.#deps.logger.error('subscription failed', { channel: this.channel.id, groupId: this.groupId, error: this.#lastError });
    }
  }

  /** A lane that ended with an error of its own (a handler's is retried or parked): its record stays unacked, the subscription `failed`. */
  #laneFailed(lane: Lane, error: unknown): void {
    this.#lastError = failureText(error);
    if (this.#state === 'running') this.#state = 'failed';
    this.#deps.logger.error('a lane of the belt failed; its record stays unacknowledged', {
      channel: this.channel.id,
      groupId: this.groupId,
      partition: lane.partition,
      error: this.#lastError,
    });
  }

  /**
   * Takes the queued records of `lane` through the chain, in order, and acknowledges each one done (a batch subscription's
   * lanes, in batches). A record whose every step answers at once costs no promise (the composer's fast path); one that
   * must wait is awaited before the next starts.
   */
  async #runLane(lane: Lane): Promise<void> {
    try {
      if (this.#batches !== undefined) return await this.#batches.run(lane, tracingEnabled() ? this.#traced : this.#plain);
      const queue = lane.queue;
      // Whether an SDK is registered (every attempt gets its process span) is asked once per lane run, not per record.
      const chain = tracingEnabled() ? this.#traced : this.#plain;
      // One delivery for the run, reset per record: a lane takes one record at a time (one that
      // waits is awaited before the next starts), so no step still holds it when it is reset.
      const current = delivery<M>(lane);
      const round = this.#round;
      let head = 0;
      try {
        while (head < queue.length && !this.#stop.aborted && !round.aborted) {
          const record = queue[head]!;
          current.attempt = 1;
          current.parent = undefined;
          current.duplicate = false;
          current.captured = undefined;
          const result = chain(record, current);
          if (!(typeof result === 'boolean' ? result : await result)) break;
          if (this.#transaction === undefined) this.#ack(record);
          else if (!(await this.#handOff(record, current, round.signal))) break;
          head++;
        }
      } finally {
        if (head === queue.length) queue.length = 0;
        else if (head > 0) queue.splice(0, head);
      }
    } finally {
      if (this.#stop.signal.aborted || this.#round.signal.aborted) lane.queue.length = 0; // unacked: redelivered after a restart
      lane.running = false;
      this.#notify();
    }
  }

  /**
   * A transactional subscription's acknowledgment: the record's captured outputs go into the open
   * transaction with its acknowledgment, in one step (see `transaction.ts`). False when the round
   * ended first (a restart): nothing is sent, and the record is not acknowledged.
   */
  #handOff(record: IncomingRecord, current: Delivery<M>, round: AbortSignal): boolean | Promise<boolean> {
    if (round.aborted) return false;
    const captured = current.captured;
    current.captured = undefined;
    if (captured === undefined) {
      this.#ack(record);
      return true;
    }
    return this.#transaction!.handOff(captured, () => this.#ack(record), round);
  }

  /**
   * Acknowledges `record`; every `batchSize` acks a commit starts in the background (commits
   * run one after another; a failed one leaves its offsets to the next). The lane does not
   * wait for the broker's round trip: what is acknowledged is committed by a later commit at
   * the latest on shutdown, and delivery stays at least once.
   */
  #ack(record: IncomingRecord): void {
    this.#consumer?.ack(record);
    this.#pendingAcks++;
    if (this.#pendingAcks >= this.#batchSize) void this.#commit();
  }

  /**
   * Commits what is acknowledged, after the commits before it. While one is queued and not yet
   * started, a caller gets that one: it reads the acknowledgments when it starts, so it carries
   * theirs too (a lane acknowledging past `batchSize` does not queue a commit per record).
   */
  #commit(): Promise<void> {
    if (this.#commitQueued) return this.#commitChain;
    this.#commitQueued = true;
    this.#commitChain = this.#commitChain.then(this.#runCommit, this.#runCommit);
    return this.#commitChain;
  }

  readonly #runCommit = async (): Promise<void> => {
    this.#commitQueued = false;
    if (this.#transaction !== undefined) return this.#commitTransaction(this.#transaction);
    if (this.#pendingAcks === 0 || this.#consumer === undefined) return;
    const acks = this.#pendingAcks;
    this.#pendingAcks = 0;
    try {
      await this.#consumer.commit();
      this.#commitLog.succeeded();
    } catch (error) {
      // Acknowledged offsets are cumulative: the next commit carries them.
      this.#pendingAcks += acks;
      this.#commitLog.failed(error);
    }
  };

  /**
   * A transactional subscription's commit: its transaction commits the outputs sent into it with
   * the acknowledged offsets. One that fails is aborted, and the belt restarts from the committed
   * offsets (the records since are processed again, their outputs sent again); a fenced producer
   * fails the subscription.
   */
  async #commitTransaction(transaction: BeltTransaction): Promise<void> {
    const consumer = this.#consumer;
    // During a restart nothing of the ended round is committed: its records are read again.
    if (consumer === undefined || this.#fenced || this.#round.signal.aborted) return;
    if (this.#pendingAcks === 0 && !transaction.open) return;
    this.#pendingAcks = 0;
    try {
      await transaction.commit(consumer);
      this.#commitLog.succeeded();
    } catch (error) {
      await this.#transactionFailed(error, true);
    }
  }

  /**
   * A transaction that failed (to begin, send or commit): a fenced producer fails the
   * subscription; otherwise the belt restarts from the committed offsets. Once per round.
   */
  async #transactionFailed(error: unknown, inCommit = false): Promise<void> {
    if (this.#fenced) return;
    if (isProducerFenced(error)) return this.#fence(error);
    const round = this.#round;
    if (round.signal.aborted) return;
    round.abort();
    this.#notify();
    this.#lastError = failureText(error);
    this.#deps.logger.warn('transaction failed and was aborted; the belt restarts from the committed offsets', {
      channel: this.channel.id,
      groupId: this.groupId,
      transactionalId: this.transactionalId,
      error: this.#lastError,
    });
    // Outside a commit the restart queues behind the commits, so none of them runs beside it.
    const restart = () => this.#restart();
    if (inCommit) await restart();
    else this.#commitChain = this.#commitChain.then(restart, restart);
  }

  /**
   * Restarts from the committed offsets: waits for the lanes to end their record, drops what they
   * had queued (and their stalls), aborts the transaction, and reads on with a new consumer.
   */
  async #restart(): Promise<void> {
    while (this.#lanes.anyRunning()) await this.#changed();
    this.#lanes.reset();
    this.#pendingAcks = 0;
    await this.#transaction?.abort();
    const old = this.#consumer;
    this.#consumer = undefined;
    await old?.close().catch((error: unknown) =>
      this.#deps.logger.warn('closing the consumer for a restart failed', {
        channel: this.channel.id,
        groupId: this.groupId,
        error: String(error),
      }),
    );
    if (!this.#stop.signal.aborted) this.#consumer = this.#newConsumer();
    this.#round = new FlaggedAbortController();
    this.#waits = AbortSignal.any([this.#stop.signal, this.#round.signal]);
    this.#notify();
  }

  /** Another producer took the transactional id: the subscription stops as failed, saying so. */
  #fence(error: unknown): void {
    this.#fenced = true;
    this.#state = 'failed';
    this.#lastError = `fenced: ${failureText(error)}`;
    this.#deps.logger.error(
      'the transactional producer was fenced by another instance with the same transactional id; the subscription stops',
      {
        channel: this.channel.id,
        groupId: this.groupId,
        transactionalId: this.transactionalId,
        error: failureText(error),
      },
    );
    this.#round.abort();
    this.#stop.abort();
    this.#notify();
  }
}
