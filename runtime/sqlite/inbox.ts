/**
 * The SQLite inbox (better-sqlite3). Each message runs its handler inside `BEGIN IMMEDIATE …
 * COMMIT` on the service's own `Database`, with the `(group, message id)` row inserted first; the
 * handler's writes on that `Database` (and `SqliteOutboxChannel.write(db, …)`, which sees
 * `db.inTransaction`) commit or roll back with it.
 *
 * A handler that answers without a promise commits before `process` returns, without one either
 * (the belt's synchronous path). A handler that awaits leaves the connection inside the
 * transaction until it settles: inbox transactions on a connection run one at a time (later
 * messages queue, also those of another inbox store on the same `Database`), and anything else
 * that writes through the same connection meanwhile — another subscription without the inbox, a
 * timer — writes into this transaction and shares its fate. Keep such writers on another
 * connection, or keep inbox handlers synchronous.
 *
 * ```ts
 * const inbox = new SqliteInboxStore(db);
 * inbox.migrate();
 * messaging.subscribe(Orders, {
 *   groupId: 'billing',
 *   handle: (order, context) => {
 *     const tx = inboxTransaction(inbox, context);
 *     tx.prepare('insert into invoices (order_id) values (?)').run(order.id);
 *   },
 * }, { inbox });
 * ```
 */
import {
  assertInboxSchemaVersion,
  type Clock,
  DEFAULT_INBOX_RETENTION_MS,
  InboxError,
  type InboxOutcome,
  type InboxStore,
  inboxNotMigrated,
  isThenable,
  systemClock,
} from '@keiyaku/runtime/adapter';
import type Database from 'better-sqlite3';
import { openSqlite } from './event-store.js';
import { migrateSqlite, SQLITE_INBOX_MIGRATION, sqliteSchemaVersions } from './migrations.js';

const FIX = "inbox.migrate() (or sqliteMigrationSql(['inbox']) in your migrations)";

export interface SqliteInboxOptions {
  /** How long recorded ids are kept (ms; default 7 days). */
  readonly retentionMs?: number;
  /** Where `received_at` comes from (default the system clock). */
  readonly clock?: Clock;
}

interface Statements {
  readonly begin: Database.Statement<[]>;
  readonly commit: Database.Statement<[]>;
  readonly rollback: Database.Statement<[]>;
  readonly insert: Database.Statement<[string, string, number]>;
  readonly has: Database.Statement<[string, string]>;
  readonly purge: Database.Statement<[number, number]>;
  readonly count: Database.Statement<[], { n: number }>;
}

/**
 * The inbox transactions of one connection, one at a time: shared by every inbox store on that
 * `Database`, so two stores (one per subscription, say) queue behind each other too.
 */
interface TransactionLine {
  /** True while an inbox transaction is open on the connection (its handler awaiting). */
  busy: boolean;
  /** True while the next queued transaction is about to start. */
  scheduled: boolean;
  /** Transactions waiting for the open one, in arrival order. */
  readonly queue: (() => void)[];
}

const lines = new WeakMap<Database.Database, TransactionLine>();

function lineOf(db: Database.Database): TransactionLine {
  let line = lines.get(db);
  if (line === undefined) {
    line = { busy: false, scheduled: false, queue: [] };
    lines.set(db, line);
  }
  return line;
}

/**
 * The inbox on one SQLite database. `database` is the service's own `Database` (the handler's
 * writes go through it; the store never closes it) or a file path the store opens and closes.
 */
export class SqliteInboxStore implements InboxStore<Database.Database> {
  readonly description: string;
  readonly retentionMs: number;
  readonly db: Database.Database;
  readonly #ownsDb: boolean;
  readonly #clock: Clock;
  #statements: Statements | undefined;
  readonly #line: TransactionLine;

  constructor(database: Database.Database | string, options: SqliteInboxOptions = {}) {
    this.#ownsDb = typeof database === 'string';
    this.db = openSqlite(database);
    this.description = `sqlite:${this.db.name}`;
    this.retentionMs = options.retentionMs ?? DEFAULT_INBOX_RETENTION_MS;
    this.#clock = options.clock ?? systemClock;
    this.#line = lineOf(this.db);
    if (!(this.retentionMs > 0))
      throw new InboxError(
        'inbox_invalid_option',
        `SqliteInboxStore: retentionMs must be a positive number of ms, got ${this.retentionMs}`,
      );
  }

  /** Creates the inbox table (the `inbox` component of `keiyaku_schema_versions`); idempotent. Throws for a newer schema. */
  migrate(): void {
    migrateSqlite(this.db, { components: [SQLITE_INBOX_MIGRATION.component] });
    this.#statements = undefined;
    void this.#sql;
  }

  /** The schema version in the database, or undefined when the inbox table is not there. */
  schemaVersion(): number | undefined {
    return sqliteSchemaVersions(this.db)[SQLITE_INBOX_MIGRATION.component];
  }

