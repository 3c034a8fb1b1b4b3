/**
 * The MySQL inbox (`mysql2`). Each message takes a connection, runs `START TRANSACTION`, inserts
 * its `(group, message id)` row (`INSERT IGNORE`), runs the handler with that connection and
 * commits: the handler's queries on the connection commit or roll back with the row. An id
 * recorded already rolls back at once and the handler is not called.
 *
 * Two consumers that get the same message at once (a rebalance) are safe: the second INSERT waits
 * on the first transaction's row lock; when that commits it finds the duplicate, when it rolls
 * back the second inserts and runs the handler. InnoDB may end such a wait with a deadlock error
 * (several waiters on one rolled-back key); the insert is then tried again, before any handler ran.
 *
 * ```ts
 * const inbox = new MysqlInboxStore(pool);
 * await inbox.migrate();
 * messaging.subscribe(Orders, {
 *   groupId: 'billing',
 *   handle: async (order, context) => {
 *     const connection = inboxTransaction(inbox, context);
 *     await connection.query('INSERT INTO invoices (order_id) VALUES (?)', [order.id]);
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
  systemClock,
} from '@keiyaku/runtime/adapter';
import {
  affectedRows,
  createMysqlPool,
  isLockConflict,
  isPool,
  type MysqlConnection,
  type MysqlQueryable,
  missingTable,
  selectRows,
  withConnection,
} from './client.js';
import { applyMysqlMigrations, MYSQL_INBOX_MIGRATION, mysqlSchemaVersions } from './migrations.js';

const FIX = "inbox.migrate() (or mysqlMigrationSql(['inbox']) in your migrations)";

/** How often an INSERT that lost a deadlock (before the handler ran) is tried again. */
const INSERT_ATTEMPTS = 5;

/** The handle an inbox handler gets: the connection its transaction runs on. */
export type MysqlInboxTransaction = MysqlConnection;

export interface MysqlInboxOptions {
  /** How long recorded ids are kept (ms; default 7 days). */
  readonly retentionMs?: number;
  /** Where `received_at` comes from (default the system clock). */
  readonly clock?: Clock;
}

interface ConnectionConfig {
  readonly host?: string;
  readonly port?: number;
  readonly database?: string;
}

function describe(db: MysqlQueryable): string {
  const config = isPool(db)
    ? (db as unknown as { pool?: { config?: { connectionConfig?: ConnectionConfig } } }).pool?.config?.connectionConfig
    : (db as unknown as { connection?: { config?: ConnectionConfig } }).connection?.config;
  const host = `${config?.host ?? 'localhost'}:${config?.port ?? 3306}`;
  return `mysql:${host}${config?.database ? `/${config.database}` : ''}`;
}

/**
 * The inbox on one MySQL or MariaDB database. `db` is the service's `mysql2/promise` Pool (a
 * connection is borrowed per message; the store never ends the pool), one connection (messages
 * then take turns on it), or a connection URL (the store opens and ends its own pool).
 */
export class MysqlInboxStore implements InboxStore<MysqlInboxTransaction> {
  readonly description: string;
  readonly retentionMs: number;
  readonly db: MysqlQueryable;
  readonly #ownsPool: boolean;
  readonly #clock: Clock;
  #checked: Promise<void> | undefined;
  /** With one connection (no pool), the tail of the transactions taking turns on it. */
  #turn: Promise<unknown> = Promise.resolve();
  #closed = false;

  constructor(db: MysqlQueryable | string, options: MysqlInboxOptions = {}) {
    if (typeof db === 'string') {
      this.db = createMysqlPool(db, { connectionLimit: 4 });
      this.#ownsPool = true;
    } else {
      this.db = db;
      this.#ownsPool = false;
    }
    this.description = describe(this.db);
    this.retentionMs = options.retentionMs ?? DEFAULT_INBOX_RETENTION_MS;
    this.#clock = options.clock ?? systemClock;
    if (!(this.retentionMs > 0))
      throw new InboxError('inbox_invalid_option', `MysqlInboxStore: retentionMs must be a positive number of ms, got ${this.retentionMs}`);
  }

