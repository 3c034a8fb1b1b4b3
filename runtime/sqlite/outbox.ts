/**
 * The SQLite outbox (better-sqlite3). Writes go through the caller's own `Database` inside
 * `db.transaction(...)` (synchronous, as better-sqlite3 transactions are); one dispatcher
 * per database file, enforced by a lock row with a lease (a holder on this host whose process
 * is gone is taken over at once).
 *
 * ```ts
 * const outbox = new SqliteOutbox(db);
 * outbox.migrate();
 * const books = outbox.channel(BookIntegrationEvents);
 * db.transaction(() => {
 *   saveBook(db, book);
 *   books.writeEvents(db, bookMapper, events, { aggregateId: book.id });
 * })();
 * messaging.host(outbox.dispatcher({ transport: messaging.transport }));
 * ```
 */
import { hostname } from 'node:os';
import type { AnyChannel, AnyContractMessage, EventMapper, HeadersOf } from '@keiyaku/runtime/adapter';
import {
  type OutboxChannelOptions,
  type OutboxClaimRequest,
  type OutboxCounts,
  type OutboxEncoder,
  OutboxError,
  type OutboxEventsOptions,
  type OutboxFailure,
  type OutboxFilter,
  OutboxLockedError,
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
  waitForWake,
} from '@keiyaku/runtime/adapter';
import Database from 'better-sqlite3';
import { assertSqliteDriverRuns } from './driver.js';
import { migrateSqlite, SQLITE_OUTBOX_MIGRATION, sqliteMigrationSql, sqliteOutboxSchemaVersion } from './migrations.js';

/**
 * The SQL {@link SqliteOutbox.migrate} amounts to on a database without the outbox: the
 * `keiyaku_schema_versions` table, the outbox tables (schema version 1) and their version row.
 * Teams with their own migrations can run this SQL instead; it is idempotent. The same as
 * `sqliteMigrationSql(['outbox'])`.
 */
export const SQLITE_OUTBOX_SCHEMA = sqliteMigrationSql([SQLITE_OUTBOX_MIGRATION.component]);

type Row = OutboxTableRow & { readonly seq: number; readonly headers: string };

const fromRow = (row: Row): OutboxRow => outboxRowFrom(row);

const INSERT_SQL = `INSERT INTO keiyaku_outbox (message_id, channel, address, partition_key, type, payload, headers, created_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?)`;

/** Insert statements per user connection, prepared once. */
const inserts = new WeakMap<Database.Database, Database.Statement>();

function insertStatement(db: Database.Database): Database.Statement {
  let statement = inserts.get(db);
  if (statement === undefined) {
    try {
      statement = db.prepare(INSERT_SQL);
    } catch (cause) {
      if (/no such table/.test(String(cause)))
        throw outboxNotMigrated('outbox.migrate() (or SQLITE_OUTBOX_SCHEMA in your migrations)', cause);
      throw cause;
    }
    inserts.set(db, statement);
  }
  return statement;
}

