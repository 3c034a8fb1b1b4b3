/**
 * A subscription is a conveyor belt: poll → route → decode → handle → ack → commit, for
 * one handler and its consumer group.
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
 *   belt goes idle, and on shutdown. Delivery is at least once: handlers must be idempotent.
 */
import type { Attributes, Histogram, Tracer } from '@opentelemetry/api';
import { resolveAddress } from './core/address.js';
import {
  type Backoff,
  type BackoffOptions,
  DEFAULT_DEAD_LETTER_SCHEDULE,
  type DeadLetterPolicy,
  exponentialBackoff,
  scheduleBackoff,
} from './core/backoff.js';
import { type Clock, systemClock } from './core/clock.js';
import type { AnyChannel, AnyContractMessage, MessageContext, MessageHandler, MessageTypeOf } from './core/contract.js';
import {
  DurationHistogram,
  type HistogramSnapshot,
  type MutablePartitionCounters,
  type PartitionCounters,
  partitionCounters,
} from './core/counters.js';
import { type OpenedEnvelope, openEnvelope, recordType } from './core/envelope.js';
import { failureMessage, failureText } from './core/failure-text.js';
import { type Logger, stderrLogger } from './core/logger.js';
import { otelApi, SPAN_KIND } from './core/otel-api.js';
import { binaryRecord } from './core/structured.js';
import { ATTR, extractTraceContext, failSpan, INSTRUMENTATION_NAME, tracer, tracingEnabled, withSpan } from './core/tracing.js';
import type { IncomingRecord, PartitionPosition, Transport, TransportConsumer } from './core/transport.js';
import { type DeadLetterStore, errorForParking, InMemoryDeadLetterStore, type ParkRequest } from './dead-letter/store.js';

/** Types outside the channel that a subscription remembers (each logged once); past it, one more line says so. */
const MAX_UNKNOWN_TYPES = 100;
/** How many parked summaries a retried park searches for the record before parking it again. */
const FIND_PARKED_LIMIT = 100_000;

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
   * While a lane stays stalled, at most one warning per this many milliseconds (default 30 s):
   * the first failure is always a warning, later attempts in between are debug lines.
   */
  readonly stallLogIntervalMs?: number;
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

/** Where a lane is stuck, since when and why. */
export interface Stall {
  readonly partition: number;
  readonly offset: string;
  readonly messageId: string;
  readonly type: string;
  readonly since: Date;
  readonly reason: string;
  readonly attempts: number;
}

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

interface Lane {
  readonly partition: number;
  readonly queue: IncomingRecord[];
  running: boolean;
  stall: Stall | undefined;
  readonly counters: MutablePartitionCounters;
  /** Metric attributes of this lane (OpenTelemetry semantic conventions). */
  readonly attributes: Attributes;
  /** When the last stall warning of this lane was written, and how many attempts failed since. */
  warnedAt: number | undefined;
  quietFailures: number;
}

