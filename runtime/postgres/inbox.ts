/**
 * The PostgreSQL inbox (node-postgres). Each message takes a client, runs `BEGIN`, inserts its
 * `(group, message id)` row (`ON CONFLICT DO NOTHING`), runs the handler with that client and
 * commits: the handler's queries on the client (and `PostgresOutboxChannel.write(client, …)`)
 * commit or roll back with the row. An id recorded already rolls back at once and the handler is
 * not called.
 *
 * Two consumers that get the same message at once (a rebalance) are safe: the second INSERT waits
 * on the first transaction's row; when that commits it finds the conflict (a duplicate), when it
 * rolls back the second inserts and runs the handler.
 *
 * ```ts
 * const inbox = new PostgresInboxStore(pool);
 * await inbox.migrate();
 * messaging.subscribe(Orders, {
 *   groupId: 'billing',
 *   handle: async (order, context) => {
 *     const client = inboxTransaction(inbox, context);
 *     await client.query('insert into invoices (order_id) values ($1)', [order.id]);
 *     await invoices.write(client, InvoiceRaised.create({ orderId: order.id }));
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
import pg from 'pg';
import { isPool, type PostgresQueryable, withClient } from './client.js';
import { applyPostgresMigrations, POSTGRES_INBOX_MIGRATION, postgresSchemaVersions } from './migrations.js';

const FIX = "inbox.migrate() (or postgresMigrationSql(['inbox']) in your migrations)";

/** The handle an inbox handler gets: the client its transaction runs on. */
export type PostgresInboxTransaction = pg.PoolClient | pg.Client;

export interface PostgresInboxOptions {
  /** How long recorded ids are kept (ms; default 7 days). */
  readonly retentionMs?: number;
  /** Where `received_at` comes from (default the system clock). */
  readonly clock?: Clock;
}

function describe(db: PostgresQueryable): string {
  const o = (isPool(db) ? db.options : (db as pg.Client & { connectionParameters?: pg.ClientConfig }).connectionParameters) ?? {};
  const url = o.connectionString ? new URL(o.connectionString) : undefined;
  const host = o.host ?? url?.host ?? 'localhost';
  const database = o.database ?? url?.pathname.slice(1);
  return `postgres:${host}${database ? `/${database}` : ''}`;
}

/**
 * The inbox on one PostgreSQL database. `db` is the service's `pg.Pool` (a client is borrowed per
 * message; the store never ends the pool), one `pg` client (messages then take turns on it), or a
 * connection URL (the store opens and ends its own pool).
 */
export class PostgresInboxStore implements InboxStore<PostgresInboxTransaction> {
  readonly description: string;
  readonly retentionMs: number;
  readonly db: PostgresQueryable;
  readonly #ownsPool: boolean;
  readonly #clock: Clock;
  #checked: Promise<void> | undefined;
  /** With one client (no pool), the tail of the transactions taking turns on it. */
  #turn: Promise<unknown> = Promise.resolve();
  #closed = false;

  constructor(db: PostgresQueryable | string, options: PostgresInboxOptions = {}) {
    if (typeof db === 'string') {
      const pool = new pg.Pool({ connectionString: db, max: 4 });
      // A server restart ends idle connections; the pool replaces them on the next query.
      pool.on('error', () => undefined);
      this.db = pool;
      this.#ownsPool = true;
    } else {
      this.db = db;
      this.#ownsPool = false;
    }
    this.description = describe(this.db);
    this.retentionMs = options.retentionMs ?? DEFAULT_INBOX_RETENTION_MS;
    this.#clock = options.clock ?? systemClock;
    if (!(this.retentionMs > 0))
      throw new InboxError(
        'inbox_invalid_option',
        `PostgresInboxStore: retentionMs must be a positive number of ms, got ${this.retentionMs}`,
      );
  }

  /** Creates the inbox table (the `inbox` component of `keiyaku_schema_versions`); idempotent, safe from several processes at once. */
  async migrate(): Promise<void> {
    await applyPostgresMigrations(this.db, [POSTGRES_INBOX_MIGRATION]);
    this.#checked = undefined;
    await this.#check();
  }

  /** The schema version in the database, or undefined when the inbox table is not there. */
  async schemaVersion(): Promise<number | undefined> {
    return (await postgresSchemaVersions(this.db))[POSTGRES_INBOX_MIGRATION.component];
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
    return (error as { code?: unknown } | null)?.code === '42P01' ? inboxNotMigrated(this.description, FIX, error) : error;
  }

  async process(groupId: string, messageId: string, work: (tx: PostgresInboxTransaction) => unknown): Promise<InboxOutcome> {
    await this.#check();
    if (isPool(this.db)) return this.#transaction(groupId, messageId, work);
    // One client carries one transaction at a time.
    const run = this.#turn.then(() => this.#transaction(groupId, messageId, work));
    this.#turn = run.catch(() => undefined);
    return run;
  }

  #transaction(groupId: string, messageId: string, work: (tx: PostgresInboxTransaction) => unknown): Promise<InboxOutcome> {
    return withClient(this.db, async (client) => {
      try {
        // BEGIN and the inbox row in one round trip: a simple query of two statements, so the
        // values go in as escaped literals (pg's escapeLiteral; the id comes from a header).
        const results = (await client
          .query(
            `BEGIN; INSERT INTO keiyaku_inbox (group_id, message_id, received_at) VALUES (${client.escapeLiteral(groupId)}, ${client.escapeLiteral(messageId)}, ${Math.trunc(this.#clock.now())}) ON CONFLICT DO NOTHING`,
          )
          .catch((error: unknown) => {
            throw this.#mapError(error);
          })) as unknown as pg.QueryResult[];
        const inserted = results[1]!;
        if (inserted.rowCount === 0) {
          await client.query('ROLLBACK');
          return 'duplicate';
        }
        await work(client);
        await client.query('COMMIT');
        return 'processed';
      } catch (error) {
        // A client whose connection failed is dropped by withClient; its transaction is gone with it.
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
  }

  async has(groupId: string, messageId: string): Promise<boolean> {
    await this.#check();
    const { rows } = await this.db
      .query('SELECT 1 FROM keiyaku_inbox WHERE group_id = $1 AND message_id = $2', [groupId, messageId])
      .catch((error: unknown) => {
        throw this.#mapError(error);
      });
    return rows.length > 0;
  }

  /** One statement: the oldest rows recorded before `before`, at most `limit`; rows another purge holds are skipped. */
  async purge(before: number, limit: number): Promise<number> {
    await this.#check();
    const result = await this.db
      .query(
        `DELETE FROM keiyaku_inbox WHERE (group_id, message_id) IN (
           SELECT group_id, message_id FROM keiyaku_inbox WHERE received_at < $1
           ORDER BY received_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
        [before, limit],
      )
      .catch((error: unknown) => {
        throw this.#mapError(error);
      });
    return result.rowCount ?? 0;
  }

  async count(): Promise<number> {
    await this.#check();
    const { rows } = await this.db.query<{ n: string }>('SELECT count(*) AS n FROM keiyaku_inbox').catch((error: unknown) => {
      throw this.#mapError(error);
    });
    return Number(rows[0]!.n);
  }

  /** Ends the pool when the store made it from a URL; a pool or client given by the caller stays open. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#ownsPool) await (this.db as pg.Pool).end();
  }
}