/** True when `owner` (host:pid:…) names a process on this host that no longer exists. */
function holderIsGone(owner: string): boolean {
  const [host, pidText] = owner.split(':');
  const pid = Number(pidText);
  if (host !== hostname() || !Number.isInteger(pid) || pid <= 0 || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

export type SqliteOutboxOptions = OutboxStoreOptions;

/**
 * The outbox on one SQLite database. `database` is the service's own `Database` (shared
 * with its writes) or a file path the outbox opens for its dispatcher and operators.
 */
export class SqliteOutbox extends OutboxStoreBase {
  readonly description: string;
  readonly db: Database.Database;
  readonly #ownsDb: boolean;
  #statements: ReturnType<SqliteOutbox['prepare']> | undefined;

  constructor(database: Database.Database | string, options: SqliteOutboxOptions = {}) {
    super(options);
    if (typeof database === 'string') {
      assertSqliteDriverRuns();
      this.db = new Database(database);
      this.db.pragma('journal_mode = WAL');
      this.db.pragma('busy_timeout = 10000');
      this.#ownsDb = true;
      this.description = `sqlite:${database}`;
    } else {
      this.db = database;
      this.#ownsDb = false;
      this.description = `sqlite:${database.name}`;
    }
  }

  /**
   * Creates or upgrades the outbox tables (the `outbox` component of `keiyaku_schema_versions`;
   * a database an earlier release migrated has its version carried over); idempotent. Throws when
   * the database holds a newer schema.
   */
  migrate(): void {
    migrateSqlite(this.db, { components: [SQLITE_OUTBOX_MIGRATION.component] });
    this.#checkVersion();
  }

  /** The schema version in the database, or undefined when the outbox tables are not there. */
  schemaVersion(): number | undefined {
    try {
      return sqliteOutboxSchemaVersion(this.db);
    } catch {
      return undefined;
    }
  }

  #checkVersion(): void {
    this.assertSchemaVersion(this.schemaVersion());
  }

  /** A writer of `channel`'s contract messages into this outbox. */
  channel<M extends AnyContractMessage>(channel: AnyChannel<M>, options: OutboxChannelOptions<M> = {}): SqliteOutboxChannel<M> {
    return new SqliteOutboxChannel(this.encoderFor(channel, options), () => this.#wake());
  }

  #wake(): void {
    if (this.waiters.size === 0) return;
    // A better-sqlite3 transaction is synchronous: by the next macrotask it has committed or rolled back.
    setImmediate(() => this.wakeAll());
  }

  private prepare() {
    this.#checkVersion();
    const db = this.db;
    return {
      claim: db.prepare<[{ now: number; limit: number }], Row>(
        `SELECT * FROM keiyaku_outbox o
         WHERE o.state = 'pending' AND o.next_attempt_at <= @now
           AND (o.partition_key IS NULL OR o.partition_key NOT IN (
             SELECT b.partition_key FROM keiyaku_outbox b
             WHERE b.state = 'pending' AND b.next_attempt_at > 0 AND b.next_attempt_at > @now AND b.partition_key IS NOT NULL))
         ORDER BY o.seq LIMIT @limit`,
      ),
      // The claim of a pipelined dispatcher: without the rows in flight (a JSON array of seqs), within
      // @maxBytes of payload and headers (the first row whatever its size).
      claimNext: db.prepare<[{ now: number; limit: number; inFlight: string; maxBytes: number }], Row>(
        `SELECT * FROM (
           SELECT d.*, sum(length(d.payload) + length(d.headers)) OVER (ORDER BY d.seq) AS upto, row_number() OVER (ORDER BY d.seq) AS n
           FROM (SELECT * FROM keiyaku_outbox o
             WHERE o.state = 'pending' AND o.next_attempt_at <= @now
               AND o.seq NOT IN (SELECT value FROM json_each(@inFlight))
               AND (o.partition_key IS NULL OR o.partition_key NOT IN (
                 SELECT b.partition_key FROM keiyaku_outbox b
                 WHERE b.state = 'pending' AND b.next_attempt_at > 0 AND b.next_attempt_at > @now AND b.partition_key IS NOT NULL))
             ORDER BY o.seq LIMIT @limit) d)
         WHERE n = 1 OR upto <= @maxBytes ORDER BY seq`,
      ),
      removeMany: db.prepare<[string]>('DELETE FROM keiyaku_outbox WHERE seq IN (SELECT value FROM json_each(?))'),
      markManyPublished: db.prepare<[number, string]>(
        "UPDATE keiyaku_outbox SET state = 'published', finished_at = ? WHERE seq IN (SELECT value FROM json_each(?))",
      ),
      remove: db.prepare<[number]>('DELETE FROM keiyaku_outbox WHERE seq = ?'),
      markPublished: db.prepare<[number, number]>("UPDATE keiyaku_outbox SET state = 'published', finished_at = ? WHERE seq = ?"),
      retry: db.prepare<[number, string, number, number]>(
        "UPDATE keiyaku_outbox SET attempts = ?, last_error = ?, next_attempt_at = ? WHERE seq = ? AND state = 'pending'",
      ),
      dead: db.prepare<[number, string, number, number]>(
        "UPDATE keiyaku_outbox SET state = 'dead', attempts = ?, last_error = ?, finished_at = ? WHERE seq = ? AND state = 'pending'",
      ),
      lock: db.prepare<[], { owner: string; lease_until: number }>('SELECT owner, lease_until FROM keiyaku_outbox_lock WHERE id = 1'),
      takeLock: db.prepare<[string, number]>(
        'INSERT INTO keiyaku_outbox_lock (id, owner, lease_until) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET owner = excluded.owner, lease_until = excluded.lease_until',
      ),
      renew: db.prepare<[number, string]>('UPDATE keiyaku_outbox_lock SET lease_until = ? WHERE id = 1 AND owner = ?'),
      release: db.prepare<[string]>('DELETE FROM keiyaku_outbox_lock WHERE id = 1 AND owner = ?'),
      counts: db.prepare<[], { state: string; n: number; oldest: number | null }>(
        'SELECT state, count(*) AS n, min(created_at) AS oldest FROM keiyaku_outbox GROUP BY state',
      ),
      list: db.prepare<[{ state: string; channel: string | null; limit: number }], Row>(
        'SELECT * FROM keiyaku_outbox WHERE state = @state AND (@channel IS NULL OR channel = @channel) ORDER BY seq LIMIT @limit',
      ),
      get: db.prepare<[number], Row>('SELECT * FROM keiyaku_outbox WHERE seq = ?'),
      reset: db.prepare<[number, number]>(
        "UPDATE keiyaku_outbox SET state = 'pending', attempts = 0, next_attempt_at = ?, finished_at = NULL WHERE seq = ? AND state = 'dead'",
      ),
      prune: db.prepare<[number]>("DELETE FROM keiyaku_outbox WHERE state = 'published' AND finished_at < ?"),
    };
  }

  get #sql() {
    this.#statements ??= this.prepare();
    return this.#statements;
  }

  async open(owner: string): Promise<void> {
    const sql = this.#sql;
    this.db
      .transaction(() => {
        const now = this.clock.now();
        const current = sql.lock.get();
        if (current && current.owner !== owner && current.lease_until > now && !holderIsGone(current.owner))
          throw new OutboxLockedError(this.description, current.owner, new Date(current.lease_until));
        sql.takeLock.run(owner, now + this.leaseMs);
      })
      .immediate();
  }

  async renew(owner: string): Promise<boolean> {
    return this.#sql.renew.run(this.clock.now() + this.leaseMs, owner).changes > 0;
  }

  async release(owner: string): Promise<void> {
    if (this.db.open) this.#sql.release.run(owner);
  }

  async claim(_owner: string, limit: number, now: number): Promise<readonly OutboxRow[]> {
    return this.#sql.claim.all({ now, limit }).map(fromRow);
  }

  /** Settles the acknowledged rows and claims the next ones in one transaction (one dispatcher per file: no lanes). */
  async claimNext(_owner: string, request: OutboxClaimRequest): Promise<readonly OutboxRow[]> {
    const sql = this.#sql;
    const published = JSON.stringify(request.published.map(Number));
    const inFlight = JSON.stringify(request.inFlight.map(Number));
    return this.db.transaction(() => {
      if (request.published.length > 0) {
        if (request.keep) sql.markManyPublished.run(request.now, published);
        else sql.removeMany.run(published);
      }
      return sql.claimNext.all({ now: request.now, limit: request.limit, inFlight, maxBytes: request.maxBytes }).map(fromRow);
    })();
  }

  async published(ids: readonly string[], now: number, keep: boolean): Promise<void> {
    const sql = this.#sql;
    this.db.transaction(() => {
      for (const id of ids) {
        if (keep) sql.markPublished.run(now, Number(id));
        else sql.remove.run(Number(id));
      }
    })();
  }

  async failed(id: string, failure: OutboxFailure): Promise<void> {
    if (failure.next === 'dead') this.#sql.dead.run(failure.attempts, failure.error, failure.now, Number(id));
    else this.#sql.retry.run(failure.attempts, failure.error, failure.next, Number(id));
  }

  async prune(before: number): Promise<number> {
    return this.#sql.prune.run(before).changes;
  }

  async wait(ms: number, signal: AbortSignal): Promise<void> {
    await waitForWake(this.waiters, { timeoutMs: ms, signal });
  }

  async counts(): Promise<OutboxCounts> {
    return outboxCountsFrom(this.#sql.counts.all());
  }

  async list(filter: OutboxFilter = {}): Promise<readonly OutboxRow[]> {
    return this.#sql.list.all({ state: filter.state ?? 'dead', channel: filter.channel ?? null, limit: filter.limit ?? 100 }).map(fromRow);
  }

  async get(id: string): Promise<OutboxRow | undefined> {
    const row = this.#sql.get.get(Number(parseRowId(id)));
    return row === undefined ? undefined : fromRow(row);
  }

  async reset(id: string): Promise<boolean> {
    const changed = this.#sql.reset.run(this.clock.now(), Number(parseRowId(id))).changes > 0;
    if (changed) this.#wake();
    return changed;
  }

  async remove(id: string): Promise<boolean> {
    return this.#sql.remove.run(Number(parseRowId(id))).changes > 0;
  }

  /** Closes the database when the outbox opened it from a path; a `Database` given by the caller stays open. */
  async close(): Promise<void> {
    this.wakeAll();
    if (this.#ownsDb && this.db.open) this.db.close();
  }
}

/** Writes one channel's contract messages into the outbox with the caller's transaction. */
export class SqliteOutboxChannel<M extends AnyContractMessage> {
  readonly encoder: OutboxEncoder<M>;
  readonly #wake: () => void;

  constructor(encoder: OutboxEncoder<M>, wake: () => void) {
    this.encoder = encoder;
    this.#wake = wake;
  }

  /**
   * Readies a channel framed for a Schema Registry: reads the schema ids of its message types on
   * `address` (default the channel's) before a synchronous transaction writes them. Until then a
   * write of such a channel throws an OutboxError that says to await this.
   */
  async prepare(address?: string): Promise<void> {
    await this.encoder.prepare(address);
  }

  /** Writes `message` in the open transaction of `tx` (inside `db.transaction(...)`); throws the codec's error for an invalid message. */
  write<T extends M>(tx: Database.Database, message: T, options?: OutboxWriteOptions<HeadersOf<T>>): void {
    this.insert(tx, [this.encoder.encode(message, options)]);
  }

  /** Writes each message (or `[message, options]`) in order; returns how many. */
  writeMany(tx: Database.Database, items: Iterable<M | readonly [M, OutboxWriteOptions<HeadersOf<M>>]>): number {
    return this.insert(tx, this.encoder.encodeMany(items));
  }

  /** Maps domain events through `mapper` (null keeps one internal) and writes the resulting messages; returns how many. */
  writeEvents<D>(tx: Database.Database, mapper: EventMapper<D, M>, events: readonly D[], options: OutboxEventsOptions): number {
    return this.insert(tx, this.encoder.encodeEvents(mapper, events, options));
  }

  /** Inserts already encoded records. */
  insert(tx: Database.Database, records: readonly OutboxRecord[]): number {
    if (!tx.inTransaction)
      throw new OutboxError(
        'outbox_not_in_transaction',
        'outbox rows must be written inside the transaction of the domain change: call write inside db.transaction(() => …)()',
      );
    const statement = insertStatement(tx);
    for (const r of records) {
      statement.run(
        r.messageId,
        r.channel,
        r.address,
        r.key ?? null,
        r.type,
        Buffer.from(r.payload.buffer, r.payload.byteOffset, r.payload.byteLength),
        JSON.stringify(r.headers),
        r.createdAt,
      );
    }
    if (records.length > 0) this.#wake();
    return records.length;
  }
}
