/** The in-process event store and checkpoint store (tests, demos, single-process services). */
import { type Clock, systemClock } from '../../core/clock.js';
import { type Waiter, waitForWake } from '../../core/wake-up.js';
import {
  type AppendToStreamOptions,
  type CheckpointStore,
  checkExpectedVersion,
  type EventStore,
  type ReadAllOptions,
  type RecordedEvent,
} from './store.js';

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
