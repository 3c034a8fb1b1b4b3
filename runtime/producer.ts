/**
 * From domain events to the public contract: a {@link Mapper} turns each domain event into
 * a contract message or `null` (not published), and a {@link MessageProducer} runs it over
 * an event source, publishes the results and checkpoints its position.
 *
 * Domain events and contract messages are apart by construction: a mapper's target must
 * be a contract message (branded), so a domain event type cannot be the target, and a
 * publisher only takes contract messages.
 */
import type { AnyContractMessage } from './codegen-v1.js';
import { type Clock, systemClock } from './core/clock.js';
import { type Logger, stderrLogger } from './core/logger.js';
import { type Waiter, waitForWake } from './core/wait.js';
import type { Publisher } from './publisher.js';

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

/** A stored domain event with its envelope. */
export interface StoredEvent<D> {
  readonly event: D;
  readonly aggregateId: string;
  readonly position: number;
  readonly timestamp: Date;
  readonly eventId: string;
  readonly correlationId?: string;
  readonly causationId?: string;
  readonly metadata: Readonly<Record<string, string>>;
}

/** Anything that can replay domain events from a position and then follow new ones. */
export interface EventSource<D> {
  /** Events after `position` (exclusive), then new ones as they are appended, until `signal` aborts. */
  subscribe(after: number, signal: AbortSignal): AsyncIterable<StoredEvent<D>>;
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

export interface AppendOptions {
  readonly correlationId?: string;
  readonly causationId?: string;
  readonly metadata?: Readonly<Record<string, string>>;
}

/** An in-process event store: append-only, with subscriptions that catch up and then follow. */
export class InMemoryEventStore<D> implements EventSource<D> {
  readonly #events: StoredEvent<D>[] = [];
  readonly #waiters = new Set<Waiter>();
  readonly #clock: Clock;
  #nextId = 1;

  constructor(options: { clock?: Clock } = {}) {
    this.#clock = options.clock ?? systemClock;
  }

