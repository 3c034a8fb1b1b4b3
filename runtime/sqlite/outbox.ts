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
import type { AnyChannel, AnyContractMessage, EventMapper, HeadersOf, Logger, Transport } from '@keiyaku/runtime/adapter';
import {
  type Clock,
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
  OutboxLockedError,
  type OutboxRecord,
  type OutboxRow,
  type OutboxWriteOptions,
  parseRowId,
  systemClock,
  type Waiter,
  waitForWake,
} from '@keiyaku/runtime/adapter';
import Database from 'better-sqlite3';

/**
 * The SQLite outbox tables (schema version 1), exactly what {@link SqliteOutbox.migrate} runs.
 * Teams with their own migrations can run this SQL instead; it is idempotent.
 */
export const SQLITE_OUTBOX_SCHEMA = `
CREATE TABLE IF NOT EXISTS keiyaku_outbox_schema (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  version INTEGER NOT NULL
);
INSERT OR IGNORE INTO keiyaku_outbox_schema (id, version) VALUES (1, 1);
CREATE TABLE IF NOT EXISTS keiyaku_outbox (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  message_id TEXT NOT NULL,
  channel TEXT NOT NULL,
  address TEXT NOT NULL,
  partition_key TEXT,
  type TEXT NOT NULL,
  payload BLOB NOT NULL,
  headers TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'published', 'dead')),
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL DEFAULT 0,
  last_error TEXT,
  finished_at INTEGER
);
CREATE INDEX IF NOT EXISTS keiyaku_outbox_pending ON keiyaku_outbox (seq) WHERE state = 'pending';
CREATE INDEX IF NOT EXISTS keiyaku_outbox_retry ON keiyaku_outbox (next_attempt_at) WHERE state = 'pending' AND next_attempt_at > 0;
CREATE INDEX IF NOT EXISTS keiyaku_outbox_dead ON keiyaku_outbox (seq) WHERE state = 'dead';
CREATE INDEX IF NOT EXISTS keiyaku_outbox_published ON keiyaku_outbox (finished_at) WHERE state = 'published';
CREATE TABLE IF NOT EXISTS keiyaku_outbox_lock (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  owner TEXT NOT NULL,
  lease_until INTEGER NOT NULL
);
`;

interface Row {
  seq: number;
  message_id: string;
  channel: string;
  address: string;
  partition_key: string | null;
  type: string;
  payload: Buffer;
  headers: string;
  created_at: number;
  state: 'pending' | 'published' | 'dead';
  attempts: number;
  next_attempt_at: number;
  last_error: string | null;
  finished_at: number | null;
}

function fromRow(row: Row): OutboxRow {
  return Object.freeze({
    id: String(row.seq),
    messageId: row.message_id,
    channel: row.channel,
    address: row.address,
    ...(row.partition_key === null ? {} : { key: row.partition_key }),
    type: row.type,
    payload: new Uint8Array(row.payload.buffer, row.payload.byteOffset, row.payload.byteLength),
    headers: JSON.parse(row.headers) as Record<string, string>,
    createdAt: row.created_at,
    state: row.state,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    ...(row.last_error === null ? {} : { lastError: row.last_error }),
    ...(row.finished_at === null ? {} : { finishedAt: row.finished_at }),
  });
}

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
        throw new OutboxError(
          'outbox_not_migrated',
          'the outbox tables do not exist in this database: run outbox.migrate() (or SQLITE_OUTBOX_SCHEMA in your migrations)',
          { cause },
        );
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

export interface SqliteOutboxOptions {
  readonly clock?: Clock;
  /** CloudEvents `ce_source` of written messages (default `keiyaku`). */
  readonly source?: string;
  /** How long the dispatcher's lock holds without renewal (default 30 s). */
  readonly leaseMs?: number;
}

/**
 * The outbox on one SQLite database. `database` is the service's own `Database` (shared
 * with its writes) or a file path the outbox opens for its dispatcher and operators.
 */
export class SqliteOutbox implements OutboxDispatchStore {
  readonly description: string;
  readonly db: Database.Database;
  readonly #ownsDb: boolean;
  readonly #clock: Clock;
  readonly #source: string | undefined;
  readonly #leaseMs: number;
  readonly #waiters = new Set<Waiter>();
  readonly #channels: AnyChannel[] = [];
  #statements: ReturnType<SqliteOutbox['prepare']> | undefined;

