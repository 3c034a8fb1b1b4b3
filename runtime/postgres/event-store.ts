/**
 * The PostgreSQL event store and checkpoint store (`pg`). Appends take a row lock on
 * `keiyaku_event_head`, so global positions are gapless and become visible in order: a reader
 * that has seen position n never later finds an event below n. Subscribers wake on
 * `LISTEN keiyaku_events` (notified at commit) and poll as a fallback; a lost connection makes
 * the subscription throw a retriable {@link StoreError} (a hosted producer backs off and resumes).
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
import type pg from 'pg';
import { inTransaction, type PostgresQueryable, storeError } from './client.js';

/** The channel appends notify (payload: the last position appended). */
export const EVENTS_CHANNEL = 'keiyaku_events';

type EventRow = EventTableRow & {
  readonly position: string;
  readonly metadata: Record<string, string>;
  readonly recorded_at: Date;
};

export interface PostgresEventStoreOptions<D> {
  readonly serializer?: EventSerializer<D>;
  readonly clock?: Clock;
  /** How often a subscription polls when no notification arrives (default 1000 ms). */
  readonly pollIntervalMs?: number;
  /** Use LISTEN/NOTIFY to wake subscriptions (default true; needs a pool or a client it may hold). */
  readonly listen?: boolean;
}

export interface PostgresAppendOptions extends AppendToStreamOptions {
  /**
   * Your client inside your own `BEGIN … COMMIT`: the append joins your transaction (and holds
   * the head row lock until you commit). Without it the store runs its own transaction.
   */
  readonly client?: pg.ClientBase;
}

export class PostgresEventStore<D> implements EventStore<D> {
  readonly #db: PostgresQueryable;
  readonly #serializer: EventSerializer<D>;
  readonly #clock: Clock;
  readonly #pollMs: number;
  readonly #listen: boolean;

  /** `db`: a `pg` Pool (recommended: a subscription holds one of its clients for LISTEN) or a client. */
  constructor(db: PostgresQueryable, options: PostgresEventStoreOptions<D> = {}) {
    this.#db = db;
    this.#serializer = options.serializer ?? (jsonSerializer as EventSerializer<D>);
    this.#clock = options.clock ?? systemClock;
    this.#pollMs = options.pollIntervalMs ?? 1_000;
    this.#listen = options.listen ?? typeof (db as pg.Pool).totalCount === 'number';
  }

