/**
 * A subscription is a conveyor belt: poll → route → decode → trace → handle → ack → commit,
 * for one handler and its consumer group. This file is the belt itself (polling, lanes, acks and
 * commits, stopping, health); the path of one record is a chain of steps composed in
 * `compose.ts`, each in its own module: `route`, `decode`, `trace`, `handle`, and the policies
 * around `handle` (`retry`, `park`, and the slot of an inbox).
 *
 * - Records of one partition are handled one at a time, in order (per-key order); other
 *   partitions run beside it on their own lanes.
 * - A handler that throws stops its lane at that record: the partition is paused, the
 *   record is retried with exponential backoff (cap, jitter) until it succeeds, and the
 *   stall shows in {@link SubscriptionHealth}. Nothing is skipped by default.
 * - Under a {@link DeadLetterPolicy} the record is retried on the policy's schedule, then
 *   parked in the {@link DeadLetterStore} and the lane moves on. A store that fails to park
 *   keeps the lane blocked at the record (the reason in health and the log) and is asked again
 *   on the blocking retry's backoff: the record is parked once, and the process never ends for it.
 * - Bytes that cannot be decoded (payload or contract headers) fail the same way every time:
 *   under a dead-letter policy they are parked at once, without the retry schedule; without one
 *   they block the lane like a failing handler (nothing is skipped by default).
 * - A record whose type is outside the handler's declared types is routing, not failure: it
 *   is skipped and acked, decided from its `ce_type` header before its payload is decoded. A
 *   type the channel does not declare at all is skipped too (forward compatibility: a newer
 *   producer), and logged once per type. A record without a type header cannot be routed: it
 *   is decoded, and fails.
 * - Offsets are acknowledged after success and committed every `batchSize` acks, when the
 *   belt goes idle, and on shutdown. Delivery is at least once: handlers must be idempotent,
 *   or run in an `inbox` (once per message id, in the handler's own transaction).
 */
import type { Histogram } from '@opentelemetry/api';
import { resolveAddress } from '../core/address.js';
import {
  type BackoffOptions,
  DEFAULT_DEAD_LETTER_SCHEDULE,
  type DeadLetterPolicy,
  exponentialBackoff,
  scheduleBackoff,
} from '../core/backoff.js';
import { type Clock, systemClock } from '../core/clock.js';
import type { AnyChannel, AnyContractMessage, MessageHandler, MessageTypeOf } from '../core/contract.js';
import { DurationHistogram, type HistogramSnapshot, type PartitionCounters } from '../core/counters.js';
import { failureText } from '../core/failure-text.js';
import { type Logger, stderrLogger } from '../core/logger.js';
import { METRICS } from '../core/metrics.js';
import { otelApi } from '../core/otel-api.js';
import { INSTRUMENTATION_NAME, tracer, tracingEnabled } from '../core/tracing.js';
import type { IncomingRecord, PartitionPosition, Transport, TransportConsumer } from '../core/transport.js';
import type { InboxStore } from '../inbox/inbox.js';
import { type DeadLetterStore, InMemoryDeadLetterStore } from '../stores/dead-letter/store.js';
import { type Belt, type BeltNext, type BeltStep, delivery } from './belt.js';
import { compose } from './compose.js';
import { decodeStep } from './decode.js';
import { handleStep } from './handle.js';
import { inboxStep } from './inbox.js';
import { type Lane, Lanes } from './lanes.js';
import { parkStep } from './park.js';
import { retryStep } from './retry.js';
import { routeStep } from './route.js';
import { type Stall, StallLog } from './stall.js';
import { spanStep, traceStep } from './trace.js';

export type { Stall } from './stall.js';

export interface SubscriptionOptions<M extends AnyContractMessage, P = never> {
  /** Most records per poll, and acks per commit (default 100). */
  readonly batchSize?: number;
  /** Opt in to parking poison messages instead of blocking on them. */
  readonly deadLetter?: DeadLetterPolicy;
  /** Backoff of the blocking retry (default 1 s doubling to 60 s, ±20 % jitter). */
  readonly retry?: BackoffOptions;
  /** Parameter values of a channel with parameters: which address to read (required there). */
  readonly parameters?: P;
  /**
   * @deprecated Pass `parameters` instead. A concrete address: on a channel with parameters it
   * must fit the channel's template and parameter rules (a warning is logged); on a channel
   * without parameters it is refused unless it is the channel's own address or `forceAddress` is set.
   */
  readonly address?: string;
  /** Read from `address` although it is not the channel's. */
  readonly forceAddress?: boolean;
  /** Message types this subscription wants; overrides `handler.accepts`. */
  readonly accepts?: readonly MessageTypeOf<M>[];
  /**
   * While a lane stays stalled, at most one warning per this many milliseconds (default 30 s), and
   * the same for commits that keep failing (a broker cut off):
   * the first failure is always a warning, later attempts in between are debug lines.
   */
  readonly stallLogIntervalMs?: number;
  /**
   * Run the handler once per message id, inside a transaction of this inbox's database that
   * records the id for the group (see docs/exactly-once.md). The handler reads the transaction
   * with `inboxTransaction(inbox, context)`; a message already recorded is acknowledged without it.
   */
  // biome-ignore lint/suspicious/noExplicitAny: any store, whatever its transaction handle (the handler reads it typed through inboxTransaction)
  readonly inbox?: InboxStore<any>;
}

