/**
 * The MySQL event store and checkpoint store (`mysql2`). Appends take the row lock of
 * `keiyaku_event_head` first, so global positions are gapless and become visible in order: a
 * reader that has seen position n never later finds an event below n. MySQL has no LISTEN/NOTIFY:
 * subscribers poll every `pollIntervalMs`, and appends through the same store object wake its
 * subscribers at once. A lost connection makes a subscription throw a retriable
 * {@link StoreError} (a hosted producer backs off and resumes).
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
  systemClock,
  type Waiter,
  waitForWake,
} from '@keiyaku/runtime/adapter';
import { inTransaction, type MysqlConnection, type MysqlQueryable, selectRows, storeError } from './client.js';

type EventRow = Omit<EventTableRow, 'recorded_at'> & { readonly recorded_at: number | string };

export interface MysqlEventStoreOptions<D> {
  readonly serializer?: EventSerializer<D>;
  readonly clock?: Clock;
  /** How often a subscription polls for events appended by other processes (default 200 ms). */
  readonly pollIntervalMs?: number;
}

export interface MysqlAppendOptions extends AppendToStreamOptions {
  /**
   * Your connection inside your own `START TRANSACTION … COMMIT`: the append joins your
   * transaction (and holds the head row lock until you commit). Without it the store runs its own.
   */
  readonly connection?: MysqlConnection;
}

const SELECT_EVENTS =
  'SELECT position, stream_id, version, event_id, data, metadata, correlation_id, causation_id, recorded_at FROM keiyaku_events';

export class MysqlEventStore<D> implements EventStore<D> {
  readonly #db: MysqlQueryable;
  readonly #serializer: EventSerializer<D>;
  readonly #clock: Clock;
  readonly #pollMs: number;
  /** Subscriptions of this object waiting for new events: appends through it wake them. */
  readonly #waiters = new Set<Waiter>();

  /** `db`: a `mysql2/promise` Pool (recommended) or one connection. */
  constructor(db: MysqlQueryable, options: MysqlEventStoreOptions<D> = {}) {
    this.#db = db;
    this.#serializer = options.serializer ?? (jsonSerializer as EventSerializer<D>);
    this.#clock = options.clock ?? systemClock;
    this.#pollMs = options.pollIntervalMs ?? 200;
  }

