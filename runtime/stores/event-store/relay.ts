/**
 * The event relay: follows an event store (or any {@link EventSource}), maps each domain event
 * to a contract message through an {@link EventMapper}, publishes the results and checkpoints
 * its position. Until this release it was called `MessageProducer`; that name stays as a
 * deprecated alias (a Kafka producer is something else).
 */
import { type Backoff, type BackoffOptions, exponentialBackoff } from '../../core/backoff.js';
import { systemClock } from '../../core/clock.js';
import type { AnyContractMessage, HeadersOf } from '../../core/contract.js';
import type { HostedComponent, HostedComponentHealth } from '../../core/hosted.js';
import { type Logger, stderrLogger } from '../../core/logger.js';
import { retry } from '../../core/retry.js';
import { waitForWake } from '../../core/wake-up.js';
import type { Publisher } from '../../publish/publisher.js';
import { type EventMapper, unwrapMapped } from './mapper.js';
import { InMemoryCheckpointStore } from './memory.js';
import type { CheckpointStore, EventSource } from './store.js';

export interface EventRelayOptions<D, M extends AnyContractMessage> {
  /** Checkpoint name: one per relay (`library.book-integration-events`); also its name in health. */
  readonly name: string;
  readonly source: EventSource<D>;
  /** Maps each event; may give a message its contract headers with {@link withHeaders}. */
  readonly mapper: EventMapper<D, M>;
  readonly publisher: Publisher<M>;
  readonly checkpoints?: CheckpointStore;
  readonly logger?: Logger;
  /** Publishes awaiting acknowledgement before the relay waits (default 1000). */
  readonly maxInFlight?: number;
  /**
   * After a failure (a publish that failed every retry, a mapper error, the store unreachable)
   * the relay waits this backoff, then resumes from its last acknowledged position
   * (default: 200 ms doubling up to 30 s, ±20 % jitter). `false`: stop for good on the first
   * failure, as before this option existed.
   */
  readonly retry?: BackoffOptions | false;
  /** How often health's head and backlog are refreshed from the source, when it tells its last position (default 1000 ms). */
  readonly healthIntervalMs?: number;
  readonly random?: () => number;
}

export interface EventRelayStatus {
  readonly name: string;
  /** Following the source (also while waiting to retry); false before start, after stop, or after a failure with `retry: false`. */
  readonly running: boolean;
  /** Position of the last event handled (published or filtered). */
  readonly position: number;
  readonly published: number;
  readonly filtered: number;
  /** The source's last position when last asked (undefined when the source cannot tell). */
  readonly head?: number;
  /** Events not yet handled: head − position. */
  readonly backlog?: number;
  /** Failures in a row (0 once an event is handled again). */
  readonly failures: number;
  /** Waiting out a backoff after a failure. */
  readonly retrying: boolean;
  readonly lastError?: string;
}

/**
 * Follows an event source, maps each event and publishes non-null results with key =
 * aggregate id, causation id = the event's id, the event's correlation id, and the contract
 * headers the mapper gave with {@link withHeaders} (validated by the codec: a missing required
 * header is a ContractValidationError, which stops the relay). The checkpoint advances only
 * after the publish is acknowledged (at least once).
 *
 * A hosted component: `messaging.host(relay)` starts it with `messaging.start()`, stops it
 * inside the shared shutdown budget and shows its position and backlog in `health()`. On a
 * failure it logs, backs off and resumes from its last acknowledged position.
 */
export class EventRelay<D, M extends AnyContractMessage> implements HostedComponent, AsyncDisposable {
  /** Kept from the former name: health output and dashboards group it under `producer`. */
  readonly kind = 'producer';
  readonly #options: EventRelayOptions<D, M>;
  readonly #checkpoints: CheckpointStore;
  readonly #logger: Logger;
  readonly #backoff: Backoff | undefined;
  readonly #stop = new AbortController();
  #loop: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #loaded = false;
  #position = 0;
  #head: number | undefined;
  #published = 0;
  #filtered = 0;
  #failures = 0;
  #retrying = false;
  #gaveUp = false;
  #lastError: string | undefined;

