/**
 * The PostgreSQL outbox (node-postgres). Writes go through the caller's own client inside
 * its `BEGIN … COMMIT` (a `pg` `PoolClient`/`Client`, or the client Kysely and Drizzle hand
 * out in a transaction); an `AFTER INSERT` statement trigger NOTIFYs the dispatchers at commit.
 *
 * The trigger NOTIFYs only while a dispatcher is idle (it marks itself in
 * `keiyaku_outbox_listeners` before it sleeps): a NOTIFY serializes committing transactions, so
 * a busy dispatcher, which claims again at once anyway, is not notified.
 *
 * Several processes may run dispatchers against one database. Keys are hashed into 64 lanes;
 * a dispatcher claims whole lanes (`FOR UPDATE SKIP LOCKED` on the lane rows, with a lease that
 * expires if its holder dies), so one key is only ever dispatched by one dispatcher at a time
 * and its rows go out in order. At least once always: a dispatcher that dies after sending and
 * before marking rows published leaves them pending; the next holder of the lane sends them again.
 *
 * ```ts
 * const outbox = new PostgresOutbox(pool);
 * await outbox.migrate();
 * const books = outbox.channel(BookIntegrationEvents);
 * const client = await pool.connect();
 * await client.query('BEGIN');
 * await saveBook(client, book);
 * await books.writeEvents(client, bookMapper, events, { aggregateId: book.id });
 * await client.query('COMMIT');
 * messaging.host(outbox.dispatcher({ transport: messaging.transport }));
 * ```
 */

import type { AnyChannel, AnyContractMessage, EventMapper, HeadersOf, Transport } from '@keiyaku/runtime/adapter';
import {
  type Clock,
  type Logger,
  OUTBOX_SCHEMA_VERSION,
  type OutboxChannelOptions,
  type OutboxCounts,
  OutboxDispatcher,
  type OutboxDispatcherOptions,
  type OutboxDispatchStore,
  OutboxEncoder,
  OutboxError,
  type OutboxEventsOptions,
  type OutboxFailure,
  type OutboxFilter,
  type OutboxRecord,
  type OutboxRow,
  type OutboxWriteOptions,
  parseRowId,
  silentLogger,
  systemClock,
  type Waiter,
  waitForWake,
} from '@keiyaku/runtime/adapter';
import pg from 'pg';

/** Lanes keys are hashed into; a dispatcher claims whole lanes. Part of schema version 1. */
export const OUTBOX_LANES = 64;

/** The LISTEN/NOTIFY channel the insert trigger notifies. */
export const OUTBOX_NOTIFY_CHANNEL = 'keiyaku_outbox';

/**
 * The PostgreSQL outbox tables (schema version 1), exactly what {@link PostgresOutbox.migrate}
 * runs (inside one transaction, under an advisory lock). Idempotent.
 */
export const POSTGRES_OUTBOX_SCHEMA = `
CREATE TABLE IF NOT EXISTS keiyaku_outbox_schema (
  id integer PRIMARY KEY CHECK (id = 1),
  version integer NOT NULL
);
INSERT INTO keiyaku_outbox_schema (id, version) VALUES (1, 1) ON CONFLICT (id) DO NOTHING;
CREATE TABLE IF NOT EXISTS keiyaku_outbox (
  seq bigserial PRIMARY KEY,
  message_id text NOT NULL,
  channel text NOT NULL,
  address text NOT NULL,
  partition_key text,
  lane smallint NOT NULL,
  type text NOT NULL,
  payload bytea NOT NULL,
  headers jsonb NOT NULL,
  created_at bigint NOT NULL,
  state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'published', 'dead')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at bigint NOT NULL DEFAULT 0,
  last_error text,
  finished_at bigint
);
CREATE INDEX IF NOT EXISTS keiyaku_outbox_pending ON keiyaku_outbox (lane, seq) WHERE state = 'pending';
CREATE INDEX IF NOT EXISTS keiyaku_outbox_retry ON keiyaku_outbox (next_attempt_at) WHERE state = 'pending' AND next_attempt_at > 0;
CREATE INDEX IF NOT EXISTS keiyaku_outbox_dead ON keiyaku_outbox (seq) WHERE state = 'dead';
CREATE INDEX IF NOT EXISTS keiyaku_outbox_published ON keiyaku_outbox (finished_at) WHERE state = 'published';
CREATE TABLE IF NOT EXISTS keiyaku_outbox_lanes (
  lane smallint PRIMARY KEY,
  owner text,
  lease_until timestamptz
);
INSERT INTO keiyaku_outbox_lanes (lane) SELECT generate_series(0, 63) ON CONFLICT (lane) DO NOTHING;
CREATE TABLE IF NOT EXISTS keiyaku_outbox_listeners (
  owner text PRIMARY KEY,
  idle_until timestamptz NOT NULL
);
CREATE OR REPLACE FUNCTION keiyaku_outbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM keiyaku_outbox_listeners WHERE idle_until > now()) THEN
    PERFORM pg_notify('keiyaku_outbox', '');
  END IF;
  RETURN NULL;
END
$$;
CREATE OR REPLACE TRIGGER keiyaku_outbox_notify AFTER INSERT ON keiyaku_outbox
  FOR EACH STATEMENT EXECUTE FUNCTION keiyaku_outbox_notify();
`;

