/**
 * From domain events to the public contract: a {@link Mapper} turns each domain event into
 * a contract message or `null` (not published) — an {@link EventMapper} may also give the message
 * its contract headers ({@link withHeaders}) — and a {@link MessageProducer} runs it over an event
 * source, publishes the results and checkpoints its position.
 *
 * Domain events and contract messages are apart by construction: a mapper's target must
 * be a contract message (branded), so a domain event type cannot be the target, and a
 * publisher only takes contract messages.
 */

import { type Backoff, type BackoffOptions, exponentialBackoff } from './core/backoff.js';
import { type Clock, systemClock } from './core/clock.js';
import { type AnyContractMessage, type HeadersOf, messageType } from './core/contract.js';
import { KeiyakuError } from './core/errors.js';
import type { HostedComponent, HostedComponentHealth } from './core/hosted.js';
import { type Logger, stderrLogger } from './core/logger.js';
import { retry } from './core/retry.js';
import { type Waiter, waitForWake } from './core/wake-up.js';
import {
  type AppendToStreamOptions,
  checkExpectedVersion,
  type EventSource,
  type EventStore,
  type ReadAllOptions,
  type RecordedEvent,
} from './event-store/store.js';

export type { AppendOptions, EventSource, StoredEvent } from './event-store/store.js';

import type { Publisher } from './publish/publisher.js';

/** What a mapper knows about the stored event beside the event itself. */
export interface EventMapperContext {
  readonly aggregateId: string;
  /** Global position in the event store. */
  readonly position: number;
  readonly timestamp: Date;
  /** Id of the stored event; becomes the causation id of what is published. */
  readonly eventId: string;
  readonly correlationId?: string;
  readonly causationId?: string;
  readonly metadata: Readonly<Record<string, string>>;
}

/** Domain event → contract message, or `null` to keep the event internal. */
export interface Mapper<D, M extends AnyContractMessage> {
  map(event: D, context: EventMapperContext): M | null;
}

/**
 * A contract message with the contract headers it travels with (built by {@link withHeaders}).
 * One member per message type of `M`, so the headers are those the message's own headers schema
 * declares.
 */
export type MessageWithHeaders<M extends AnyContractMessage> = M extends AnyContractMessage
  ? { readonly message: M; readonly headers: HeadersOf<M> }
  : never;

/**
 * The messages of `M` that may go without headers: those whose contract declares no header as
 * required. A message whose headers schema requires one (a tenant id) must come with its headers.
 */
export type WithoutRequiredHeaders<M extends AnyContractMessage> = M extends AnyContractMessage
  ? // biome-ignore lint/complexity/noBannedTypes: `{}` is the empty headers object here, not "any non-nullish value"
    {} extends HeadersOf<M>
    ? M
    : never
  : never;

/**
 * What an {@link EventMapper} returns: a contract message, a message with its headers
 * ({@link withHeaders}), or `null`. A message whose headers schema requires a header can only be
 * returned with its headers: the compiler refuses it bare (it would fail validation at run time).
 */
export type Mapped<M extends AnyContractMessage> = WithoutRequiredHeaders<M> | MessageWithHeaders<M> | null;

/**
 * A mapper that may give a message its contract headers: `map` returns `withHeaders(message,
 * headers)` where the message's headers schema asks for values the event knows (a tenant id).
 * The outbox's `writeEvents` and the {@link MessageProducer} take one. Every {@link Mapper} is one
 * whose channel declares no required header; on a channel that does, the compiler asks for an
 * `EventMapper` that returns those messages with their headers.
 */
export interface EventMapper<D, M extends AnyContractMessage> {
  map(event: D, context: EventMapperContext): Mapped<M>;
}

/**
 * `message` with the contract `headers` it is to be published with, for a mapper to return.
 * The headers are validated with the message (by the codec, at the write or the publish).
 *
 * ```ts
 * map: (event, context) => withHeaders(ParcelScanned.create({ … }), { tenantId: event.tenantId })
 * ```
 */
export function withHeaders<T extends AnyContractMessage>(message: T, headers: HeadersOf<T>): MessageWithHeaders<T> {
  return Object.freeze({ message, headers }) as unknown as MessageWithHeaders<T>;
}

/** A mapper returned something that is neither a contract message, a message with headers, nor null. */
export class MapperResultError extends KeiyakuError {
  override readonly name = 'MapperResultError';

  constructor(what: string) {
    super(
      'mapper_result',
      `a mapper returned ${what}: return a contract message (from a generated factory), withHeaders(message, headers), or null to keep the event internal`,
    );
  }
}

function isContractMessage(value: unknown): value is AnyContractMessage {
  return typeof value === 'object' && value !== null && typeof (value as Partial<AnyContractMessage>)[messageType] === 'string';
}

/**
 * @internal The message and contract headers of a mapper's result (undefined headers when it
 * gave none); null when the event stays internal. Throws {@link MapperResultError} for anything else.
 */
export function unwrapMapped<M extends AnyContractMessage>(
  result: Mapped<M>,
): { readonly message: M; readonly headers?: HeadersOf<M> } | null {
  if (result === null) return null;
  if (isContractMessage(result)) return { message: result as M };
  if (typeof result === 'object' && result !== undefined && isContractMessage((result as { message?: unknown }).message)) {
    const { message, headers } = result as { readonly message: M; readonly headers?: HeadersOf<M> };
    return headers === undefined ? { message } : { message, headers };
  }
  throw new MapperResultError(
    result === undefined
      ? 'undefined (a missing return?)'
      : typeof result === 'object'
        ? 'an object that is not a contract message (a domain event or a plain object literal?)'
        : `a ${typeof result}`,
  );
}

