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
 *   parked in the {@link DeadLetterStore} and the lane moves on.
 * - Bytes that cannot be decoded are a failure like any other. A record whose type is
 *   outside the handler's declared types is routing, not failure: it is skipped and acked,
 *   decided from its `ce_type` header before its payload is decoded. A record without a
 *   type header cannot be routed: it is decoded, and fails.
 * - Offsets are acknowledged after success and committed every `batchSize` acks, when the
 *   belt goes idle, and on shutdown. Delivery is at least once: handlers must be idempotent.
 */
import type { AnyChannel, AnyContractMessage, MessageContext, MessageHandler, MessageTypeOf } from './codegen-v1.js';
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
import { openEnvelope, recordType } from './core/envelope.js';
import { type Logger, stderrLogger } from './core/logger.js';
import type { IncomingRecord, PartitionPosition, Transport, TransportConsumer } from './core/transport.js';
import { type DeadLetterStore, errorForParking, InMemoryDeadLetterStore } from './dead-letter/store.js';

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
  readonly groupId: string;
  readonly state: SubscriptionState;
  /** Running and not stalled. */
  readonly ready: boolean;
  readonly stalls: readonly Stall[];
  readonly processed: number;
  /** Records skipped by routing (type not wanted). */
  readonly skipped: number;
  /** Records parked by this subscription since it started. */
  readonly parked: number;
  readonly positions: readonly PartitionPosition[];
  readonly lastError?: string;
}

interface Lane {
  readonly partition: number;
  readonly queue: IncomingRecord[];
  running: boolean;
  stall: Stall | undefined;
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
  /** Retries before parking, under a dead-letter policy; undefined = retry until it succeeds. */
  readonly #maxRetries: number | undefined;
  /** The policy's schedule under a dead-letter policy, else the blocking retry's exponential backoff. */
  readonly #backoff: Backoff;
  readonly #lanes = new Map<number, Lane>();
  readonly #stop = new AbortController();
  readonly #abandon = new AbortController();
  #consumer: TransportConsumer | undefined;
  #loop: Promise<void> | undefined;
  #state: SubscriptionState = 'idle';
  #wake: (() => void) | undefined;
  #pendingAcks = 0;
  #commitChain: Promise<void> = Promise.resolve();
  #processed = 0;
  #skipped = 0;
  #parked = 0;
  #lastError: string | undefined;
  #stopped: Promise<void> | undefined;

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
    const policy: DeadLetterPolicy | undefined = options.deadLetter;
    this.#maxRetries = policy?.maxRetries;
    this.#backoff =
      policy === undefined
        ? exponentialBackoff({ initialMs: 1_000, maxMs: 60_000, jitter: 0.2, ...options.retry }, this.#deps.random)
        : scheduleBackoff(policy.backoffSchedule ?? DEFAULT_DEAD_LETTER_SCHEDULE);
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
    this.#consumer = this.#deps.transport.consumer({ address: this.address, groupId: this.groupId, batchSize: this.#batchSize });
    this.#loop = this.#run();
  }