/** What a writer needs of the caller's connection: `pg`'s `Client` and `PoolClient` have it. */
export interface PgQueryable {
  query(config: { readonly name?: string; readonly text: string; readonly values?: unknown[] }): Promise<unknown>;
}

interface Row {
  seq: string;
  message_id: string;
  channel: string;
  address: string;
  partition_key: string | null;
  type: string;
  payload: Buffer;
  headers: Record<string, string>;
  created_at: string;
  state: 'pending' | 'published' | 'dead';
  attempts: number;
  next_attempt_at: string;
  last_error: string | null;
  finished_at: string | null;
}

const COLUMNS =
  'seq, message_id, channel, address, partition_key, type, payload, headers, created_at, state, attempts, next_attempt_at, last_error, finished_at';

function fromRow(row: Row): OutboxRow {
  return Object.freeze({
    id: row.seq,
    messageId: row.message_id,
    channel: row.channel,
    address: row.address,
    ...(row.partition_key === null ? {} : { key: row.partition_key }),
    type: row.type,
    payload: new Uint8Array(row.payload.buffer, row.payload.byteOffset, row.payload.byteLength),
    headers: row.headers,
    createdAt: Number(row.created_at),
    state: row.state,
    attempts: row.attempts,
    nextAttemptAt: Number(row.next_attempt_at),
    ...(row.last_error === null ? {} : { lastError: row.last_error }),
    ...(row.finished_at === null ? {} : { finishedAt: Number(row.finished_at) }),
  });
}

/** FNV-1a (32 bit) of the key's UTF-16 code units: stable across processes and releases. */
export function outboxLane(key: string | undefined): number {
  if (key === undefined) return Math.floor(Math.random() * OUTBOX_LANES);
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    hash ^= key.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % OUTBOX_LANES;
}

function notMigrated(cause: unknown): never {
  if ((cause as { code?: unknown }).code === '42P01')
    throw new OutboxError(
      'outbox_not_migrated',
      'the outbox tables do not exist in this database: run outbox.migrate() (or POSTGRES_OUTBOX_SCHEMA in your migrations)',
      { cause },
    );
  throw cause;
}

export interface PostgresOutboxOptions {
  readonly clock?: Clock;
  /** CloudEvents `ce_source` of written messages (default `keiyaku`). */
  readonly source?: string;
  /** How long a dispatcher's claim on a lane holds without renewal (default 30 s). */
  readonly leaseMs?: number;
  /** Lanes one claim takes at most (default 16 of 64), so several dispatchers share the work. */
  readonly lanesPerClaim?: number;
  readonly logger?: Logger;
}

/**
 * The outbox on one PostgreSQL database. `pool` is the service's `pg.Pool` (the dispatcher
 * and operators borrow connections from it; the outbox never ends it) or a connection URL
 * (the outbox opens and ends its own pool). Writers only use the client they are given.
 */