  get #sql(): Statements {
    if (this.#statements !== undefined) return this.#statements;
    assertInboxSchemaVersion(this.description, this.schemaVersion(), FIX);
    const db = this.db;
    try {
      this.#statements = {
        // Prepared once, as better-sqlite3's own transactions do: no parse per message.
        begin: db.prepare('BEGIN IMMEDIATE'),
        commit: db.prepare('COMMIT'),
        rollback: db.prepare('ROLLBACK'),
        insert: db.prepare('INSERT OR IGNORE INTO keiyaku_inbox (group_id, message_id, received_at) VALUES (?, ?, ?)'),
        has: db.prepare('SELECT 1 FROM keiyaku_inbox WHERE group_id = ? AND message_id = ?'),
        // One statement: the oldest rows first, at most the limit.
        purge: db.prepare(
          `DELETE FROM keiyaku_inbox WHERE (group_id, message_id) IN (
             SELECT group_id, message_id FROM keiyaku_inbox WHERE received_at < ? ORDER BY received_at LIMIT ?)`,
        ),
        count: db.prepare('SELECT count(*) AS n FROM keiyaku_inbox'),
      };
    } catch (cause) {
      if (/no such table/.test(String(cause))) throw inboxNotMigrated(this.description, FIX, cause);
      throw cause;
    }
    return this.#statements;
  }

  /**
   * Runs `work(db)` inside a transaction that records `(groupId, messageId)`; see the module
   * comment. Synchronous when `work` is and no other transaction of this store is open.
   */
  process(groupId: string, messageId: string, work: (tx: Database.Database) => unknown): InboxOutcome | Promise<InboxOutcome> {
    const line = this.#line;
    if (line.busy || line.scheduled || line.queue.length > 0)
      return new Promise<InboxOutcome>((resolve, reject) => {
        line.queue.push(() => {
          try {
            const outcome = this.#run(groupId, messageId, work);
            if (isThenable(outcome)) outcome.then(resolve, reject);
            else resolve(outcome);
          } catch (error) {
            reject(error);
          }
        });
      });
    return this.#run(groupId, messageId, work);
  }

  #run(groupId: string, messageId: string, work: (tx: Database.Database) => unknown): InboxOutcome | Promise<InboxOutcome> {
    const db = this.db;
    let sql: Statements;
    try {
      sql = this.#sql;
      if (db.inTransaction)
        throw new InboxError(
          'inbox_nested_transaction',
          `${this.description} is already inside a transaction: the inbox opens the handler's transaction itself, so do not call process inside db.transaction(…)`,
        );
      sql.begin.run();
    } catch (error) {
      this.#next();
      throw error;
    }
    let result: unknown;
    try {
      if (sql.insert.run(groupId, messageId, this.#clock.now()).changes === 0) {
        sql.rollback.run();
        this.#next();
        return 'duplicate';
      }
      result = work(db);
    } catch (error) {
      this.#rollback();
      this.#next();
      throw error;
    }
    if (!isThenable(result)) {
      this.#finish();
      return 'processed';
    }
    this.#line.busy = true;
    return Promise.resolve(result).then(
      () => {
        this.#line.busy = false;
        this.#finish();
        return 'processed' as const;
      },
      (error: unknown) => {
        this.#line.busy = false;
        this.#rollback();
        this.#next();
        throw error;
      },
    );
  }

  /** Commits the open transaction (rolls back and throws when the handler ended it, or the commit fails), then starts the next. */
  #finish(): void {
    try {
      if (!this.db.inTransaction)
        throw new InboxError(
          'inbox_transaction_ended',
          `the handler ended the inbox transaction on ${this.description} itself (COMMIT or ROLLBACK): leave that to the inbox`,
        );
      this.#sql.commit.run();
    } catch (error) {
      this.#rollback();
      throw error;
    } finally {
      this.#next();
    }
  }

  #rollback(): void {
    if (this.db.inTransaction) this.#sql.rollback.run();
  }

  /** Starts the oldest queued transaction on the connection, unless one is open or about to start. */
  #next(): void {
    const line = this.#line;
    if (line.busy || line.scheduled) return;
    const start = line.queue.shift();
    if (start === undefined) return;
    // Off this call stack, so a long queue of synchronous handlers does not nest; until it runs,
    // new calls queue behind it.
    line.scheduled = true;
    queueMicrotask(() => {
      line.scheduled = false;
      start();
    });
  }

  async has(groupId: string, messageId: string): Promise<boolean> {
    return this.#sql.has.get(groupId, messageId) !== undefined;
  }

  async purge(before: number, limit: number): Promise<number> {
    return this.#sql.purge.run(before, limit).changes;
  }

  async count(): Promise<number> {
    return this.#sql.count.get()!.n;
  }

  /** Closes the database when the store opened it from a path; a `Database` given by the caller stays open. */
  async close(): Promise<void> {
    if (this.#ownsDb && this.db.open) this.db.close();
  }
}