  /** Appends atomically; throws {@link ConcurrencyError} when `expectedVersion` does not match. */
  async append(streamId: string, events: readonly D[], options: PostgresAppendOptions = {}): Promise<readonly RecordedEvent<D>[]> {
    if (events.length === 0) return [];
    const run = (client: pg.ClientBase) => this.#append(client, streamId, events, options);
    try {
      return options.client ? await run(options.client) : await inTransaction(this.#db, run);
    } catch (error) {
      throw storeError(error, `appending to stream ${streamId}`);
    }
  }

  async #append(
    client: pg.ClientBase,
    streamId: string,
    events: readonly D[],
    options: AppendToStreamOptions,
  ): Promise<readonly RecordedEvent<D>[]> {
    const head = await client.query<{ position: string }>(
      'UPDATE keiyaku_event_head SET position = position + $1 WHERE id RETURNING position',
      [events.length],
    );
    if (head.rowCount === 0) throw new Error('relation "keiyaku_event_head" has no row; run migratePostgres');
    const last = Number(head.rows[0]!.position);
    const { rows } = await client.query<{ v: number }>(
      'SELECT coalesce(max(version), 0)::int AS v FROM keiyaku_events WHERE stream_id = $1',
      [streamId],
    );
    const current = rows[0]!.v;
    checkExpectedVersion(streamId, options.expectedVersion, current);
    const first = last - events.length + 1;
    const recordedAt = new Date(this.#clock.now());
    const metadata = options.metadata ?? {};
    const recorded = events.map(
      (event, i): RecordedEvent<D> =>
        Object.freeze({
          event,
          aggregateId: streamId,
          version: current + i + 1,
          position: first + i,
          timestamp: new Date(recordedAt.getTime()),
          eventId: randomUUID(),
          ...(options.correlationId === undefined ? {} : { correlationId: options.correlationId }),
          ...(options.causationId === undefined ? {} : { causationId: options.causationId }),
          metadata: { ...metadata },
        }),
    );
    await client.query(
      `INSERT INTO keiyaku_events (position, stream_id, version, event_id, event_type, data, metadata, correlation_id, causation_id, recorded_at)
       SELECT * FROM unnest($1::bigint[], $2::text[], $3::int[], $4::text[], $5::text[], $6::text[], $7::jsonb[], $8::text[], $9::text[], $10::timestamptz[])`,
      [
        recorded.map((r) => r.position),
        recorded.map(() => streamId),
        recorded.map((r) => r.version),
        recorded.map((r) => r.eventId),
        events.map((e) => eventTypeOf(this.#serializer, e)),
        events.map((e) => this.#serializer.serialize(e)),
        recorded.map(() => JSON.stringify(metadata)),
        recorded.map(() => options.correlationId ?? null),
        recorded.map(() => options.causationId ?? null),
        recorded.map(() => recordedAt),
      ],
    );
    await client.query('SELECT pg_notify($1, $2)', [EVENTS_CHANNEL, String(last)]);
    return recorded;
  }

  async readStream(streamId: string, options: { readonly fromVersion?: number } = {}): Promise<readonly RecordedEvent<D>[]> {
    try {
      const { rows } = await this.#db.query<EventRow>(
        'SELECT * FROM keiyaku_events WHERE stream_id = $1 AND version >= $2 ORDER BY version',
        [streamId, options.fromVersion ?? 1],
      );
      return rows.map((row) => this.#fromRow(row));
    } catch (error) {
      throw storeError(error, `reading stream ${streamId}`);
    }
  }

  async readAll(after: number, options: ReadAllOptions = {}): Promise<readonly RecordedEvent<D>[]> {
    try {
      const { rows } = await this.#db.query<EventRow>('SELECT * FROM keiyaku_events WHERE position > $1 ORDER BY position LIMIT $2', [
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
      const { rows } = await this.#db.query<{ v: number }>(
        'SELECT coalesce(max(version), 0)::int AS v FROM keiyaku_events WHERE stream_id = $1',
        [streamId],
      );
      return rows[0]!.v;
    } catch (error) {
      throw storeError(error, `reading the version of stream ${streamId}`);
    }
  }

  async lastPosition(): Promise<number> {
    try {
      const { rows } = await this.#db.query<{ position: string }>('SELECT position FROM keiyaku_event_head WHERE id');
      return Number(rows[0]?.position ?? 0);
    } catch (error) {
      throw storeError(error, 'reading the last position');
    }
  }

  /** Catches up from `after`, then follows: woken by NOTIFY, polling every `pollIntervalMs` as a fallback. */
  async *subscribe(after: number, signal: AbortSignal): AsyncIterable<RecordedEvent<D>> {
    const waiters = new Set<Waiter>();
    const wake = (): void => {
      for (const w of [...waiters]) w();
    };
    let listener: pg.PoolClient | undefined;
    let lost: unknown;
    const onError = (error: unknown): void => {
      lost = error;
      wake();
    };
    try {
      if (this.#listen && typeof (this.#db as pg.Pool).totalCount === 'number') {
        try {
          listener = await (this.#db as pg.Pool).connect();
        } catch (error) {
          throw storeError(error, 'connecting for LISTEN');
        }
        listener.on('notification', wake);
        listener.on('error', onError);
        try {
          await listener.query(`LISTEN ${EVENTS_CHANNEL}`);
        } catch (error) {
          throw storeError(error, 'LISTEN');
        }
      }
      let position = after;
      while (!signal.aborted) {
        if (lost !== undefined) throw storeError(lost, 'listening for new events');
        const batch = await this.readAll(position, { limit: 500 });
        for (const event of batch) {
          if (signal.aborted) return;
          yield event;
          position = event.position;
        }
        if (batch.length < 500) await waitForWake(waiters, { signal, timeoutMs: this.#pollMs });
      }
    } finally {
      if (listener) {
        listener.off('notification', wake);
        const broken = lost instanceof Error ? lost : undefined;
        if (broken === undefined) await listener.query(`UNLISTEN ${EVENTS_CHANNEL}`).catch(() => {});
        // Destroyed rather than pooled; its error listener stays, so a late error is not unhandled.
        listener.release(broken ?? true);
      }
    }
  }

  #fromRow(row: EventRow): RecordedEvent<D> {
    return recordedEventFrom(row, this.#serializer);
  }
}

/** Checkpoints in `keiyaku_checkpoints`. */
export class PostgresCheckpointStore implements CheckpointStore {
  readonly #db: PostgresQueryable;
  readonly #clock: Clock;

  constructor(db: PostgresQueryable, options: { readonly clock?: Clock } = {}) {
    this.#db = db;
    this.#clock = options.clock ?? systemClock;
  }

  async load(name: string): Promise<number | undefined> {
    try {
      const { rows } = await this.#db.query<{ position: string }>('SELECT position FROM keiyaku_checkpoints WHERE name = $1', [name]);
      return rows[0] === undefined ? undefined : Number(rows[0].position);
    } catch (error) {
      throw storeError(error, `loading checkpoint ${name}`);
    }
  }

  async save(name: string, position: number): Promise<void> {
    try {
      await this.#db.query(
        `INSERT INTO keiyaku_checkpoints (name, position, updated_at) VALUES ($1, $2, $3)
         ON CONFLICT (name) DO UPDATE SET position = excluded.position, updated_at = excluded.updated_at`,
        [name, position, new Date(this.#clock.now())],
      );
    } catch (error) {
      throw storeError(error, `saving checkpoint ${name}`);
    }
  }
}
