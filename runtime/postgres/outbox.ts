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

import type { AnyChannel, AnyContractMessage, EventMapper, HeadersOf } from '@keiyaku/runtime/adapter';
import {
  OUTBOX_COLUMNS as COLUMNS,
  capOutboxBatch as capBytes,
  type Logger,
  type OutboxChannelOptions,
  type OutboxClaimRequest,
  type OutboxCounts,
  type OutboxEncoder,
  type OutboxEventsOptions,
  type OutboxFailure,
  type OutboxFilter,
  type OutboxRecord,
  type OutboxRow,
  OutboxStoreBase,
  type OutboxStoreOptions,
  type OutboxTableRow,
  type OutboxWriteOptions,
  outboxCountsFrom,
  outboxNotMigrated,
  outboxRowFrom,
  parseRowId,
  silentLogger,
  waitForWake,
} from '@keiyaku/runtime/adapter';
import pg from 'pg';
import { applyPostgresMigrations, POSTGRES_OUTBOX_MIGRATION, postgresMigrationSql, postgresOutboxSchemaVersion } from './migrations.js';

/** Lanes keys are hashed into; a dispatcher claims whole lanes. Part of schema version 1. */
export const OUTBOX_LANES = 64;

/** The LISTEN/NOTIFY channel the insert trigger notifies. */
export const OUTBOX_NOTIFY_CHANNEL = 'keiyaku_outbox';

/**
 * The SQL {@link PostgresOutbox.migrate} amounts to on a database without the outbox: the
 * `keiyaku_schema_versions` table, the outbox tables, lanes and trigger (schema version 1) and
 * their version row, without `BEGIN`/`COMMIT` (run it inside your migration's transaction).
 * Idempotent. `postgresMigrationSql(['outbox'])` is the same inside `BEGIN … COMMIT`.
 */
export const POSTGRES_OUTBOX_SCHEMA = postgresMigrationSql([POSTGRES_OUTBOX_MIGRATION.component])
  .replace(/^BEGIN;\n/, '')
  .replace(/COMMIT;\n$/, '');

/** What a writer needs of the caller's connection: `pg`'s `Client` and `PoolClient` have it. */
export interface PgQueryable {
  query(config: { readonly name?: string; readonly text: string; readonly values?: unknown[] }): Promise<unknown>;
}

type Row = OutboxTableRow & { readonly seq: string; readonly headers: Record<string, string> };

const fromRow = (row: Row): OutboxRow => outboxRowFrom(row);

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

/**
 * The columns a claim reads: a claimed row is pending and not finished, so its state and
 * `finished_at` are not read. They come back as the server's text (no per-type parsing in `pg`),
 * as arrays, and are turned into rows by {@link claimedRow}.
 */
const CLAIM_COLUMNS =
  'seq, message_id, channel, address, partition_key, type, payload, headers, created_at, attempts, next_attempt_at, last_error';

/** `held` then {@link CLAIM_COLUMNS}, as text (null for SQL null). */
type ClaimedRow = [
  held: string,
  seq: string | null,
  messageId: string,
  channel: string,
  address: string,
  key: string | null,
  type: string,
  payload: string,
  headers: string,
  createdAt: string,
  attempts: string,
  nextAttemptAt: string,
  lastError: string | null,
];

const rawText = (value: string): string => value;
/** Type parsers of a claim: every column as the server's text. */
const RAW_TEXT = { getTypeParser: () => rawText };

/** `pg`'s own `bytea` parser: for a server whose `bytea_output` is `escape` rather than the default `hex`. */
const parseBytea = pg.types.getTypeParser(17, 'text') as (text: string) => Buffer;

/** A claimed row (pending) from the text of {@link CLAIM_COLUMNS}. */
function claimedRow(row: ClaimedRow): OutboxRow {
  const text = row[7];
  const payload = text.startsWith('\\x') ? Buffer.from(text.substring(2), 'hex') : parseBytea(text);
  return Object.freeze({
    id: row[1]!,
    messageId: row[2],
    channel: row[3],
    address: row[4],
    ...(row[5] === null ? {} : { key: row[5] }),
    type: row[6],
    payload: new Uint8Array(payload.buffer, payload.byteOffset, payload.byteLength),
    headers: JSON.parse(row[8]) as Record<string, string>,
    createdAt: Number(row[9]),
    state: 'pending',
    attempts: Number(row[10]),
    nextAttemptAt: Number(row[11]),
    ...(row[12] === null ? {} : { lastError: row[12] }),
  });
}