  constructor(database: Database.Database | string, options: SqliteOutboxOptions = {}) {
    if (typeof database === 'string') {
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
    this.#clock = options.clock ?? systemClock;
    this.#source = options.source;
    this.#leaseMs = options.leaseMs ?? 30_000;
  }

  /** Creates the outbox tables if missing ({@link SQLITE_OUTBOX_SCHEMA}); idempotent. Throws when the database holds a newer schema. */
  migrate(): void {
    this.db.exec(SQLITE_OUTBOX_SCHEMA);
    this.#checkVersion();
  }

  /** The schema version in the database, or undefined when the outbox tables are not there. */
  schemaVersion(): number | undefined {
    try {
      return (this.db.prepare('SELECT version FROM keiyaku_outbox_schema WHERE id = 1').get() as { version: number } | undefined)?.version;
    } catch {
      return undefined;
    }
  }

  #checkVersion(): void {
    const version = this.schemaVersion();
    if (version === undefined)
      throw new OutboxError('outbox_not_migrated', `the outbox tables do not exist in ${this.description}: run outbox.migrate() first`);
    if (version !== OUTBOX_SCHEMA_VERSION)
      throw new OutboxError(
        'outbox_schema_version',
        `${this.description} holds outbox schema version ${version}; this keiyaku reads version ${OUTBOX_SCHEMA_VERSION}`,
      );
  }

  /** A writer of `channel`'s contract messages into this outbox. */
  channel<M extends AnyContractMessage>(channel: AnyChannel<M>, options: OutboxChannelOptions<M> = {}): SqliteOutboxChannel<M> {
    if (!this.#channels.includes(channel as AnyChannel)) this.#channels.push(channel as AnyChannel);
    return new SqliteOutboxChannel(
      new OutboxEncoder(channel, options, { clock: this.#clock, ...(this.#source === undefined ? {} : { source: this.#source }) }),
      () => this.#wake(),
    );
  }

  /** The dispatcher of this outbox, to host with `messaging.host(...)`. Channels written through {@link channel} are provisioned. */
  dispatcher(
    deps: { transport: Transport; logger?: Logger; random?: () => number },
    options: OutboxDispatcherOptions = {},
  ): OutboxDispatcher {
    return new OutboxDispatcher(
      { store: this, clock: this.#clock, ...deps },
      { ...options, channels: [...this.#channels, ...(options.channels ?? [])] },
    );
  }

  #wake(): void {
    if (this.#waiters.size === 0) return;
    // A better-sqlite3 transaction is synchronous: by the next macrotask it has committed or rolled back.
    setImmediate(() => {
      for (const wake of [...this.#waiters]) wake();
    });
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
        const now = this.#clock.now();
        const current = sql.lock.get();
        if (current && current.owner !== owner && current.lease_until > now && !holderIsGone(current.owner))
          throw new OutboxLockedError(this.description, current.owner, new Date(current.lease_until));
        sql.takeLock.run(owner, now + this.#leaseMs);
      })
      .immediate();
  }

  async renew(owner: string): Promise<boolean> {
    return this.#sql.renew.run(this.#clock.now() + this.#leaseMs, owner).changes > 0;
  }

  async release(owner: string): Promise<void> {
    if (this.db.open) this.#sql.release.run(owner);
  }

  async claim(_owner: string, limit: number, now: number): Promise<readonly OutboxRow[]> {
    return this.#sql.claim.all({ now, limit }).map(fromRow);
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
    await waitForWake(this.#waiters, { timeoutMs: ms, signal });
  }

  async counts(): Promise<OutboxCounts> {
    let counts: { pending: number; dead: number; published: number; oldestPendingAt?: number } = { pending: 0, dead: 0, published: 0 };
    for (const row of this.#sql.counts.all()) {
      if (row.state === 'pending') counts = { ...counts, pending: row.n, ...(row.oldest === null ? {} : { oldestPendingAt: row.oldest }) };
      else if (row.state === 'dead') counts.dead = row.n;
      else if (row.state === 'published') counts.published = row.n;
    }
    return counts;
  }

  async list(filter: OutboxFilter = {}): Promise<readonly OutboxRow[]> {
    return this.#sql.list.all({ state: filter.state ?? 'dead', channel: filter.channel ?? null, limit: filter.limit ?? 100 }).map(fromRow);
  }

  async get(id: string): Promise<OutboxRow | undefined> {
    const row = this.#sql.get.get(Number(parseRowId(id)));
    return row === undefined ? undefined : fromRow(row);
  }

  async reset(id: string): Promise<boolean> {
    const changed = this.#sql.reset.run(this.#clock.now(), Number(parseRowId(id))).changes > 0;
    if (changed) this.#wake();
    return changed;
  }

  async remove(id: string): Promise<boolean> {
    return this.#sql.remove.run(Number(parseRowId(id))).changes > 0;
  }

  /** Closes the database when the outbox opened it from a path; a `Database` given by the caller stays open. */
  async close(): Promise<void> {
    for (const wake of [...this.#waiters]) wake();
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