/** Where a producer remembers how far it got. */
export interface CheckpointStore {
  load(name: string): Promise<number | undefined>;
  save(name: string, position: number): Promise<void>;
}

export class InMemoryCheckpointStore implements CheckpointStore {
  readonly #positions = new Map<string, number>();
  async load(name: string): Promise<number | undefined> {
    return this.#positions.get(name);
  }
  async save(name: string, position: number): Promise<void> {
    this.#positions.set(name, position);
  }
}

/** An in-process event store: append-only, with subscriptions that catch up and then follow. Synchronous. */
export class InMemoryEventStore<D> implements EventStore<D> {
  readonly #events: RecordedEvent<D>[] = [];
  readonly #versions = new Map<string, number>();
  readonly #waiters = new Set<Waiter>();
  readonly #clock: Clock;
  #nextId = 1;

  constructor(options: { clock?: Clock } = {}) {
    this.#clock = options.clock ?? systemClock;
  }

  /**
   * Appends events of one aggregate (stream); returns them as stored. Throws
   * {@link ConcurrencyError} (appending nothing) when `expectedVersion` does not match.
   */
  append(aggregateId: string, events: readonly D[], options: AppendToStreamOptions = {}): readonly RecordedEvent<D>[] {
    const current = this.#versions.get(aggregateId) ?? 0;
    checkExpectedVersion(aggregateId, options.expectedVersion, current);
    if (events.length === 0) return [];
    const stored = events.map((event, i): RecordedEvent<D> => {
      const position = this.#events.length + 1;
      const record: RecordedEvent<D> = Object.freeze({
        event,
        aggregateId,
        version: current + i + 1,
        position,
        timestamp: new Date(this.#clock.now()),
        eventId: `evt-${this.#nextId++}`,
        ...(options.correlationId === undefined ? {} : { correlationId: options.correlationId }),
        ...(options.causationId === undefined ? {} : { causationId: options.causationId }),
        metadata: { ...(options.metadata ?? {}) },
      });
      this.#events.push(record);
      return record;
    });
    this.#versions.set(aggregateId, current + events.length);
    for (const wake of [...this.#waiters]) wake();
    return stored;
  }

  /** Events of one aggregate, in order. */
  stream(aggregateId: string): readonly RecordedEvent<D>[] {
    return this.#events.filter((e) => e.aggregateId === aggregateId);
  }

  readStream(streamId: string, options: { readonly fromVersion?: number } = {}): readonly RecordedEvent<D>[] {
    const from = options.fromVersion ?? 1;
    return this.stream(streamId).filter((e) => e.version >= from);
  }

  readAll(after: number, options: ReadAllOptions = {}): readonly RecordedEvent<D>[] {
    return this.#events.slice(Math.max(0, after), Math.max(0, after) + (options.limit ?? 1_000));
  }

  streamVersion(streamId: string): number {
    return this.#versions.get(streamId) ?? 0;
  }

  lastPosition(): number {
    return this.#events.length;
  }

  get head(): number {
    return this.#events.length;
  }

  async *subscribe(after: number, signal: AbortSignal): AsyncIterable<RecordedEvent<D>> {
    let position = after;
    while (!signal.aborted) {
      while (position < this.#events.length) {
        yield this.#events[position]!;
        position++;
      }
      await waitForWake(this.#waiters, { signal });
    }
  }
}

export interface MessageProducerOptions<D, M extends AnyContractMessage> {
  /** Checkpoint name: one per producer (`library.book-integration-events`); also its name in health. */
  readonly name: string;
  readonly source: EventSource<D>;
  /** Maps each event; may give a message its contract headers with {@link withHeaders}. */
  readonly mapper: EventMapper<D, M>;
  readonly publisher: Publisher<M>;
  readonly checkpoints?: CheckpointStore;
  readonly logger?: Logger;
  /** Publishes awaiting acknowledgement before the producer waits (default 1000). */
  readonly maxInFlight?: number;
  /**
   * After a failure (a publish that failed every retry, a mapper error, the store unreachable)
   * the producer waits this backoff, then resumes from its last acknowledged position
   * (default: 200 ms doubling up to 30 s, ±20 % jitter). `false`: stop for good on the first
   * failure, as before this option existed.
   */
  readonly retry?: BackoffOptions | false;
  /** How often health's head and backlog are refreshed from the source, when it tells its last position (default 1000 ms). */
  readonly healthIntervalMs?: number;
  readonly random?: () => number;
}

export interface MessageProducerStatus {
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
 * header is a ContractValidationError, which stops the producer). The checkpoint advances only
 * after the publish is acknowledged (at least once).
 *
 * A hosted component: `messaging.host(producer)` starts it with `messaging.start()`, stops it
 * inside the shared shutdown budget and shows its position and backlog in `health()`. On a
 * failure it logs, backs off and resumes from its last acknowledged position.
 */
export class MessageProducer<D, M extends AnyContractMessage> implements HostedComponent, AsyncDisposable {
  readonly kind = 'producer';
  readonly #options: MessageProducerOptions<D, M>;
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

  constructor(options: MessageProducerOptions<D, M>) {
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

  status(): MessageProducerStatus {
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
          // Without a backoff the first failure stops the producer; with one it retries until stopped,
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