/** Row ids (decimal) as a `bigint[]` literal: one parameter string instead of an array `pg` escapes element by element. */
const idArray = (ids: readonly string[]): string => `{${ids.join(',')}}`;

/** The `settled` step of {@link PostgresOutbox.claimNext}: the acknowledged rows ($8) deleted… */
const CLAIM_DELETE = 'settled AS (DELETE FROM keiyaku_outbox WHERE seq = ANY($8::bigint[])),';
/** …or marked published at $9 (retention). */
const CLAIM_KEEP = "settled AS (UPDATE keiyaku_outbox SET state = 'published', finished_at = $9 WHERE seq = ANY($8::bigint[])),";

function notMigrated(cause: unknown): never {
  if ((cause as { code?: unknown }).code === '42P01')
    throw outboxNotMigrated('outbox.migrate() (or POSTGRES_OUTBOX_SCHEMA in your migrations)', cause);
  throw cause;
}

export interface PostgresOutboxOptions extends OutboxStoreOptions {
  /** Lanes one claim takes at most (default 16 of 64), so several dispatchers share the work. */
  readonly lanesPerClaim?: number;
  readonly logger?: Logger;
}

/**
 * The outbox on one PostgreSQL database. `pool` is the service's `pg.Pool` (the dispatcher
 * and operators borrow connections from it; the outbox never ends it) or a connection URL
 * (the outbox opens and ends its own pool). Writers only use the client they are given.
 */
export class PostgresOutbox extends OutboxStoreBase {
  readonly description: string;
  readonly pool: pg.Pool;
  readonly #ownsPool: boolean;
  readonly #logger: Logger;
  readonly #lanesPerClaim: number;
  /** Lanes of each owner's last claim, for {@link renew} to tell when one was lost. */
  readonly #claimedLanes = new Map<string, number>();
  #listener: pg.Client | undefined;
  #owner: string | undefined;
  #listening: Promise<void> | undefined;
  #closed = false;

  constructor(pool: pg.Pool | string, options: PostgresOutboxOptions = {}) {
    const logger = options.logger ?? silentLogger;
    super(options, logger);
    this.#logger = logger;
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
    this.#lanesPerClaim = options.lanesPerClaim ?? 16;
  }

  /**
   * Creates or upgrades the outbox tables, lanes and trigger (the `outbox` component of
   * `keiyaku_schema_versions`; a database an earlier release migrated has its version carried
   * over); idempotent, safe from several processes at once (advisory lock).
   */
  async migrate(): Promise<void> {
    await applyPostgresMigrations(this.pool, [POSTGRES_OUTBOX_MIGRATION]);
    await this.#checkVersion();
  }

  /** The schema version in the database, or undefined when the outbox tables are not there. */
  async schemaVersion(): Promise<number | undefined> {
    return postgresOutboxSchemaVersion(this.pool);
  }

