/**
 * The SQLite event store and checkpoint store (better-sqlite3): synchronous like the driver,
 * so `append` runs inside your own `db.transaction(...)` beside your other writes.
 * Tables come from `migrateSqlite(db)`; a store on an unmigrated database throws
 * {@link StoreNotMigratedError} when it is constructed.
 */
import { randomUUID } from 'node:crypto';
import type { CheckpointStore } from '@keiyaku/runtime/adapter';
import {
  type AppendToStreamOptions,
  type Clock,
  checkExpectedVersion,
  type EventSerializer,
  type EventStore,
  type EventTableRow,
  eventTypeOf,
  jsonSerializer,
  type ReadAllOptions,
  type RecordedEvent,
  recordedEventFrom,
  StoreNotMigratedError,
  systemClock,
  type Waiter,
  waitForWake,
} from '@keiyaku/runtime/adapter';
import Database from 'better-sqlite3';
import { assertSqliteDriverRuns } from './driver.js';

type EventRow = EventTableRow & { readonly position: number; readonly metadata: string; readonly recorded_at: number };

/** Opens `path` (a file, created if missing) in WAL mode, or uses the given database. */
export function openSqlite(database: string | Database.Database, options: { readonly fileMustExist?: boolean } = {}): Database.Database {
  if (typeof database !== 'string') return database;
  assertSqliteDriverRuns();
  const db = new Database(database, options.fileMustExist === true ? { fileMustExist: true } : {});
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  return db;
}

/** Prepares a statement, turning "no such table" into {@link StoreNotMigratedError}. */
// biome-ignore lint/complexity/noBannedTypes: better-sqlite3 types a statement's named parameters as `{}`
export function prepareMigrated<P extends unknown[] | {} = unknown[], R = unknown>(
  db: Database.Database,
  sql: string,
): Database.Statement<P, R> {
  try {
    return db.prepare<P, R>(sql);
  } catch (error) {
    const missing = error instanceof Error ? /no such table: (\w+)/.exec(error.message)?.[1] : undefined;
    if (missing) throw new StoreNotMigratedError(missing, 'migrateSqlite(db) from @keiyaku/sqlite', error);
    throw error;
  }
}

export interface SqliteEventStoreOptions<D> {
  readonly serializer?: EventSerializer<D>;
  readonly clock?: Clock;
  /** How often a subscription looks for events appended by another process (default 250 ms). */
  readonly pollIntervalMs?: number;
}

export class SqliteEventStore<D> implements EventStore<D> {
  readonly db: Database.Database;
  readonly #serializer: EventSerializer<D>;
  readonly #clock: Clock;
  readonly #pollMs: number;
  readonly #waiters = new Set<Waiter>();
  readonly #insert: Database.Statement<unknown[]>;
  readonly #version: Database.Statement<[string], { v: number }>;
  readonly #head: Database.Statement<[], { p: number }>;
  readonly #stream: Database.Statement<[string, number], EventRow>;
  readonly #all: Database.Statement<[number, number], EventRow>;
  readonly #append: (streamId: string, events: readonly D[], options: AppendToStreamOptions) => RecordedEvent<D>[];