export interface SubscriptionDeps {
  readonly transport: Transport;
  readonly deadLetters?: DeadLetterStore;
  readonly clock?: Clock;
  readonly logger?: Logger;
  /** Source of jitter (default Math.random). */
  readonly random?: () => number;
}

export type SubscriptionState = 'idle' | 'running' | 'stalled' | 'stopping' | 'stopped' | 'failed';

export interface SubscriptionHealth {
  readonly channel: string;
  readonly address: string;
  /** The broker's name of the address (Kafka topic, Iggy `stream/topic`); the address when the transport has none. */
  readonly topic: string;
  readonly groupId: string;
  readonly state: SubscriptionState;
  /** Running and not stalled. */
  readonly ready: boolean;
  readonly stalls: readonly Stall[];
  readonly processed: number;
  /** Records skipped by routing (a type this handler does not accept, or one the channel does not declare). */
  readonly skipped: number;
  /** Records parked by this subscription since it started. */
  readonly parked: number;
  /** Records its inbox found already processed by the group, acknowledged without the handler (0 without an inbox). */
  readonly duplicatesSkipped: number;
  readonly positions: readonly PartitionPosition[];
  readonly lastError?: string;
}

/** Counts per partition and the handler-duration histogram of one subscription. */
export interface SubscriptionMetrics {
  readonly channel: string;
  readonly address: string;
  /** The broker's name of the address, as in {@link SubscriptionHealth}. */
  readonly topic: string;
  readonly groupId: string;
  readonly partitions: readonly PartitionCounters[];
  /** Handler durations in seconds (every attempt, successful or not). */
  readonly handlerDuration: HistogramSnapshot;
}

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
  readonly #stop = new AbortController();
  readonly #abandon = new AbortController();
  /** The record path without tracing, and with it (while an OpenTelemetry SDK is registered). */
  readonly #plain: BeltNext<M>;
  readonly #traced: BeltNext<M>;
  #consumer: TransportConsumer | undefined;
  #loop: Promise<void> | undefined;
  #state: SubscriptionState = 'idle';
  #wake: (() => void) | undefined;
  #pendingAcks = 0;
  #commitChain: Promise<void> = Promise.resolve();
  #commitQueued = false;
  /** Commits failing in a row (a broker cut off): the first is a warning, then at most one per stall-log interval. */
  readonly #commitFailing = { count: 0, since: 0, warnedAt: undefined as number | undefined, quiet: 0 };
  readonly #commitLogIntervalMs: number;
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
    this.#batchSize = options.batchSize ?? 100;
    const { clock, logger, transport } = this.#deps;
    this.#commitLogIntervalMs = options.stallLogIntervalMs ?? 30_000;
    const stallLog = new StallLog(logger, this.#commitLogIntervalMs);
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
    const decode = decodeStep(belt);
    // Under a dead-letter policy a record the retry policy gives up on is parked.
    const park = policy === undefined ? undefined : parkStep(belt, blocking);
    const retry = retryStep(belt, {
      backoff: policy === undefined ? blocking : scheduleBackoff(policy.backoffSchedule ?? DEFAULT_DEAD_LETTER_SCHEDULE),
      maxRetries: policy?.maxRetries,
    });
    // The slot of an inbox policy (once per message id, in the handler's transaction): inside
    // the retry policy, so each attempt consults it, and outside the span of the attempt.
    const inbox: BeltStep<M> | undefined = options.inbox === undefined ? undefined : inboxStep(belt, options.inbox);
    this.inbox = options.inbox;
    const handle = handleStep(belt);
    this.#plain = compose([route, decode, park, retry, inbox], handle);
    this.#traced =
      otelApi() === undefined ? this.#plain : compose([route, decode, traceStep(), park, retry, inbox, spanStep(belt, tracer()!)], handle);
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
      stop: this.#stop.signal,
      abandon: this.#abandon.signal,
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
    this.#consumer = this.#deps.transport.consumer({ address: this.address, groupId: this.groupId, batchSize: this.#batchSize });
    this.#loop = this.#run();
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
   * Stops the belt: no new records start, retry waits end, the in-flight handler may finish
   * until `deadline` aborts (then its `context.signal` aborts and it is abandoned, unacked).
   * Commits what was acknowledged and leaves the group. Never throws.
   */
  stop(deadline?: AbortSignal): Promise<void> {
    this.#stopped ??= this.#shutdown(deadline);
    return this.#stopped;
  }

  async #shutdown(deadline: AbortSignal | undefined): Promise<void> {
    if (this.#state === 'idle' || this.#consumer === undefined) {
      this.#state = 'stopped';
      return;
    }
    this.#state = 'stopping';
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
      await this.#commit();
      await this.#consumer?.close();
    } catch (error) {
      this.#deps.logger.error('closing the consumer failed', { channel: this.channel.id, groupId: this.groupId, error: String(error) });
    }
    this.#state = 'stopped';
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
    const consumer = this.#consumer!;
    try {
      while (!this.#stop.signal.aborted) {
        // Poll again only when every lane that is not stalled has emptied its queue.
        while (!this.#stop.signal.aborted && this.#lanes.anyFlowing()) await this.#changed();
        if (this.#stop.signal.aborted) break;
        const records = await consumer.poll(this.#stop.signal);
        if (records.length === 0) {
          if (this.#pendingAcks > 0) await this.#commit();
          continue;
        }
        for (const record of records) this.#lanes.take(record);
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

  /**
   * A lane that ended with an error of its own (not a handler's, which the belt retries or parks):
   * its record stays unacknowledged, the subscription reports `failed`, and the process goes on.
   */
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
   * Takes the queued records of `lane` through the chain, in order, and acknowledges each one
   * done. A record whose every step answers at once costs no promise (the composer's fast
   * path); one that must wait is awaited before the next starts.
   */
  async #runLane(lane: Lane): Promise<void> {
    try {
      const queue = lane.queue;
      const signal = this.#stop.signal;
      // Whether an SDK is registered (so every attempt gets its process span) is asked once per
      // run of the lane, not per record.
      const chain = tracingEnabled() ? this.#traced : this.#plain;
      // One delivery for the run, reset per record: a lane takes one record at a time (one that
      // waits is awaited before the next starts), so no step still holds it when it is reset.
      const current = delivery<M>(lane);
      let head = 0;
      try {
        while (head < queue.length && !signal.aborted) {
          const record = queue[head]!;
          current.attempt = 1;
          current.parent = undefined;
          current.duplicate = false;
          const result = chain(record, current);
          if (!(typeof result === 'boolean' ? result : await result)) break;
          this.#ack(record);
          head++;
        }
      } finally {
        if (head === queue.length) queue.length = 0;
        else if (head > 0) queue.splice(0, head);
      }
    } finally {
      if (this.#stop.signal.aborted) lane.queue.length = 0; // unacked: redelivered after a restart
      lane.running = false;
      this.#notify();
    }
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
    if (this.#pendingAcks === 0 || this.#consumer === undefined) return;
    const acks = this.#pendingAcks;
    this.#pendingAcks = 0;
    try {
      await this.#consumer.commit();
      this.#commitSucceeded();
    } catch (error) {
      // Acknowledged offsets are cumulative: the next commit carries them.
      this.#pendingAcks += acks;
      this.#commitFailed(error);
    }
  };

  /**
   * A failed commit. While the broker is cut off every commit fails (one per poll): the first is a
   * warning, then at most one warning per stall-log interval with the failures in between counted;
   * the others are debug lines, so an outage is neither silent nor a flood.
   */
  #commitFailed(error: unknown): void {
    const now = this.#deps.clock.now();
    const failing = this.#commitFailing;
    if (failing.count === 0) failing.since = now;
    failing.count++;
    const fields = { channel: this.channel.id, groupId: this.groupId, error: String(error) };
    if (failing.warnedAt === undefined) {
      this.#deps.logger.warn('commit failed; will retry with the next commit', fields);
    } else if (now - failing.warnedAt >= this.#commitLogIntervalMs) {
      this.#deps.logger.warn('commits still failing; will retry with the next commit', {
        ...fields,
        failingMs: now - failing.since,
        failuresSinceLastWarning: failing.quiet,
      });
    } else {
      failing.quiet++;
      this.#deps.logger.debug('commit failed again; will retry with the next commit', fields);
      return;
    }
    failing.warnedAt = now;
    failing.quiet = 0;
  }

  #commitSucceeded(): void {
    const failing = this.#commitFailing;
    if (failing.count === 0) return;
    this.#deps.logger.info('commits succeed again', {
      channel: this.channel.id,
      groupId: this.groupId,
      failedCommits: failing.count,
      failingMs: this.#deps.clock.now() - failing.since,
    });
    failing.count = 0;
    failing.warnedAt = undefined;
    failing.quiet = 0;
  }
}