  async #checkVersion(): Promise<void> {
    this.assertSchemaVersion(await this.schemaVersion());
  }

  /** A writer of `channel`'s contract messages into this outbox. */
  channel<M extends AnyContractMessage>(channel: AnyChannel<M>, options: OutboxChannelOptions<M> = {}): PostgresOutboxChannel<M> {
    return new PostgresOutboxChannel(this.encoderFor(channel, options));
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
        this.wakeAll();
      };
      client.on('error', drop);
      client.on('notification', () => {
        this.wakeAll();
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

  /**
   * Extends the lease of the owner's lanes. False when a lane of its last claim ran out of its lease
   * (another dispatcher may hold it now): said once, after which the owner holds nothing until its
   * next claim. A transactional dispatcher checks it before it commits a batch.
   */
  async renew(owner: string): Promise<boolean> {
    const { rows } = await this.pool.query<{ renewed: string }>(
      `WITH renewed AS (
         UPDATE keiyaku_outbox_lanes SET lease_until = now() + $2 * interval '1 millisecond'
         WHERE owner = $1 AND lease_until >= now() RETURNING lane)
       SELECT count(*) AS renewed FROM renewed`,
      [owner, this.leaseMs],
    );
    const held = this.#claimedLanes.get(owner) ?? 0;
    if (Number(rows[0]?.renewed ?? 0) >= held) return true;
    this.#claimedLanes.delete(owner);
    return false;
  }

  /** A claim of the dispatcher that does one batch at a time: {@link claimNext} with nothing in flight or acknowledged, and no byte cap. */
  claim(owner: string, limit: number, now: number): Promise<readonly OutboxRow[]> {
    return this.claimNext(owner, { limit, maxBytes: Number.POSITIVE_INFINITY, now, inFlight: [], published: [], keep: false });
  }

  /**
   * One statement: settle the acknowledged rows (delete them, or mark them published), take free
   * lanes with due rows besides those in flight (or keep ours), give back the lanes neither taken
   * again nor in flight, and read the due rows of the lanes taken, oldest first, without the rows
   * in flight or settled, skipping keys whose head waits for a retry; then the first of them within
   * `maxBytes` (payload and headers; the first row whatever its size). The statement returns at least
   * one row (`held`: the lanes now held), whose row columns are null when no row is due.
   */
  async claimNext(owner: string, request: OutboxClaimRequest): Promise<readonly OutboxRow[]> {
    const settle = request.published.length === 0 ? '' : request.keep ? CLAIM_KEEP : CLAIM_DELETE;
    const excluded = request.inFlight.length === 0 ? request.published : [...request.inFlight, ...request.published];
    const { rows } = await this.pool.query<ClaimedRow>({
      text: `WITH ${settle}
       flying AS (SELECT DISTINCT lane FROM keiyaku_outbox WHERE seq = ANY($7::bigint[])),
       free AS (
         SELECT l.lane FROM keiyaku_outbox_lanes l
         WHERE (l.lease_until IS NULL OR l.lease_until < now() OR l.owner = $1)
           AND EXISTS (SELECT 1 FROM keiyaku_outbox o WHERE o.lane = l.lane AND o.state = 'pending' AND o.next_attempt_at <= $2
             AND o.seq <> ALL($6::bigint[]))
         ORDER BY random()
         LIMIT $3
         FOR UPDATE SKIP LOCKED),
       claimed AS (
         UPDATE keiyaku_outbox_lanes l SET owner = $1, lease_until = now() + $4 * interval '1 millisecond'
         FROM free WHERE l.lane = free.lane
         RETURNING l.lane),
       released AS (
         UPDATE keiyaku_outbox_lanes SET owner = NULL, lease_until = NULL
         WHERE owner = $1 AND lane NOT IN (SELECT lane FROM free) AND lane NOT IN (SELECT lane FROM flying)
         RETURNING lane),
       due AS (
         SELECT ${CLAIM_COLUMNS} FROM keiyaku_outbox o
         WHERE o.state = 'pending' AND o.lane = ANY(ARRAY(SELECT lane FROM claimed)) AND o.next_attempt_at <= $2
           AND o.seq <> ALL($6::bigint[])
           AND (o.partition_key IS NULL OR o.partition_key NOT IN (
             SELECT b.partition_key FROM keiyaku_outbox b
             WHERE b.state = 'pending' AND b.next_attempt_at > 0 AND b.next_attempt_at > $2 AND b.partition_key IS NOT NULL))
         ORDER BY o.seq LIMIT $5)
       SELECT h.held, d.* FROM (SELECT (SELECT count(*) FROM claimed)
           + (SELECT count(*) FROM flying WHERE lane NOT IN (SELECT lane FROM claimed)) AS held) h
         LEFT JOIN due d ON true
       ORDER BY d.seq`,
      values: [
        owner,
        request.now,
        this.#lanesPerClaim,
        this.leaseMs,
        request.limit,
        idArray(excluded),
        idArray(request.inFlight),
        ...(settle === '' ? [] : request.keep ? [idArray(request.published), request.now] : [idArray(request.published)]),
      ],
      rowMode: 'array',
      types: RAW_TEXT,
    });
    const claimed: OutboxRow[] = [];
    for (const row of rows) if (row[1] !== null) claimed.push(claimedRow(row));
    // A claim that returns no row, with none in flight, counts no lanes: nothing of its can be lost.
    this.#claimedLanes.set(owner, claimed.length === 0 && request.inFlight.length === 0 ? 0 : Number(rows[0]?.[0] ?? 0));
    // The byte cap is applied here: the rows beyond it stay pending for the next claim.
    return capBytes(claimed, request.maxBytes);
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
    await waitForWake(this.waiters, { timeoutMs: ms, signal });
    if (owner !== undefined && !this.#closed)
      await this.pool.query("UPDATE keiyaku_outbox_listeners SET idle_until = '-infinity' WHERE owner = $1", [owner]);
  }

  async counts(): Promise<OutboxCounts> {
    const { rows } = await this.pool
      .query<{ state: string; n: string; oldest: string | null }>(
        'SELECT state, count(*) AS n, min(created_at) AS oldest FROM keiyaku_outbox GROUP BY state',
      )
      .catch(notMigrated);
    return outboxCountsFrom(rows);
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
        [seq, this.clock.now()],
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
    this.wakeAll();
    if (this.#ownsPool && !this.#poolEnded) {
      this.#poolEnded = true;
      await this.pool.end();
    }
  }

  #poolEnded = false;
}

/** The payload as a `Buffer` over the same bytes (what `pg` sends as a binary parameter). */
const buffer = (r: OutboxRecord): Buffer => Buffer.from(r.payload.buffer, r.payload.byteOffset, r.payload.byteLength);

/** The single-row INSERT: a named statement, parsed and planned once per connection. */
const INSERT_ONE = `INSERT INTO keiyaku_outbox (message_id, channel, address, partition_key, lane, type, payload, headers, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`;

/** Inserts one encoded record with `tx`. */
async function insertOne(tx: PgQueryable, r: OutboxRecord): Promise<void> {
  try {
    await tx.query({
      name: 'keiyaku_outbox_insert_v1',
      text: INSERT_ONE,
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
    });
  } catch (error) {
    notMigrated(error);
  }
}

/** Writes one channel's contract messages into the outbox with the caller's client, inside its transaction. */
export class PostgresOutboxChannel<M extends AnyContractMessage> {
  readonly encoder: OutboxEncoder<M>;

  constructor(encoder: OutboxEncoder<M>) {
    this.encoder = encoder;
  }

  /** Writes `message` with `tx` (a client inside `BEGIN … COMMIT`); rejects with the codec's error for an invalid message, before any query. */
  async write<T extends M>(tx: PgQueryable, message: T, options?: OutboxWriteOptions<HeadersOf<T>>): Promise<void> {
    // A channel framed for a Schema Registry reads its schema id first (once per address and type).
    const prepared = this.encoder.prepareOne(message, options as OutboxWriteOptions<HeadersOf<M>> | undefined);
    if (prepared !== undefined) await prepared;
    await insertOne(tx, this.encoder.encode(message, options));
  }

  /** Writes each message (or `[message, options]`) in order, in one statement; resolves to how many. */
  async writeMany(tx: PgQueryable, items: Iterable<M | readonly [M, OutboxWriteOptions<HeadersOf<M>>]>): Promise<number> {
    const list = [...items];
    const prepared = this.encoder.prepareItems(list);
    if (prepared !== undefined) await prepared;
    return this.insert(tx, this.encoder.encodeMany(list));
  }

  /** Maps domain events through `mapper` (null keeps one internal) and writes the resulting messages; resolves to how many. */
  async writeEvents<D>(tx: PgQueryable, mapper: EventMapper<D, M>, events: readonly D[], options: OutboxEventsOptions): Promise<number> {
    const prepared = this.encoder.prepare(options.address);
    if (prepared !== undefined) await prepared;
    return this.insert(tx, this.encoder.encodeEvents(mapper, events, options));
  }

  /** Readies a channel framed for a Schema Registry (its schema ids on `address`); `write` does it itself. */
  async prepare(address?: string): Promise<void> {
    await this.encoder.prepare(address);
  }

  /** Inserts already encoded records. */
  async insert(tx: PgQueryable, records: readonly OutboxRecord[]): Promise<number> {
    if (records.length === 0) return 0;
    if (records.length === 1) {
      await insertOne(tx, records[0]!);
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