  /** Appends events of one aggregate; returns them as stored. */
  append(aggregateId: string, events: readonly D[], options: AppendOptions = {}): readonly StoredEvent<D>[] {
    const stored = events.map((event): StoredEvent<D> => {
      const position = this.#events.length + 1;
      const record: StoredEvent<D> = {
        event,
        aggregateId,
        position,
        timestamp: new Date(this.#clock.now()),
        eventId: `evt-${this.#nextId++}`,
        ...(options.correlationId === undefined ? {} : { correlationId: options.correlationId }),
        ...(options.causationId === undefined ? {} : { causationId: options.causationId }),
        metadata: options.metadata ?? {},
      };
      this.#events.push(record);
      return record;
    });
    for (const wake of [...this.#waiters]) wake();
    return stored;
  }

  /** Events of one aggregate, in order. */
  stream(aggregateId: string): readonly StoredEvent<D>[] {
    return this.#events.filter((e) => e.aggregateId === aggregateId);
  }

  get head(): number {
    return this.#events.length;
  }

  async *subscribe(after: number, signal: AbortSignal): AsyncIterable<StoredEvent<D>> {
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
  /** Checkpoint name: one per producer (`library.book-integration-events`). */
  readonly name: string;
  readonly source: EventSource<D>;
  readonly mapper: Mapper<D, M>;
  readonly publisher: Publisher<M>;
  readonly checkpoints?: CheckpointStore;
  readonly logger?: Logger;
  /** Publishes awaiting acknowledgement before the producer waits (default 1000). */
  readonly maxInFlight?: number;
}

export interface MessageProducerStatus {
  readonly name: string;
  readonly running: boolean;
  /** Position of the last event handled (published or filtered). */
  readonly position: number;
  readonly published: number;
  readonly filtered: number;
  readonly lastError?: string;
}

/**
 * Follows an event source, maps each event and publishes non-null results with key =
 * aggregate id, causation id = the event's id, and the event's correlation id. The
 * checkpoint advances only after the publish is acknowledged (at least once).
 */
export class MessageProducer<D, M extends AnyContractMessage> implements AsyncDisposable {
  readonly #options: MessageProducerOptions<D, M>;
  readonly #checkpoints: CheckpointStore;
  readonly #logger: Logger;
  readonly #stop = new AbortController();
  #loop: Promise<void> | undefined;
  #position = 0;
  #published = 0;
  #filtered = 0;
  #lastError: string | undefined;

  constructor(options: MessageProducerOptions<D, M>) {
    this.#options = options;
    this.#checkpoints = options.checkpoints ?? new InMemoryCheckpointStore();
    this.#logger = options.logger ?? stderrLogger;
  }

  start(): void {
    this.#loop ??= this.#run();
  }

  status(): MessageProducerStatus {
    return {
      name: this.#options.name,
      running: this.#loop !== undefined && !this.#stop.signal.aborted && this.#lastError === undefined,
      position: this.#position,
      published: this.#published,
      filtered: this.#filtered,
      ...(this.#lastError === undefined ? {} : { lastError: this.#lastError }),
    };
  }

  async stop(): Promise<void> {
    this.#stop.abort();
    await this.#loop;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.stop();
  }

  async #run(): Promise<void> {
    const { name, source, mapper, publisher } = this.#options;
    const window = this.#options.maxInFlight ?? 1_000;
    // Publishes run concurrently (so the publisher can batch); the checkpoint advances over
    // the contiguous prefix of events whose publish was acknowledged (or that were filtered).
    const pending: { readonly position: number; done: boolean }[] = [];
    let failure: unknown;
    const halt = new AbortController();
    let saving = Promise.resolve();
    let progressed: (() => void) | undefined;
    const advance = (): void => {
      let last: number | undefined;
      while (pending[0]?.done) last = pending.shift()!.position;
      if (last !== undefined) {
        const position = last;
        this.#position = position;
        saving = saving.then(() => this.#checkpoints.save(name, position));
      }
      progressed?.();
    };
    try {
      this.#position = (await this.#checkpoints.load(name)) ?? 0;
      for await (const stored of source.subscribe(this.#position, AbortSignal.any([this.#stop.signal, halt.signal]))) {
        if (failure !== undefined) break;
        let message: M | null;
        try {
          message = mapper.map(stored.event, {
            aggregateId: stored.aggregateId,
            position: stored.position,
            timestamp: stored.timestamp,
            eventId: stored.eventId,
            ...(stored.correlationId === undefined ? {} : { correlationId: stored.correlationId }),
            ...(stored.causationId === undefined ? {} : { causationId: stored.causationId }),
            metadata: stored.metadata,
          });
        } catch (error) {
          failure ??= error;
          break;
        }
        const entry = { position: stored.position, done: false };
        pending.push(entry);
        if (message === null) {
          this.#filtered++;
          entry.done = true;
          advance();
        } else {
          publisher
            .publish(message, {
              key: stored.aggregateId,
              causationId: stored.eventId,
              time: stored.timestamp,
              ...(stored.correlationId === undefined ? {} : { correlationId: stored.correlationId }),
            })
            .then(
              () => {
                this.#published++;
                entry.done = true;
                advance();
              },
              (error: unknown) => {
                failure ??= error;
                halt.abort();
                progressed?.();
              },
            );
        }
        while (pending.length >= window && failure === undefined) await new Promise<void>((resolve) => (progressed = resolve));
      }
    } catch (error) {
      failure ??= error;
    }
    // Let what is in flight finish, so the checkpoint covers every acknowledged publish.
    await publisher.flush();
    await new Promise<void>((resolve) => setImmediate(resolve));
    await saving;
    if (failure !== undefined) {
      this.#lastError = failure instanceof Error ? failure.message : String(failure);
      this.#logger.error('message producer stopped on an error; restart it after fixing the cause', {
        producer: name,
        position: this.#position,
        error: this.#lastError,
      });
    }
  }
}
