/**
 * The event store an event relay (`EventRelay`) reads: append-only streams with an optimistic
 * concurrency check, read by stream and by global position, and a subscription that catches
 * up and then follows. Implementations: `InMemoryEventStore` (@keiyaku/runtime),
 * `SqliteEventStore` (@keiyaku/sqlite), `PostgresEventStore` (@keiyaku/postgres).
 */
import { KeiyakuError } from '../../core/errors.js';

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
  /** The position of the last event (0 when empty); when present, a relay reports its backlog. */
  lastPosition?(): Awaitable<number>;
}

export interface AppendOptions {
  readonly correlationId?: string;
  readonly causationId?: string;
  readonly metadata?: Readonly<Record<string, string>>;
}

/** A value, or a promise of it: SQLite and memory stores answer synchronously, PostgreSQL asynchronously. */
export type Awaitable<T> = T | Promise<T>;

/**
 * What the writer believes the stream's version is: `'any'` (no check, the default),
 * `'no-stream'` (the stream must have no events), or the number of events it has (its version).
 */
export type ExpectedVersion = number | 'any' | 'no-stream';

export interface AppendToStreamOptions extends AppendOptions {
  /** Checked atomically with the append; a mismatch throws {@link ConcurrencyError} and appends nothing. */
  readonly expectedVersion?: ExpectedVersion;
}

/** A stored event with its place in its stream (`version`, 1-based) beside its global `position`. */
export interface RecordedEvent<D> extends StoredEvent<D> {
  readonly version: number;
}

export interface ReadAllOptions {
  /** Largest number of events returned (default 1000). */
  readonly limit?: number;
}

export interface EventStore<D> extends EventSource<D> {
  /** Appends `events` to stream `streamId` (all or nothing); returns them as stored. */
  append(streamId: string, events: readonly D[], options?: AppendToStreamOptions): Awaitable<readonly RecordedEvent<D>[]>;
  /** The stream's events in order, from `fromVersion` (inclusive, default 1). */
  readStream(streamId: string, options?: { readonly fromVersion?: number }): Awaitable<readonly RecordedEvent<D>[]>;
  /** Events of every stream after global position `after` (exclusive), in position order. */
  readAll(after: number, options?: ReadAllOptions): Awaitable<readonly RecordedEvent<D>[]>;
  /** The stream's version: how many events it has (0 when none). */
  streamVersion(streamId: string): Awaitable<number>;
  /** The global position of the last event (0 when empty). */
  lastPosition(): Awaitable<number>;
}

/** Turns domain events into text and back (default: JSON). */
export interface EventSerializer<D> {
  serialize(event: D): string;
  deserialize(text: string): D;
  /** A short type name stored beside the event for queries (default: the event's `type` field, if any). */
  typeOf?(event: D): string;
}

export const jsonSerializer: EventSerializer<never> = Object.freeze({
  serialize: (event: unknown) => JSON.stringify(event),
  deserialize: (text: string) => JSON.parse(text) as never,
});

export function eventTypeOf<D>(serializer: EventSerializer<D>, event: D): string {
  if (serializer.typeOf) return serializer.typeOf(event);
  const type = (event as { type?: unknown } | null)?.type;
  return typeof type === 'string' ? type : '';
}

/** An append's expected version did not match the stream's: someone else wrote first. Reload and retry. */
export class ConcurrencyError extends KeiyakuError {
  override readonly name = 'ConcurrencyError';
  readonly streamId: string;
  readonly expected: ExpectedVersion;
  readonly actual: number;

  constructor(streamId: string, expected: ExpectedVersion, actual: number) {
    super(
      'wrong_expected_version',
      `stream ${streamId} is at version ${actual}, not ${expected === 'no-stream' ? 'empty (no-stream)' : expected}; reload it and decide again`,
    );
    this.streamId = streamId;
    this.expected = expected;
    this.actual = actual;
  }
}

/** Throws {@link ConcurrencyError} unless `actual` satisfies `expected`. */
export function checkExpectedVersion(streamId: string, expected: ExpectedVersion | undefined, actual: number): void {
  if (expected === undefined || expected === 'any') return;
  if (expected === 'no-stream' ? actual !== 0 : actual !== expected) throw new ConcurrencyError(streamId, expected, actual);
}

/** A durable store was used before its tables exist. */
export class StoreNotMigratedError extends KeiyakuError {
  override readonly name = 'StoreNotMigratedError';
  readonly table: string;

  constructor(table: string, how: string, cause?: unknown) {
    super('store_not_migrated', `table ${table} does not exist; create keiyaku's tables first with ${how}`, { cause });
    this.table = table;
  }
}

/** A durable store could not do what was asked (connection lost, server restarting, …). `retriable` says whether trying again can help. */
export class StoreError extends KeiyakuError {
  override readonly name = 'StoreError';

  constructor(message: string, options: { cause?: unknown; retriable?: boolean } = {}) {
    super('store_failed', message, { retriable: options.retriable ?? true, cause: options.cause });
  }
}

/** Where an event relay remembers how far it got. */
export interface CheckpointStore {
  load(name: string): Promise<number | undefined>;
  save(name: string, position: number): Promise<void>;
}