export class PostgresOutbox implements OutboxDispatchStore {
  readonly description: string;
  readonly pool: pg.Pool;
  readonly #ownsPool: boolean;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #source: string | undefined;
  readonly #leaseMs: number;
  readonly #lanesPerClaim: number;
  readonly #waiters = new Set<Waiter>();
  readonly #channels: AnyChannel[] = [];
  #listener: pg.Client | undefined;
  #owner: string | undefined;
  #listening: Promise<void> | undefined;
  #closed = false;

  constructor(pool: pg.Pool | string, options: PostgresOutboxOptions = {}) {
    this.#logger = options.logger ?? silentLogger;
    if (typeof pool === 'string') {
      this.pool = new pg.Pool({ connectionString: pool, max: 4 });
      // A server restart ends idle connections; the pool replaces them on the next query.
      this.pool.on('error', (error) => this.#logger.warn('outbox pool: an idle connection failed', { error: String(error) }));
      this.#ownsPool = true;
    } else {
      this.pool = pool;
      this.#ownsPool = false;
    }
    const o = this.pool.options;
    this.description = `postgres:${o.host ?? (o.connectionString ? new URL(o.connectionString).host : 'localhost')}`;
    this.#clock = options.clock ?? systemClock;
    this.#source = options.source;
    this.#leaseMs = options.leaseMs ?? 30_000;
    this.#lanesPerClaim = options.lanesPerClaim ?? 16;
  }

  /** Creates the outbox tables, lanes and trigger if missing ({@link POSTGRES_OUTBOX_SCHEMA}); idempotent, safe from several processes at once. */
  async migrate(): Promise<void> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query("SELECT pg_advisory_xact_lock(hashtext('keiyaku_outbox_migrate'))");
      await client.query(POSTGRES_OUTBOX_SCHEMA);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
    await this.#checkVersion();
  }

  /** The schema version in the database, or undefined when the outbox tables are not there. */
  async schemaVersion(): Promise<number | undefined> {
    try {
      const { rows } = await this.pool.query<{ version: number }>('SELECT version FROM keiyaku_outbox_schema WHERE id = 1');
      return rows[0]?.version;
    } catch (error) {
      if ((error as { code?: unknown }).code === '42P01') return undefined;
      throw error;
    }
  }