export class Subscription<M extends AnyContractMessage> {
  readonly channel: AnyChannel<M>;
  readonly handler: MessageHandler<M>;
  readonly address: string;
  readonly #deps: Required<Omit<SubscriptionDeps, 'random'>> & { random: () => number };
  readonly #batchSize: number;
  readonly #stallLogIntervalMs: number;
  /** Message types this subscription handles: the channel's, narrowed by `accepts`. */
  readonly #wanted: ReadonlySet<string>;
  /** Every message type the channel declares. */
  readonly #declared: ReadonlySet<string>;
  /** Types outside the channel seen so far (each logged once), at most {@link MAX_UNKNOWN_TYPES}. */
  readonly #unknownTypes = new Set<string>();
  #unknownTypesOverflow = false;
  /** Retries before parking, under a dead-letter policy; undefined = retry until it succeeds. */
  readonly #maxRetries: number | undefined;
  /** The policy's schedule under a dead-letter policy, else the blocking retry's exponential backoff. */
  readonly #backoff: Backoff;
  /** Between attempts to park a record when the store fails: the blocking retry's backoff. */
  readonly #parkBackoff: Backoff;
  #topic: string | undefined;
  readonly #lanes = new Map<number, Lane>();
  readonly #stop = new AbortController();
  readonly #abandon = new AbortController();
  #consumer: TransportConsumer | undefined;
  #loop: Promise<void> | undefined;
  #state: SubscriptionState = 'idle';
  #wake: (() => void) | undefined;
  #pendingAcks = 0;
  #commitChain: Promise<void> = Promise.resolve();
  #commitQueued = false;
  #processed = 0;
  #skipped = 0;
  #parked = 0;
  #lastError: string | undefined;
  #stopped: Promise<void> | undefined;
  readonly #duration = new DurationHistogram();
  readonly #tracer: Tracer | undefined = tracer();
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
    this.#stallLogIntervalMs = options.stallLogIntervalMs ?? 30_000;
    const accepts: readonly string[] | undefined = options.accepts ?? handler.accepts;
    this.#wanted = new Set<string>(accepts === undefined ? channel.messageTypes : channel.messageTypes.filter((t) => accepts.includes(t)));
    this.#declared = new Set<string>(channel.messageTypes);
    const policy: DeadLetterPolicy | undefined = options.deadLetter;
    this.#maxRetries = policy?.maxRetries;
    const blocking = exponentialBackoff({ initialMs: 1_000, maxMs: 60_000, jitter: 0.2, ...options.retry }, this.#deps.random);
    this.#backoff = policy === undefined ? blocking : scheduleBackoff(policy.backoffSchedule ?? DEFAULT_DEAD_LETTER_SCHEDULE);
    this.#parkBackoff = blocking;
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
    this.#otelDuration = otelApi()?.metrics.getMeter(INSTRUMENTATION_NAME).createHistogram('messaging.process.duration', {
      description: 'Duration of the handler, per attempt',
      unit: 's',
    });
    this.#consumer = this.#deps.transport.consumer({ address: this.address, groupId: this.groupId, batchSize: this.#batchSize });
    this.#loop = this.#run();
  }

  health(): SubscriptionHealth {
    const stalls = [...this.#lanes.values()].flatMap((l) => (l.stall ? [l.stall] : []));
    const state = this.#state === 'running' && stalls.length > 0 ? 'stalled' : this.#state;
    return {
      channel: this.channel.id,
      address: this.address,
      topic: this.topic,
      groupId: this.groupId,
      state,
      ready: state === 'running',
      stalls,
      processed: this.#processed,
      skipped: this.#skipped,
      parked: this.#parked,
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
      partitions: [...this.#lanes.values()].map((l) => ({ ...l.counters })).sort((a, b) => a.partition - b.partition),
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
      while ([...this.#lanes.values()].some((l) => l.running)) await this.#changed();
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
        while (!this.#stop.signal.aborted && [...this.#lanes.values()].some((l) => l.running && l.stall === undefined))
          await this.#changed();
        if (this.#stop.signal.aborted) break;
        const records = await consumer.poll(this.#stop.signal);
        if (records.length === 0) {
          if (this.#pendingAcks > 0) await this.#commit();
          continue;
        }
        for (const record of records) {
          let lane = this.#lanes.get(record.partition);
          if (lane === undefined) {
            lane = {
              partition: record.partition,
              queue: [],
              running: false,
              stall: undefined,
              warnedAt: undefined,
              quietFailures: 0,
              counters: partitionCounters(record.partition),
              attributes: {
                [ATTR.system]: this.#deps.transport.name,
                [ATTR.destination]: this.address,
                [ATTR.consumerGroup]: this.groupId,
                [ATTR.partition]: String(record.partition),
              },
            };
            this.#lanes.set(record.partition, lane);
          }
          lane.counters.consumed++;
          // Structured CloudEvents are read in binary-mode shape (routing, tracing, parking and redrive read headers).
          lane.queue.push(binaryRecord(record));
        }
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

  async #runLane(lane: Lane): Promise<void> {
    try {
      const queue = lane.queue;
      const signal = this.#stop.signal;
      // Records whose handler and ack complete synchronously are taken in one pass, without a
      // promise per record; the first that needs to wait goes through the awaited path.
      // With a recording tracer every attempt gets its process span: the full path does that.
      // Whether one is registered is asked once per run of the lane, not per record.
      const fastPath = !tracingEnabled();
      let head = 0;
      try {
        while (head < queue.length && !signal.aborted) {
          const fast = fastPath ? this.#fastProcess(queue[head]!, lane) : undefined;
          const done = fast === undefined ? await this.#process(queue[head]!, lane) : typeof fast === 'boolean' ? fast : await fast;
          if (!done) break;
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
   * The common case of {@link #process} without a promise: a wanted record that decodes and
   * whose handler returns without a promise. `undefined` when the record needs the full path
   * (skipped, not decodable): nothing has been done then. A promise when the handler returned
   * one, the ack commits, or the handler failed (the full path goes on from that first failure).
   */
  #fastProcess(record: IncomingRecord, lane: Lane): boolean | Promise<boolean> | undefined {
    const type = recordType(record);
    if (type !== undefined && type !== '' && !this.#wanted.has(type)) return undefined;
    const opened = openEnvelope(this.channel, record);
    if (!opened.decoded.ok) return undefined;
    const context = this.#context(record, opened, 1);
    const started = performance.now();
    let result: Promise<void> | void;
    try {
      result = this.handler.handle(opened.decoded.value, context);
    } catch (error) {
      this.#observe(lane, started);
      return this.#process(record, lane, { opened, error });
    }
    if (result !== undefined && typeof (result as Promise<void>).then === 'function') {
      return (result as Promise<void>).then(
        () => {
          this.#observe(lane, started);
          return this.#succeeded(record, lane);
        },
        (error: unknown) => {
          this.#observe(lane, started);
          return this.#process(record, lane, { opened, error });
        },
      );
    }
    this.#observe(lane, started);
    return this.#succeeded(record, lane);
  }

  #succeeded(record: IncomingRecord, lane: Lane): boolean {
    if (this.#abandon.signal.aborted) return false;
    this.#processed++;
    lane.counters.handled++;
    this.#ack(record);
    return true;
  }

  #context(record: IncomingRecord, opened: OpenedEnvelope<M>, attempt: number): MessageContext<MessageTypeOf<M>> {
    const key = record.key;
    // Two literal shapes (with and without a key) rather than a property added afterwards.
    const context: { -readonly [K in keyof MessageContext]: MessageContext[K] } =
      key === undefined
        ? {
            channel: this.channel.id,
            address: record.address,
            messageId: opened.id,
            type: opened.type,
            time: opened.time,
            partition: record.partition,
            offset: record.offset,
            headers: record.headers,
            attempt,
            signal: this.#abandon.signal,
          }
        : {
            channel: this.channel.id,
            address: record.address,
            messageId: opened.id,
            type: opened.type,
            time: opened.time,
            partition: record.partition,
            offset: record.offset,
            key,
            headers: record.headers,
            attempt,
            signal: this.#abandon.signal,
          };
    if (opened.correlationId !== undefined) context.correlationId = opened.correlationId;
    if (opened.causationId !== undefined) context.causationId = opened.causationId;
    return context as MessageContext<MessageTypeOf<M>>;
  }

  /** Handles one record to the end (success, park or skip); false when stopping interrupted it. */
  async #process(record: IncomingRecord, lane: Lane, failedOnce?: { opened: OpenedEnvelope<M>; error: unknown }): Promise<boolean> {
    const { clock, logger } = this.#deps;
    // Routing reads only the type header: a record of a type this subscription does not
    // handle is skipped without decoding it. A record without a type is decoded (and fails).
    const type = recordType(record);
    if (type !== undefined && type !== '' && !this.#wanted.has(type)) {
      this.#skipped++;
      lane.counters.skipped++;
      if (this.#declared.has(type))
        logger.debug('skipped: message type not wanted by this subscription', {
          channel: this.channel.id,
          groupId: this.groupId,
          type,
          offset: record.offset,
        });
      else this.#unknownType(type, record);
      this.#ack(record);
      return true;
    }
    // A record whose first attempt failed on the fast path continues here from that failure.
    const opened = failedOnce?.opened ?? openEnvelope(this.channel, record);
    let pending = failedOnce;
    // The trace the message carries continues around the handler (one process span per attempt).
    const tracing = tracingEnabled();
    const parent = tracing ? extractTraceContext(record.headers) : undefined;
    let attempts = 0;
    let firstFailure: number | undefined;
    while (true) {
      attempts++;
      const span = tracing ? this.#tracer!.startSpan(`process ${this.address}`, { kind: SPAN_KIND.CONSUMER }, parent) : undefined;
      if (span?.isRecording()) span.setAttributes(this.#spanAttributes(record, opened.id, opened.type, attempts));
      let started = 0;
      try {
        if (pending !== undefined) {
          const { error } = pending;
          pending = undefined;
          throw error;
        }
        if (!opened.decoded.ok) throw opened.decoded.error;
        const context = this.#context(record, opened, attempts);
        const value = opened.decoded.value;
        started = performance.now();
        if (span === undefined) await this.handler.handle(value, context);
        else await withSpan(parent, span, () => this.handler.handle(value, context));
        this.#observe(lane, started);
        span?.end();
        if (this.#abandon.signal.aborted) return false;
        this.#recover(lane, attempts);
        this.#processed++;
        lane.counters.handled++;
        this.#ack(record);
        return true;
      } catch (error) {
        if (started !== 0) this.#observe(lane, started);
        if (span) {
          failSpan(span, error);
          span.end();
        }
        lane.counters.failed++;
        if (this.#abandon.signal.aborted) return false;
        const now = clock.now();
        firstFailure ??= now;
        // Bytes that do not decode fail the same way on every attempt: under a dead-letter
        // policy they are parked at once, not after the policy's retries.
        const undecodable = !opened.decoded.ok;
        if (this.#maxRetries !== undefined && (undecodable || attempts > this.#maxRetries)) {
          const request = this.#parkRequest(record, opened.type, error, attempts, firstFailure, now);
          if (!(await this.#park(request, lane, opened.id))) return false;
          lane.counters.parked++;
          this.#recover(lane, attempts);
          this.#ack(record);
          return true;
        }
        const reason = failureText(error);
        this.#stall(lane, record, opened.id, opened.type, now, reason, attempts);
        const delay = this.#backoff.delay(attempts);
        lane.counters.retried++;
        this.#warnStalled(
          lane,
          now,
          undecodable
            ? [
                'belt blocked: the record does not decode; the belt is stopped at this record and retries it',
                'belt still blocked: the record still does not decode',
              ]
            : [
                'belt blocked: handler failed; the belt is stopped at this record and retries it',
                'belt still blocked: handler keeps failing at this record',
              ],
          {
            channel: this.channel.id,
            groupId: this.groupId,
            type: opened.type,
            partition: record.partition,
            offset: record.offset,
            attempt: attempts,
            retryInMs: delay,
            error: reason,
          },
        );
        try {
          await clock.sleep(delay, this.#stop.signal);
        } catch {
          return false;
        }
      }
    }
  }

  /** Marks `lane` stopped at `record` (pausing its partition the first time) with the reason health shows. */
  #stall(
    lane: Lane,
    record: Pick<IncomingRecord, 'partition' | 'offset'>,
    messageId: string,
    type: string,
    now: number,
    reason: string,
    attempts: number,
  ): void {
    const first = lane.stall === undefined;
    lane.stall = {
      partition: record.partition,
      offset: record.offset,
      messageId,
      type,
      since: lane.stall?.since ?? new Date(now),
      reason,
      attempts,
    };
    if (first) {
      this.#consumer?.pause(record.partition);
      this.#notify();
    }
  }

  /**
   * Logs a failure of a stalled lane, rate-limited: a warning on the first failure, then at most
   * one per interval (with the count of failures in between); debug lines otherwise.
   */
  #warnStalled(lane: Lane, now: number, [first, again]: readonly [string, string], fields: Readonly<Record<string, unknown>>): void {
    const logger = this.#deps.logger;
    if (lane.warnedAt === undefined || now - lane.warnedAt >= this.#stallLogIntervalMs) {
      const isFirst = lane.warnedAt === undefined;
      logger.warn(
        isFirst ? first : again,
        isFirst
          ? fields
          : { ...fields, stalledMs: now - (lane.stall?.since.getTime() ?? now), failuresSinceLastWarning: lane.quietFailures },
      );
      lane.warnedAt = now;
      lane.quietFailures = 0;
    } else {
      lane.quietFailures++;
      logger.debug(`${again} (the belt stays blocked)`, fields);
    }
  }

  /** Logs a type the channel does not declare: once per type, for at most {@link MAX_UNKNOWN_TYPES} types. */
  #unknownType(type: string, record: IncomingRecord): void {
    if (this.#unknownTypes.has(type)) return;
    const fields = { channel: this.channel.id, groupId: this.groupId, partition: record.partition, offset: record.offset };
    if (this.#unknownTypes.size >= MAX_UNKNOWN_TYPES) {
      if (!this.#unknownTypesOverflow)
        this.#deps.logger.warn(
          `skipped: more than ${MAX_UNKNOWN_TYPES} message types this channel does not declare; further new ones are skipped without a log line`,
          { ...fields, type },
        );
      this.#unknownTypesOverflow = true;
      return;
    }
    this.#unknownTypes.add(type);
    this.#deps.logger.warn(
      'skipped: a message type this channel does not declare (a newer producer?); records of this type are acknowledged and counted as skipped, and this is said once per type',
      { ...fields, type, declared: [...this.#declared].join(', ') },
    );
  }

  #observe(lane: Lane, started: number): void {
    const seconds = (performance.now() - started) / 1000;
    this.#duration.observe(seconds);
    this.#otelDuration?.record(seconds, lane.attributes);
  }

  #spanAttributes(record: IncomingRecord, messageId: string, type: string, attempt: number): Attributes {
    const system = this.#deps.transport.name;
    return {
      [ATTR.system]: system,
      [ATTR.destination]: this.address,
      [ATTR.operationType]: 'process',
      [ATTR.operationName]: 'process',
      [ATTR.consumerGroup]: this.groupId,
      [ATTR.partition]: String(record.partition),
      [ATTR.messageId]: messageId,
      [ATTR.eventId]: messageId,
      [ATTR.eventType]: type,
      [ATTR.channel]: this.channel.id,
      [ATTR.attempt]: attempt,
      ...(system === 'kafka'
        ? { [ATTR.kafkaOffset]: Number(record.offset), ...(record.key === undefined ? {} : { [ATTR.kafkaKey]: record.key }) }
        : { [ATTR.offset]: record.offset }),
    };
  }

  #recover(lane: Lane, attempts: number): void {
    if (lane.stall === undefined) return;
    const stall = lane.stall;
    lane.stall = undefined;
    const warned = lane.warnedAt !== undefined;
    lane.warnedAt = undefined;
    lane.quietFailures = 0;
    this.#consumer?.resume(lane.partition);
    // Said at the level its stall was: whoever saw "blocked" also sees it end.
    (warned ? this.#deps.logger.warn : this.#deps.logger.info).call(this.#deps.logger, 'the belt moves again', {
      stalledMs: this.#deps.clock.now() - stall.since.getTime(),
      channel: this.channel.id,
      groupId: this.groupId,
      partition: lane.partition,
      attempts,
    });
  }

  #parkRequest(
    record: IncomingRecord,
    type: string,
    error: unknown,
    attempts: number,
    firstFailure: number,
    lastFailure: number,
  ): ParkRequest {
    return {
      channel: this.channel.id,
      address: record.address,
      topic:
        record.address === this.address
          ? this.topic
          : (this.#deps.transport.destination?.(record.address, this.channel.bindings) ?? record.address),
      groupId: this.groupId,
      type,
      payload: record.value,
      headers: record.headers,
      ...(record.key === undefined ? {} : { key: record.key }),
      partition: record.partition,
      offset: record.offset,
      // Every issue of a decode or validation error, not only the first its message names.
      error: { ...errorForParking(error), message: failureMessage(error) },
      attempts,
      firstFailureAt: new Date(firstFailure),
      lastFailureAt: new Date(lastFailure),
    };
  }

  /**
   * Parks `request`. A store that fails keeps the lane stalled at the record (the reason in health
   * and the log) and is asked again on the blocking retry's backoff until it parks the record or
   * the belt stops (false: the record stays unacknowledged). Before asking again the store is
   * searched for the record, so a park whose answer was lost is not made twice.
   */
  async #park(request: ParkRequest, lane: Lane, messageId: string): Promise<boolean> {
    const { clock, deadLetters, logger } = this.#deps;
    const record = { partition: request.partition ?? lane.partition, offset: request.offset ?? '' };
    let failures = 0;
    while (true) {
      try {
        const found = failures > 0 ? await this.#findParked(request) : undefined;
        const id = found ?? (await deadLetters.park(request, new Date(clock.now()))).id;
        this.#parked++;
        logger.warn(
          found === undefined
            ? 'parked a message in the dead-letter store; the belt moves on'
            : 'the message was parked by an earlier attempt whose answer was lost; the belt moves on',
          {
            channel: this.channel.id,
            groupId: this.groupId,
            id,
            type: request.type,
            partition: request.partition,
            offset: request.offset,
            attempts: request.attempts,
            error: `${request.error.name}: ${request.error.message}`,
          },
        );
        return true;
      } catch (parkError) {
        if (this.#abandon.signal.aborted) return false;
        failures++;
        const now = clock.now();
        const delay = this.#parkBackoff.delay(failures);
        const reason = `the dead-letter store failed to park it (${failures} time${failures === 1 ? '' : 's'}; trying again): ${failureText(parkError)}; parking because ${request.error.name}: ${request.error.message}`;
        this.#lastError = reason;
        this.#stall(lane, record, messageId, request.type, now, reason, request.attempts);
        this.#warnStalled(
          lane,
          now,
          [
            'belt blocked: the dead-letter store failed to park the message; the belt is stopped at this record and tries again',
            'belt still blocked: the dead-letter store keeps failing to park the message',
          ],
          {
            channel: this.channel.id,
            groupId: this.groupId,
            type: request.type,
            partition: request.partition,
            offset: request.offset,
            parkAttempt: failures,
            retryInMs: delay,
            error: failureText(parkError),
          },
        );
        try {
          await clock.sleep(delay, this.#stop.signal);
        } catch {
          return false;
        }
      }
    }
  }

  /** The id of a record already parked for this group at `request`'s partition and offset, if any. */
  async #findParked(request: ParkRequest): Promise<string | undefined> {
    const store = this.#deps.deadLetters;
    const filter = { channel: request.channel, groupId: request.groupId };
    // Summaries carry no payloads; newest records are at the end of the oldest-first order.
    const rows = store.summaries ? await store.summaries({ ...filter, limit: FIND_PARKED_LIMIT }) : await store.list(filter);
    return rows.find((r) => r.address === request.address && r.partition === request.partition && r.offset === request.offset)?.id;
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
    } catch (error) {
      // Acknowledged offsets are cumulative: the next commit carries them.
      this.#pendingAcks += acks;
      this.#deps.logger.warn('commit failed; will retry with the next commit', {
        channel: this.channel.id,
        groupId: this.groupId,
        error: String(error),
      });
    }
  };
}