  /** `database`: a file path (opened in WAL mode) or your own better-sqlite3 database. */
  constructor(database: string | Database.Database, options: SqliteEventStoreOptions<D> = {}) {
    this.db = openSqlite(database);
    this.#serializer = options.serializer ?? (jsonSerializer as EventSerializer<D>);
    this.#clock = options.clock ?? systemClock;
    this.#pollMs = options.pollIntervalMs ?? 250;
    this.#insert = prepareMigrated(
      this.db,
      `INSERT INTO keiyaku_events (position, stream_id, version, event_id, event_type, data, metadata, correlation_id, causation_id, recorded_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.#version = prepareMigrated(this.db, 'SELECT coalesce(max(version), 0) AS v FROM keiyaku_events WHERE stream_id = ?');
    this.#head = prepareMigrated(this.db, 'SELECT coalesce(max(position), 0) AS p FROM keiyaku_events');
    this.#stream = prepareMigrated(this.db, 'SELECT * FROM keiyaku_events WHERE stream_id = ? AND version >= ? ORDER BY version');
    this.#all = prepareMigrated(this.db, 'SELECT * FROM keiyaku_events WHERE position > ? ORDER BY position LIMIT ?');
    this.#append = this.db.transaction((streamId: string, events: readonly D[], options: AppendToStreamOptions) => {
      const current = this.#version.get(streamId)!.v;
      checkExpectedVersion(streamId, options.expectedVersion, current);
      let position = this.#head.get()!.p;
      const recordedAt = this.#clock.now();
      const metadata = options.metadata ?? {};
      return events.map((event, i): RecordedEvent<D> => {
        position++;
        const eventId = randomUUID();
        this.#insert.run(
          position,
          streamId,
          current + i + 1,
          eventId,
          eventTypeOf(this.#serializer, event),
          this.#serializer.serialize(event),
          JSON.stringify(metadata),
          options.correlationId ?? null,
          options.causationId ?? null,
          recordedAt,
        );
        return Object.freeze({
          event,
          aggregateId: streamId,
          version: current + i + 1,
          position,
          timestamp: new Date(recordedAt),
          eventId,
          ...(options.correlationId === undefined ? {} : { correlationId: options.correlationId }),
          ...(options.causationId === undefined ? {} : { causationId: options.causationId }),
          metadata: { ...metadata },
        });
      });
    });
  }

  /**
   * Appends atomically (inside your transaction when called in one: it nests as a savepoint).
   * Throws {@link ConcurrencyError} when `expectedVersion` does not match.
   */
  append(streamId: string, events: readonly D[], options: AppendToStreamOptions = {}): readonly RecordedEvent<D>[] {
    if (events.length === 0) return [];
    const stored = this.#append(streamId, events, options);
    // Wake subscribers after the caller's transaction commits (or at once when there is none).
    if (this.db.inTransaction) setImmediate(() => this.#wake());
    else this.#wake();
    return stored;
  }

  readStream(streamId: string, options: { readonly fromVersion?: number } = {}): readonly RecordedEvent<D>[] {
    return this.#stream.all(streamId, options.fromVersion ?? 1).map((row) => this.#fromRow(row));
  }

  readAll(after: number, options: ReadAllOptions = {}): readonly RecordedEvent<D>[] {
    return this.#all.all(after, options.limit ?? 1_000).map((row) => this.#fromRow(row));
  }

  streamVersion(streamId: string): number {
    return this.#version.get(streamId)!.v;
  }

  lastPosition(): number {
    return this.#head.get()!.p;
  }

  async *subscribe(after: number, signal: AbortSignal): AsyncIterable<RecordedEvent<D>> {
    let position = after;
    while (!signal.aborted) {
      const batch = this.readAll(position, { limit: 500 });
      for (const event of batch) {
        if (signal.aborted) return;
        yield event;
        position = event.position;
      }
      if (batch.length < 500) await waitForWake(this.#waiters, { signal, timeoutMs: this.#pollMs });
    }
  }

  #wake(): void {
    for (const wake of [...this.#waiters]) wake();
  }

  #fromRow(row: EventRow): RecordedEvent<D> {
    return recordedEventFrom(row, this.#serializer);
  }
}

/** Checkpoints in `keiyaku_checkpoints`; each save is durable when it returns. */
export class SqliteCheckpointStore implements CheckpointStore {
  readonly db: Database.Database;
  readonly #load: Database.Statement<[string], { position: number }>;
  readonly #save: Database.Statement<[string, number, number]>;
  readonly #clock: Clock;

  constructor(database: string | Database.Database, options: { readonly clock?: Clock } = {}) {
    this.db = openSqlite(database);
    this.#clock = options.clock ?? systemClock;
    this.#load = prepareMigrated(this.db, 'SELECT position FROM keiyaku_checkpoints WHERE name = ?');
    this.#save = prepareMigrated(
      this.db,
      `INSERT INTO keiyaku_checkpoints (name, position, updated_at) VALUES (?, ?, ?)
       ON CONFLICT (name) DO UPDATE SET position = excluded.position, updated_at = excluded.updated_at`,
    );
  }

  async load(name: string): Promise<number | undefined> {
    return this.#load.get(name)?.position;
  }

  async save(name: string, position: number): Promise<void> {
    this.#save.run(name, position, this.#clock.now());
  }
}