  async #checkVersion(): Promise<void> {
    const version = await this.schemaVersion();
    if (version === undefined)
      throw new OutboxError('outbox_not_migrated', `the outbox tables do not exist in ${this.description}: run outbox.migrate() first`);
    if (version !== OUTBOX_SCHEMA_VERSION)
      throw new OutboxError(
        'outbox_schema_version',
        `${this.description} holds outbox schema version ${version}; this keiyaku reads version ${OUTBOX_SCHEMA_VERSION}`,
      );
  }

  /** A writer of `channel`'s contract messages into this outbox. */
  channel<M extends AnyContractMessage>(channel: AnyChannel<M>, options: OutboxChannelOptions<M> = {}): PostgresOutboxChannel<M> {
    if (!this.#channels.includes(channel as AnyChannel)) this.#channels.push(channel as AnyChannel);
    return new PostgresOutboxChannel(
      new OutboxEncoder(channel, options, { clock: this.#clock, ...(this.#source === undefined ? {} : { source: this.#source }) }),
    );
  }

  /** The dispatcher of this outbox, to host with `messaging.host(...)`. Channels written through {@link channel} are provisioned. */
  dispatcher(
    deps: { transport: Transport; logger?: Logger; random?: () => number },
    options: OutboxDispatcherOptions = {},
  ): OutboxDispatcher {
    return new OutboxDispatcher(
      { store: this, clock: this.#clock, logger: this.#logger, ...deps },
      { ...options, channels: [...this.#channels, ...(options.channels ?? [])] },
    );
  }

  async open(owner: string): Promise<void> {
    this.#closed = false;
    this.#owner = owner;
    await this.#checkVersion();
    await this.#listen().catch((error: unknown) =>
      this.#logger.warn('outbox: LISTEN failed; polling until it works', { error: String(error) }),
    );
  }

  /** A dedicated connection LISTENing for commits; dropped on error and made again by the next wait. */
  #listen(): Promise<void> {
    if (this.#listener !== undefined || this.#closed) return Promise.resolve();
    this.#listening ??= (async () => {
      const client = new pg.Client(this.pool.options);
      const drop = (error?: unknown): void => {
        if (this.#listener === client) this.#listener = undefined;
        if (error !== undefined) this.#logger.warn('outbox: the LISTEN connection failed', { error: String(error) });
        client.end().catch(() => undefined);
        // Wake the dispatcher so it polls at once (rows may have been committed meanwhile).
        for (const wake of [...this.#waiters]) wake();
      };
      client.on('error', drop);
      client.on('notification', () => {
        for (const wake of [...this.#waiters]) wake();
      });
      try {
        await client.connect();
        await client.query(`LISTEN ${OUTBOX_NOTIFY_CHANNEL}`);
      } catch (error) {
        client.removeAllListeners('error');
        client.on('error', () => undefined);
        await client.end().catch(() => undefined);
        throw error;
      }
      if (this.#closed) {
        await client.end().catch(() => undefined);
        return;
      }
      client.on('end', () => drop());
      this.#listener = client;
    })().finally(() => {
      this.#listening = undefined;
    });
    return this.#listening;
  }

  async renew(owner: string): Promise<boolean> {
    await this.pool.query(
      "UPDATE keiyaku_outbox_lanes SET lease_until = now() + $2 * interval '1 millisecond' WHERE owner = $1 AND lease_until >= now()",
      [owner, this.#leaseMs],
    );
    return true;
  }

  async claim(owner: string, limit: number, now: number): Promise<readonly OutboxRow[]> {
    // One statement: take free lanes with due rows (or keep ours), give back the lanes of the
    // previous claim that are not taken again (so other dispatchers get their turn), and read
    // the due rows of the lanes taken, oldest first, skipping keys whose head waits for a retry.
    const { rows } = await this.pool.query<Row>(
      `WITH free AS (
         SELECT l.lane FROM keiyaku_outbox_lanes l
         WHERE (l.lease_until IS NULL OR l.lease_until < now() OR l.owner = $1)
           AND EXISTS (SELECT 1 FROM keiyaku_outbox o WHERE o.lane = l.lane AND o.state = 'pending' AND o.next_attempt_at <= $2)
         ORDER BY random()
         LIMIT $3
         FOR UPDATE SKIP LOCKED),
       claimed AS (
         UPDATE keiyaku_outbox_lanes l SET owner = $1, lease_until = now() + $4 * interval '1 millisecond'
         FROM free WHERE l.lane = free.lane
         RETURNING l.lane),
       released AS (
         UPDATE keiyaku_outbox_lanes SET owner = NULL, lease_until = NULL
         WHERE owner = $1 AND lane NOT IN (SELECT lane FROM free)
         RETURNING lane)
       SELECT ${COLUMNS} FROM keiyaku_outbox o
       WHERE o.state = 'pending' AND o.lane IN (SELECT lane FROM claimed) AND o.next_attempt_at <= $2
         AND (o.partition_key IS NULL OR o.partition_key NOT IN (
           SELECT b.partition_key FROM keiyaku_outbox b
           WHERE b.state = 'pending' AND b.next_attempt_at > 0 AND b.next_attempt_at > $2 AND b.partition_key IS NOT NULL))
       ORDER BY o.seq LIMIT $5`,
      [owner, now, this.#lanesPerClaim, this.#leaseMs, limit],
    );
    return rows.map(fromRow);
  }

  async published(ids: readonly string[], now: number, keep: boolean): Promise<void> {
    if (ids.length === 0) return;
    if (keep)
      await this.pool.query("UPDATE keiyaku_outbox SET state = 'published', finished_at = $2 WHERE seq = ANY($1::bigint[])", [ids, now]);
    else await this.pool.query('DELETE FROM keiyaku_outbox WHERE seq = ANY($1::bigint[])', [ids]);
  }

  async failed(id: string, failure: OutboxFailure): Promise<void> {
    if (failure.next === 'dead')
      await this.pool.query(
        "UPDATE keiyaku_outbox SET state = 'dead', attempts = $2, last_error = $3, finished_at = $4 WHERE seq = $1 AND state = 'pending'",
        [id, failure.attempts, failure.error, failure.now],
      );
    else
      await this.pool.query(
        "UPDATE keiyaku_outbox SET attempts = $2, last_error = $3, next_attempt_at = $4 WHERE seq = $1 AND state = 'pending'",
        [id, failure.attempts, failure.error, failure.next],
      );
  }

  async release(owner: string): Promise<void> {
    await this.pool.query('UPDATE keiyaku_outbox_lanes SET owner = NULL, lease_until = NULL WHERE owner = $1', [owner]);
    await this.pool.query('DELETE FROM keiyaku_outbox_listeners WHERE owner = $1', [owner]);
  }

  async prune(before: number): Promise<number> {
    const result = await this.pool.query("DELETE FROM keiyaku_outbox WHERE state = 'published' AND finished_at < $1", [before]);
    return result.rowCount ?? 0;
  }

  async wait(ms: number, signal: AbortSignal): Promise<void> {
    if (this.#listener === undefined) void this.#listen().catch(() => undefined);
    const owner = this.#owner;
    // Ask for a NOTIFY while asleep. A transaction that inserted just before this mark and commits
    // just after the last claim is not notified: it waits at most `ms` (the polling interval).
    if (owner !== undefined)
      await this.pool.query(
        `INSERT INTO keiyaku_outbox_listeners (owner, idle_until) VALUES ($1, now() + $2 * interval '1 millisecond')
         ON CONFLICT (owner) DO UPDATE SET idle_until = excluded.idle_until`,
        [owner, ms + 1_000],
      );
    await waitForWake(this.#waiters, { timeoutMs: ms, signal });
    if (owner !== undefined && !this.#closed)
      await this.pool.query("UPDATE keiyaku_outbox_listeners SET idle_until = '-infinity' WHERE owner = $1", [owner]);
  }

  async counts(): Promise<OutboxCounts> {
    const { rows } = await this.pool
      .query<{ state: string; n: string; oldest: string | null }>(
        'SELECT state, count(*) AS n, min(created_at) AS oldest FROM keiyaku_outbox GROUP BY state',
      )
      .catch(notMigrated);
    let counts: { pending: number; dead: number; published: number; oldestPendingAt?: number } = { pending: 0, dead: 0, published: 0 };
    for (const row of rows) {
      const n = Number(row.n);
      if (row.state === 'pending')
        counts = { ...counts, pending: n, ...(row.oldest === null ? {} : { oldestPendingAt: Number(row.oldest) }) };
      else if (row.state === 'dead') counts.dead = n;
      else if (row.state === 'published') counts.published = n;
    }
    return counts;
  }

  async list(filter: OutboxFilter = {}): Promise<readonly OutboxRow[]> {
    const { rows } = await this.pool
      .query<Row>(`SELECT ${COLUMNS} FROM keiyaku_outbox WHERE state = $1 AND ($2::text IS NULL OR channel = $2) ORDER BY seq LIMIT $3`, [
        filter.state ?? 'dead',
        filter.channel ?? null,
        filter.limit ?? 100,
      ])
      .catch(notMigrated);
    return rows.map(fromRow);
  }

  async get(id: string): Promise<OutboxRow | undefined> {
    const seq = parseRowId(id).toString();
    const { rows } = await this.pool.query<Row>(`SELECT ${COLUMNS} FROM keiyaku_outbox WHERE seq = $1`, [seq]).catch(notMigrated);
    return rows[0] === undefined ? undefined : fromRow(rows[0]);
  }

  async reset(id: string): Promise<boolean> {
    const seq = parseRowId(id).toString();
    const result = await this.pool
      .query(
        "UPDATE keiyaku_outbox SET state = 'pending', attempts = 0, next_attempt_at = $2, finished_at = NULL WHERE seq = $1 AND state = 'dead'",
        [seq, this.#clock.now()],
      )
      .catch(notMigrated);
    if ((result.rowCount ?? 0) > 0) await this.pool.query(`NOTIFY ${OUTBOX_NOTIFY_CHANNEL}`);
    return (result.rowCount ?? 0) > 0;
  }

  async remove(id: string): Promise<boolean> {
    const seq = parseRowId(id).toString();
    const result = await this.pool.query('DELETE FROM keiyaku_outbox WHERE seq = $1', [seq]).catch(notMigrated);
    return (result.rowCount ?? 0) > 0;
  }

  /** Ends the LISTEN connection, and the pool when the outbox made it from a URL. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#listening?.catch(() => undefined);
    const listener = this.#listener;
    this.#listener = undefined;
    if (listener) {
      listener.removeAllListeners('end');
      await listener.end().catch(() => undefined);
    }
    for (const wake of [...this.#waiters]) wake();
    if (this.#ownsPool && !this.#poolEnded) {
      this.#poolEnded = true;
      await this.pool.end();
    }
  }

  #poolEnded = false;
}

/** Writes one channel's contract messages into the outbox with the caller's client, inside its transaction. */
export class PostgresOutboxChannel<M extends AnyContractMessage> {
  readonly encoder: OutboxEncoder<M>;

  constructor(encoder: OutboxEncoder<M>) {
    this.encoder = encoder;
  }

  /** Writes `message` with `tx` (a client inside `BEGIN … COMMIT`); rejects with the codec's error for an invalid message, before any query. */
  async write<T extends M>(tx: PgQueryable, message: T, options?: OutboxWriteOptions<HeadersOf<T>>): Promise<void> {
    await this.insert(tx, [this.encoder.encode(message, options)]);
  }

  /** Writes each message (or `[message, options]`) in order, in one statement; resolves to how many. */
  async writeMany(tx: PgQueryable, items: Iterable<M | readonly [M, OutboxWriteOptions<HeadersOf<M>>]>): Promise<number> {
    return this.insert(tx, this.encoder.encodeMany(items));
  }

  /** Maps domain events through `mapper` (null keeps one internal) and writes the resulting messages; resolves to how many. */
  async writeEvents<D>(tx: PgQueryable, mapper: EventMapper<D, M>, events: readonly D[], options: OutboxEventsOptions): Promise<number> {
    return this.insert(tx, this.encoder.encodeEvents(mapper, events, options));
  }

  /** Inserts already encoded records. */
  async insert(tx: PgQueryable, records: readonly OutboxRecord[]): Promise<number> {
    if (records.length === 0) return 0;
    const buffer = (r: OutboxRecord): Buffer => Buffer.from(r.payload.buffer, r.payload.byteOffset, r.payload.byteLength);
    if (records.length === 1) {
      const r = records[0]!;
      // A named statement: parsed and planned once per connection.
      await tx
        .query({
          name: 'keiyaku_outbox_insert_v1',
          text: `INSERT INTO keiyaku_outbox (message_id, channel, address, partition_key, lane, type, payload, headers, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
          values: [
            r.messageId,
            r.channel,
            r.address,
            r.key ?? null,
            outboxLane(r.key),
            r.type,
            buffer(r),
            JSON.stringify(r.headers),
            r.createdAt,
          ],
        })
        .catch(notMigrated);
      return 1;
    }
    await tx
      .query({
        name: 'keiyaku_outbox_insert_many_v1',
        text: `INSERT INTO keiyaku_outbox (message_id, channel, address, partition_key, lane, type, payload, headers, created_at)
         SELECT message_id, channel, address, partition_key, lane, type, payload, headers, created_at FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::smallint[], $6::text[], $7::bytea[], $8::jsonb[], $9::bigint[])
         WITH ORDINALITY AS t(message_id, channel, address, partition_key, lane, type, payload, headers, created_at, n) ORDER BY n`,
        values: [
          records.map((r) => r.messageId),
          records.map((r) => r.channel),
          records.map((r) => r.address),
          records.map((r) => r.key ?? null),
          records.map((r) => outboxLane(r.key)),
          records.map((r) => r.type),
          records.map(buffer),
          records.map((r) => JSON.stringify(r.headers)),
          records.map((r) => r.createdAt),
        ],
      })
      .catch(notMigrated);
    return records.length;
  }
}