  health(): SubscriptionHealth {
    const stalls = [...this.#lanes.values()].flatMap((l) => (l.stall ? [l.stall] : []));
    const state = this.#state === 'running' && stalls.length > 0 ? 'stalled' : this.#state;
    return {
      channel: this.channel.id,
      address: this.address,
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
            lane = { partition: record.partition, queue: [], running: false, stall: undefined, warnedAt: undefined, quietFailures: 0 };
            this.#lanes.set(record.partition, lane);
          }
          lane.queue.push(record);
          if (!lane.running) {
            lane.running = true;
            void this.#runLane(lane);
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

  async #runLane(lane: Lane): Promise<void> {
    try {
      while (lane.queue.length > 0 && !this.#stop.signal.aborted) {
        const record = lane.queue[0]!;
        if (!(await this.#process(record, lane))) break;
        lane.queue.shift();
      }
    } finally {
      if (this.#stop.signal.aborted) lane.queue.length = 0; // unacked: redelivered after a restart
      lane.running = false;
      this.#notify();
    }
  }

  /** Handles one record to the end (success, park or skip); false when stopping interrupted it. */
  async #process(record: IncomingRecord, lane: Lane): Promise<boolean> {
    const { clock, logger } = this.#deps;
    // Routing reads only the type header: a record of a type this subscription does not
    // handle is skipped without decoding it. A record without a type is decoded (and fails).
    const type = recordType(record);
    if (type !== undefined && type !== '' && !this.#wanted.has(type)) {
      this.#skipped++;
      logger.debug('skipped: message type not wanted by this subscription', {
        channel: this.channel.id,
        groupId: this.groupId,
        type,
        offset: record.offset,
      });
      await this.#ack(record);
      return true;
    }
    const opened = openEnvelope(this.channel, record);
    let attempts = 0;
    let firstFailure: number | undefined;
    while (true) {
      attempts++;
      try {
        if (!opened.decoded.ok) throw opened.decoded.error;
        const context: MessageContext<MessageTypeOf<M>> = {
          channel: this.channel.id,
          address: record.address,
          messageId: opened.id,
          type: opened.type as MessageTypeOf<M>,
          time: opened.time,
          partition: record.partition,
          offset: record.offset,
          ...(record.key === undefined ? {} : { key: record.key }),
          ...(opened.correlationId === undefined ? {} : { correlationId: opened.correlationId }),
          ...(opened.causationId === undefined ? {} : { causationId: opened.causationId }),
          headers: record.headers,
          attempt: attempts,
          signal: this.#abandon.signal,
        };
        await this.handler.handle(opened.decoded.value, context);
        if (this.#abandon.signal.aborted) return false;
        this.#recover(lane, attempts);
        this.#processed++;
        await this.#ack(record);
        return true;
      } catch (error) {
        if (this.#abandon.signal.aborted) return false;
        const now = clock.now();
        firstFailure ??= now;
        const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
        lane.stall = {
          partition: record.partition,
          offset: record.offset,
          messageId: opened.id,
          type: opened.type,
          since: lane.stall?.since ?? new Date(now),
          reason,
          attempts,
        };
        if (attempts === 1) {
          this.#consumer?.pause(record.partition);
          this.#notify();
        }
        if (this.#maxRetries !== undefined && attempts > this.#maxRetries) {
          await this.#park(record, opened.type, error, attempts, firstFailure, now);
          this.#recover(lane, attempts);
          await this.#ack(record);
          return true;
        }
        const delay = this.#backoff.delay(attempts);
        const fields = {
          channel: this.channel.id,
          groupId: this.groupId,
          type: opened.type,
          partition: record.partition,
          offset: record.offset,
          attempt: attempts,
          retryInMs: delay,
          error: reason,
        };
        // Rate-limited while the lane stays stalled: a warning on the first failure, then at
        // most one per interval (with the count of failures in between); debug lines otherwise.
        if (lane.warnedAt === undefined || now - lane.warnedAt >= this.#stallLogIntervalMs) {
          const first = lane.warnedAt === undefined;
          logger.warn(
            first
              ? 'belt blocked: handler failed; the belt is stopped at this record and retries it'
              : 'belt still blocked: handler keeps failing at this record',
            first ? fields : { ...fields, stalledMs: now - lane.stall.since.getTime(), failuresSinceLastWarning: lane.quietFailures },
          );
          lane.warnedAt = now;
          lane.quietFailures = 0;
        } else {
          lane.quietFailures++;
          logger.debug('handler failed again; the belt stays blocked', fields);
        }
        try {
          await clock.sleep(delay, this.#stop.signal);
        } catch {
          return false;
        }
      }
    }
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

  async #park(
    record: IncomingRecord,
    type: string,
    error: unknown,
    attempts: number,
    firstFailure: number,
    lastFailure: number,
  ): Promise<void> {
    const parked = await this.#deps.deadLetters.park(
      {
        channel: this.channel.id,
        address: record.address,
        groupId: this.groupId,
        type,
        payload: record.value,
        headers: record.headers,
        ...(record.key === undefined ? {} : { key: record.key }),
        partition: record.partition,
        offset: record.offset,
        error: errorForParking(error),
        attempts,
        firstFailureAt: new Date(firstFailure),
        lastFailureAt: new Date(lastFailure),
      },
      new Date(this.#deps.clock.now()),
    );
    this.#parked++;
    this.#deps.logger.warn('parked a message in the dead-letter store; the belt moves on', {
      channel: this.channel.id,
      groupId: this.groupId,
      id: parked.id,
      type,
      offset: record.offset,
      attempts,
    });
  }

  async #ack(record: IncomingRecord): Promise<void> {
    this.#consumer?.ack(record);
    this.#pendingAcks++;
    if (this.#pendingAcks >= this.#batchSize) await this.#commit();
  }

  #commit(): Promise<void> {
    const run = async (): Promise<void> => {
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
    this.#commitChain = this.#commitChain.then(run, run);
    return this.#commitChain;
  }
}