  /** Appends atomically; throws {@link ConcurrencyError} when `expectedVersion` does not match. */
  async append(streamId: string, events: readonly D[], options: MysqlAppendOptions = {}): Promise<readonly RecordedEvent<D>[]> {
    if (events.length === 0) return [];
    const run = (connection: MysqlConnection) => this.#append(connection, streamId, events, options, options.connection !== undefined);
    let recorded: readonly RecordedEvent<D>[];
    try {
      recorded = options.connection ? await run(options.connection) : await inTransaction(this.#db, run);
    } catch (error) {
      throw storeError(error, `appending to stream ${streamId}`);
    }
    // Committed (or joined to the caller's transaction, visible once it commits; polling covers that).
    for (const wake of [...this.#waiters]) wake();
    return recorded;
  }

  async #append(
    connection: MysqlConnection,
    streamId: string,
    events: readonly D[],
    options: AppendToStreamOptions,
    joined: boolean,
  ): Promise<readonly RecordedEvent<D>[]> {
    // The head row lock orders appends. In the store's own transaction the first plain read comes
    // after that lock, so its snapshot holds every append committed before: one SELECT reads the
    // head and the stream's version. A caller's transaction may hold an older snapshot: there the
    // reads are locking reads, which see the latest committed rows.
    await connection.query('UPDATE keiyaku_event_head SET position = position + ? WHERE id = 1', [events.length]);
    let last: number;
    let current: number;
    if (joined) {
      const [head] = await selectRows<{ position: number | string }>(
        connection,
        'SELECT position FROM keiyaku_event_head WHERE id = 1 FOR UPDATE',
      );
      last = head === undefined ? Number.NaN : Number(head.position);
      current = await this.#version(connection, streamId, true);
    } else {
      const [row] = await selectRows<{ head: number | string | null; v: number | string | null }>(
        connection,
        'SELECT (SELECT position FROM keiyaku_event_head WHERE id = 1) AS head, (SELECT MAX(version) FROM keiyaku_events WHERE stream_id = ?) AS v',
        [streamId],
      );
      last = row?.head === null || row?.head === undefined ? Number.NaN : Number(row.head);
      current = Number(row?.v ?? 0);
    }
    if (Number.isNaN(last)) throw new Error("Table 'keiyaku_event_head' doesn't exist as migrated (no row); run migrateMysql");
    checkExpectedVersion(streamId, options.expectedVersion, current);
    const first = last - events.length + 1;
    const recordedAt = Math.trunc(this.#clock.now());
    const metadata = options.metadata ?? {};
    const metadataText = JSON.stringify(metadata);
    const recorded = events.map(
      (event, i): RecordedEvent<D> =>
        Object.freeze({
          event,
          aggregateId: streamId,
          version: current + i + 1,
          position: first + i,
          timestamp: new Date(recordedAt),
          eventId: randomUUID(),
          ...(options.correlationId === undefined ? {} : { correlationId: options.correlationId }),
          ...(options.causationId === undefined ? {} : { causationId: options.causationId }),
          metadata: { ...metadata },
        }),
    );
    await connection.query(
      `INSERT INTO keiyaku_events (position, stream_id, version, event_id, event_type, data, metadata, correlation_id, causation_id, recorded_at)
       VALUES ?`,
      [
        recorded.map((r, i) => [
          r.position,
          streamId,
          r.version,
          r.eventId,
          eventTypeOf(this.#serializer, events[i]!),
          this.#serializer.serialize(events[i]!),
          metadataText,
          options.correlationId ?? null,
          options.causationId ?? null,
          recordedAt,
        ]),
      ],
    );
    return recorded;
  }

  async #version(db: MysqlQueryable, streamId: string, locking: boolean): Promise<number> {
    const rows = await selectRows<{ v: number | string | null }>(
      db,
      `SELECT MAX(version) AS v FROM keiyaku_events WHERE stream_id = ?${locking ? ' FOR UPDATE' : ''}`,
      [streamId],
    );
    return Number(rows[0]?.v ?? 0);
  }

  async readStream(streamId: string, options: { readonly fromVersion?: number } = {}): Promise<readonly RecordedEvent<D>[]> {
    try {
      const rows = await selectRows<EventRow>(this.#db, `${SELECT_EVENTS} WHERE stream_id = ? AND version >= ? ORDER BY version`, [
        streamId,
        options.fromVersion ?? 1,
      ]);
      return rows.map((row) => this.#fromRow(row));
    } catch (error) {
      throw storeError(error, `reading stream ${streamId}`);
    }
  }

  async readAll(after: number, options: ReadAllOptions = {}): Promise<readonly RecordedEvent<D>[]> {
    try {
      const rows = await selectRows<EventRow>(this.#db, `${SELECT_EVENTS} WHERE position > ? ORDER BY position LIMIT ?`, [
        after,
        options.limit ?? 1_000,
      ]);
      return rows.map((row) => this.#fromRow(row));
    } catch (error) {
      throw storeError(error, 'reading events');
    }
  }

  async streamVersion(streamId: string): Promise<number> {
    try {
      return await this.#version(this.#db, streamId, false);
    } catch (error) {
      throw storeError(error, `reading the version of stream ${streamId}`);
    }
  }

  async lastPosition(): Promise<number> {
    try {
      const rows = await selectRows<{ position: number | string }>(this.#db, 'SELECT position FROM keiyaku_event_head WHERE id = 1');
      return Number(rows[0]?.position ?? 0);
    } catch (error) {
      throw storeError(error, 'reading the last position');
    }
  }

  /** Catches up from `after`, then follows: polling every `pollIntervalMs`, woken at once by appends through this object. */
  async *subscribe(after: number, signal: AbortSignal): AsyncIterable<RecordedEvent<D>> {
    let position = after;
    while (!signal.aborted) {
      const batch = await this.readAll(position, { limit: 500 });
      for (const event of batch) {
        if (signal.aborted) return;
        yield event;
        position = event.position;
      }
      if (batch.length < 500) await waitForWake(this.#waiters, { signal, timeoutMs: this.#pollMs });
    }
  }

  #fromRow(row: EventRow): RecordedEvent<D> {
    return recordedEventFrom({ ...row, recorded_at: Number(row.recorded_at) }, this.#serializer);
  }
}

/** Checkpoints in `keiyaku_checkpoints`. */
export class MysqlCheckpointStore implements CheckpointStore {
  readonly #db: MysqlQueryable;
  readonly #clock: Clock;

  constructor(db: MysqlQueryable, options: { readonly clock?: Clock } = {}) {
    this.#db = db;
    this.#clock = options.clock ?? systemClock;
  }

  async load(name: string): Promise<number | undefined> {
    try {
      const rows = await selectRows<{ position: number | string }>(this.#db, 'SELECT position FROM keiyaku_checkpoints WHERE name = ?', [
        name,
      ]);
      return rows[0] === undefined ? undefined : Number(rows[0].position);
    } catch (error) {
      throw storeError(error, `loading checkpoint ${name}`);
    }
  }

  async save(name: string, position: number): Promise<void> {
    try {
      await this.#db.query(
        `INSERT INTO keiyaku_checkpoints (name, position, updated_at) VALUES (?, ?, ?)
         ON DUPLICATE KEY UPDATE position = VALUES(position), updated_at = VALUES(updated_at)`,
        [name, position, Math.trunc(this.#clock.now())],
      );
    } catch (error) {
      throw storeError(error, `saving checkpoint ${name}`);
    }
  }
}