  /** Creates the inbox table (the `inbox` component of `keiyaku_schema_versions`); idempotent, safe from several processes at once. */
  async migrate(): Promise<void> {
    await applyMysqlMigrations(this.db, [MYSQL_INBOX_MIGRATION]);
    this.#checked = undefined;
    await this.#check();
  }

  /** The schema version in the database, or undefined when the inbox table is not there. */
  async schemaVersion(): Promise<number | undefined> {
    return (await mysqlSchemaVersions(this.db))[MYSQL_INBOX_MIGRATION.component];
  }

  /** Checks the schema version once; a failed check is tried again next time (after a migration). */
  #check(): Promise<void> {
    if (this.#checked === undefined) {
      const checking = this.schemaVersion().then((version) => assertInboxSchemaVersion(this.description, version, FIX));
      this.#checked = checking;
      checking.catch(() => {
        if (this.#checked === checking) this.#checked = undefined;
      });
    }
    return this.#checked;
  }

  /** A missing table (dropped after the check) is the not-migrated error too. */
  #mapError(error: unknown): unknown {
    return missingTable(error) === 'keiyaku_inbox' ? inboxNotMigrated(this.description, FIX, error) : error;
  }

  async process(groupId: string, messageId: string, work: (tx: MysqlInboxTransaction) => unknown): Promise<InboxOutcome> {
    await this.#check();
    if (isPool(this.db)) return this.#transaction(groupId, messageId, work);
    // One connection carries one transaction at a time.
    const run = this.#turn.then(() => this.#transaction(groupId, messageId, work));
    this.#turn = run.catch(() => undefined);
    return run;
  }

  #transaction(groupId: string, messageId: string, work: (tx: MysqlInboxTransaction) => unknown): Promise<InboxOutcome> {
    return withConnection(this.db, async (connection) => {
      for (let attempt = 1; ; attempt++) {
        await connection.query('START TRANSACTION');
        let inserted: number;
        try {
          inserted = await affectedRows(
            connection,
            'INSERT IGNORE INTO keiyaku_inbox (group_id, message_id, received_at) VALUES (?, ?, ?)',
            [groupId, messageId, Math.trunc(this.#clock.now())],
          );
        } catch (error) {
          await connection.query('ROLLBACK').catch(() => undefined);
          if (isLockConflict(error) && attempt < INSERT_ATTEMPTS) continue;
          throw this.#mapError(error);
        }
        if (inserted === 0) {
          await connection.query('ROLLBACK');
          return 'duplicate';
        }
        try {
          await work(connection);
          await connection.query('COMMIT');
          return 'processed';
        } catch (error) {
          // A connection that failed is destroyed by withConnection; its transaction is gone with it.
          await connection.query('ROLLBACK').catch(() => undefined);
          throw error;
        }
      }
    });
  }

  async has(groupId: string, messageId: string): Promise<boolean> {
    await this.#check();
    const rows = await selectRows(this.db, 'SELECT 1 AS found FROM keiyaku_inbox WHERE group_id = ? AND message_id = ?', [
      groupId,
      messageId,
    ]).catch((error: unknown) => {
      throw this.#mapError(error);
    });
    return rows.length > 0;
  }

  /** One statement: the oldest rows recorded before `before`, at most `limit`. */
  async purge(before: number, limit: number): Promise<number> {
    await this.#check();
    return affectedRows(this.db, 'DELETE FROM keiyaku_inbox WHERE received_at < ? ORDER BY received_at LIMIT ?', [before, limit]).catch(
      (error: unknown) => {
        throw this.#mapError(error);
      },
    );
  }

  async count(): Promise<number> {
    await this.#check();
    const rows = await selectRows<{ n: number | string }>(this.db, 'SELECT COUNT(*) AS n FROM keiyaku_inbox').catch((error: unknown) => {
      throw this.#mapError(error);
    });
    return Number(rows[0]!.n);
  }

  /** Ends the pool when the store made it from a URL; a pool or connection given by the caller stays open. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#ownsPool) await this.db.end();
  }
}