  constructor(options: EventRelayOptions<D, M>) {
    this.#options = options;
    this.#checkpoints = options.checkpoints ?? new InMemoryCheckpointStore();
    this.#logger = options.logger ?? stderrLogger;
    this.#backoff = options.retry === false ? undefined : exponentialBackoff(options.retry ?? {}, options.random);
  }

  get name(): string {
    return this.#options.name;
  }

  /** Starts following the source (once); resolves at once — failures are retried, never thrown. */
  start(): Promise<void> {
    if (this.#loop === undefined && !this.#stop.signal.aborted) {
      this.#loop = this.#run();
      const interval = this.#options.healthIntervalMs ?? 1_000;
      void this.#refreshHead();
      this.#timer = setInterval(() => void this.#refreshHead(), interval);
      this.#timer.unref();
    }
    return Promise.resolve();
  }

  status(): EventRelayStatus {
    const { name } = this.#options;
    return {
      name,
      running: this.#loop !== undefined && !this.#stop.signal.aborted && !this.#gaveUp,
      position: this.#position,
      published: this.#published,
      filtered: this.#filtered,
      ...(this.#head === undefined ? {} : { head: this.#head, backlog: Math.max(0, this.#head - this.#position) }),
      failures: this.#failures,
      retrying: this.#retrying,
      ...(this.#lastError === undefined ? {} : { lastError: this.#lastError }),
    };
  }

  health(): HostedComponentHealth {
    const status = this.status();
    const reason = !status.running
      ? this.#gaveUp
        ? `stopped after a failure: ${status.lastError}`
        : this.#loop === undefined
          ? 'not started'
          : 'stopped'
      : status.retrying
        ? `retrying after ${status.failures} failure${status.failures === 1 ? '' : 's'}: ${status.lastError}`
        : undefined;
    const { name: _name, running: _running, ...details } = status;
    return {
      kind: this.kind,
      name: this.name,
      ready: status.running && !status.retrying,
      ...(reason === undefined ? {} : { reason }),
      details,
    };
  }

  /** Stops following; waits for in-flight publishes and the last checkpoint, or until `deadline` aborts. Never throws. */
  async stop(deadline?: AbortSignal): Promise<void> {
    this.#stop.abort();
    clearInterval(this.#timer);
    if (this.#loop === undefined) return;
    if (deadline === undefined) {
      await this.#loop;
      return;
    }
    await Promise.race([this.#loop, waitForWake(new Set(), { signal: deadline })]);
    if (deadline.aborted) this.#logger.warn('message producer did not stop within the shutdown budget', { producer: this.name });
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.stop();
  }

  async #refreshHead(): Promise<void> {
    const { source } = this.#options;
    if (source.lastPosition === undefined) return;
    try {
      this.#head = await source.lastPosition();
    } catch {
      // Health keeps the last known head; the loop reports the store's failure.
    }
  }

  async #run(): Promise<void> {
    const stop = this.#stop.signal;
    const backoff = this.#backoff;
    try {
      await retry(
        async () => {
          this.#retrying = false;
          const failure = await this.#follow();
          if (failure === undefined || stop.aborted) return;
          this.#failures++;
          this.#lastError = failure instanceof Error ? failure.message : String(failure);
          throw failure;
        },
        {
          // Without a backoff the first failure stops the relay; with one it retries until stopped,
          // or until an error says retrying cannot help. The delay grows with consecutive failures
          // (progress resets the count), not with the attempts since start.
          maxAttempts: backoff === undefined ? 1 : 0,
          backoff: { delay: () => backoff?.delay(this.#failures) ?? 0 },
          clock: systemClock,
          signal: stop,
          onRetry: (_error, _attempt, delayMs) => {
            this.#logger.warn('message producer failed; retrying from its last acknowledged position', {
              producer: this.name,
              position: this.#position,
              failures: this.#failures,
              delayMs,
              error: this.#lastError,
            });
            this.#retrying = true;
          },
        },
      );
    } catch {
      if (stop.aborted) return;
      this.#gaveUp = true;
      this.#logger.error(
        backoff === undefined
          ? 'message producer stopped on an error; restart it after fixing the cause'
          : 'message producer stopped on an error that retrying cannot fix; restart it after fixing the cause',
        { producer: this.name, position: this.#position, error: this.#lastError },
      );
    }
  }

  /** Follows the source until stopped (returns undefined) or until something fails (returns the error). */
  async #follow(): Promise<unknown> {
    const { name, source, mapper, publisher } = this.#options;
    const window = this.#options.maxInFlight ?? 1_000;
    // Publishes run concurrently (so the publisher can batch); the checkpoint advances over
    // the contiguous prefix of events whose publish was acknowledged (or that were filtered).
    const pending: { readonly position: number; done: boolean }[] = [];
    let failure: unknown;
    const halt = new AbortController();
    let saving = Promise.resolve();
    let progressed: (() => void) | undefined;
    const fail = (error: unknown): void => {
      failure ??= error;
      halt.abort();
      progressed?.();
    };
    const advance = (): void => {
      let last: number | undefined;
      while (pending[0]?.done) last = pending.shift()!.position;
      if (last !== undefined) {
        const position = last;
        this.#position = position;
        this.#failures = 0;
        saving = saving.then(() => this.#checkpoints.save(name, position)).catch(fail);
      }
      progressed?.();
    };
    try {
      if (!this.#loaded) {
        this.#position = (await this.#checkpoints.load(name)) ?? 0;
        this.#loaded = true;
      }
      for await (const stored of source.subscribe(this.#position, AbortSignal.any([this.#stop.signal, halt.signal]))) {
        if (failure !== undefined) break;
        let mapped: { readonly message: M; readonly headers?: HeadersOf<M> } | null;
        try {
          mapped = unwrapMapped(
            mapper.map(stored.event, {
              aggregateId: stored.aggregateId,
              position: stored.position,
              timestamp: stored.timestamp,
              eventId: stored.eventId,
              ...(stored.correlationId === undefined ? {} : { correlationId: stored.correlationId }),
              ...(stored.causationId === undefined ? {} : { causationId: stored.causationId }),
              metadata: stored.metadata,
            }),
          );
        } catch (error) {
          failure ??= error;
          break;
        }
        const entry = { position: stored.position, done: false };
        pending.push(entry);
        if (mapped === null) {
          this.#filtered++;
          entry.done = true;
          advance();
        } else {
          publisher
            .publish(mapped.message, {
              key: stored.aggregateId,
              causationId: stored.eventId,
              time: stored.timestamp,
              ...(stored.correlationId === undefined ? {} : { correlationId: stored.correlationId }),
              ...(mapped.headers === undefined ? {} : { headers: mapped.headers }),
            })
            .then(() => {
              this.#published++;
              entry.done = true;
              advance();
            }, fail);
        }
        while (pending.length >= window && failure === undefined) await new Promise<void>((resolve) => (progressed = resolve));
      }
    } catch (error) {
      failure ??= error;
    }
    // Let what is in flight finish, so the checkpoint covers every acknowledged publish.
    try {
      await publisher.flush();
    } catch (error) {
      failure ??= error;
    }
    await new Promise<void>((resolve) => setImmediate(resolve));
    await saving;
    return failure;
  }
}

/** @deprecated Use {@link EventRelay} (the same class; renamed because Kafka has producers). */
export const MessageProducer = EventRelay;
/** @deprecated Use {@link EventRelay}. */
export type MessageProducer<D, M extends AnyContractMessage> = EventRelay<D, M>;
/** @deprecated Use {@link EventRelayOptions}. */
export type MessageProducerOptions<D, M extends AnyContractMessage> = EventRelayOptions<D, M>;
/** @deprecated Use {@link EventRelayStatus}. */
export type MessageProducerStatus = EventRelayStatus;
