/**
 * The SQLite dead-letter store (better-sqlite3): the embedded default. Parked messages
 * are durable across process restarts. Its table comes from `migrateSqlite(db)`.
 */
import { randomUUID } from 'node:crypto';
import type {
  DeadLetterFilter,
  DeadLetterInsert,
  DeadLetterPage,
  DeadLetterRowFormat,
  DeadLetterStore,
  Logger,
  ParkedMessage,
  ParkedSummary,
  ParkRequest,
} from '@keiyaku/runtime/adapter';
import {
  checkLease,
  DEAD_LETTER_INSERT_COLUMNS,
  DEAD_LETTER_V2_COLUMN,
  DeadLetterRecordError,
  deadLetterFilterColumns,
  deadLetterInsert,
  deadLetterSummaryColumns,
  deadLetterTableOutdated,
  pageLimit,
  parkedFromRequest,
  parkedFromRow as readParkedRow,
  summaryFromRow,
} from '@keiyaku/runtime/adapter';
import type Database from 'better-sqlite3';
import { openSqlite, prepareMigrated } from './event-store.js';
import { migrateSqlite } from './migrations.js';

/** A stored record that cannot be read back; defined in the runtime, shared with `@keiyaku/postgres`. */
export { DeadLetterRecordError };

const FORMAT: DeadLetterRowFormat = { times: 'epoch-ms', headers: 'json-text', bytes: 'blob' };

/**
 * @internal Reads one row back into a parked message; a row that is not what `park` wrote
 * (edited or damaged store) is a {@link DeadLetterRecordError}, never a crash or a half-read record.
 */
export function parkedFromRow(input: unknown): ParkedMessage {
  return readParkedRow(input, FORMAT);
}

/** The insert's values as SQLite stores them: times in milliseconds, `escaped` 0 or 1. */
type InsertParams = Omit<DeadLetterInsert, 'firstFailureAt' | 'lastFailureAt' | 'parkedAt' | 'escaped'> & {
  firstFailureAt: number;
  lastFailureAt: number;
  parkedAt: number;
  escaped: number;
};

interface FilterParams {
  channelFiltered: number;
  channel: string | null;
  channelEscaped: string | null;
  groupIdFiltered: number;
  groupId: string | null;
  groupIdEscaped: string | null;
}

/** Plain rows match the filter's text, escaped rows its escape. */
const FILTER = `(@channelFiltered = 0 OR (escaped = 0 AND channel = @channel) OR (escaped <> 0 AND channel = @channelEscaped))
  AND (@groupIdFiltered = 0 OR (escaped = 0 AND group_id = @groupId) OR (escaped <> 0 AND group_id = @groupIdEscaped))`;

function filterParams(filter: DeadLetterFilter): FilterParams {
  const f = deadLetterFilterColumns(filter);
  return { ...f, channelFiltered: f.channelFiltered ? 1 : 0, groupIdFiltered: f.groupIdFiltered ? 1 : 0 };
}

const SUMMARY_COLUMNS = deadLetterSummaryColumns('length');

/** SQLite's words for a column version 2 added that the table does not have. */
const OUTDATED = new RegExp(`(no such column: |has no column named )${DEAD_LETTER_V2_COLUMN.source}`);

/** Prepares a statement of this store: a table without the version-2 columns names the migration to run. */
// biome-ignore lint/complexity/noBannedTypes: better-sqlite3 types a statement's named parameters as `{}`
function prepare<P extends unknown[] | {} = unknown[], R = unknown>(db: Database.Database, sql: string): Database.Statement<P, R> {
  try {
    return prepareMigrated<P, R>(db, sql);
  } catch (error) {
    if (error instanceof Error && OUTDATED.test(error.message))
      throw deadLetterTableOutdated('migrateSqlite(db) from @keiyaku/sqlite', error);
    throw error;
  }
}

export class SqliteDeadLetterStore implements DeadLetterStore {
  readonly #db: Database.Database;
  readonly #insert: Database.Statement<[InsertParams]>;
  readonly #list: Database.Statement<[FilterParams]>;
  readonly #summaries: Database.Statement<[FilterParams & { limit: number }]>;
  readonly #get: Database.Statement<[string]>;
  readonly #claim: Database.Statement<[{ id: string; now: number; staleBefore: number }]>;
  readonly #release: Database.Statement<[string]>;
  readonly #remove: Database.Statement<[string]>;
  readonly #count: Database.Statement<[FilterParams], { n: number }>;

  readonly #owned: boolean;

  /**
   * `database`: your better-sqlite3 database, migrated with `migrateSqlite(db)` (a missing table,
   * or one at an older version, throws StoreNotMigratedError); the store does not close it.
   *
   * @deprecated form: a file path (created if missing) or `:memory:`. The store opens it, creates
   * its table itself (as `migrateSqlite(db, { components: ['dead-letters'] })` does) and closes it
   * on `close()`. Kept for compatibility; open the database, migrate it, and pass it instead.
   */
  constructor(database: string | Database.Database, options: { readonly logger?: Logger } = {}) {
    this.#owned = typeof database === 'string';
    this.#db = openSqlite(database);
    if (typeof database === 'string') {
      const { applied } = migrateSqlite(this.#db, { components: ['dead-letters'] });
      if (applied.length > 0)
        options.logger?.warn('SqliteDeadLetterStore created its table from a file path; this form is deprecated', {
          file: database,
          fix: 'open the database, run migrateSqlite(db), and pass the database to the store',
        });
    }
    this.#insert = prepare(
      this.#db,
      `INSERT INTO keiyaku_dead_letters (${DEAD_LETTER_INSERT_COLUMNS})
       VALUES (@id, @channel, @address, @topic, @groupId, @type, @payload, @headers, @key, @partition, @offset,
         @errorName, @errorMessage, @errorStack, @attempts, @firstFailureAt, @lastFailureAt, @parkedAt, @escaped)`,
    );
    this.#list = prepare(this.#db, `SELECT * FROM keiyaku_dead_letters WHERE ${FILTER} ORDER BY seq`);
    this.#summaries = prepare(this.#db, `SELECT ${SUMMARY_COLUMNS} FROM keiyaku_dead_letters WHERE ${FILTER} ORDER BY seq LIMIT @limit`);
    this.#get = prepare(this.#db, 'SELECT * FROM keiyaku_dead_letters WHERE id = ?');
    // One statement, so of concurrent claimers (connections in this process or others) one updates the row.
    this.#claim = prepare(
      this.#db,
      `UPDATE keiyaku_dead_letters SET claimed_at = @now
       WHERE id = @id AND (claimed_at IS NULL OR claimed_at <= @staleBefore) RETURNING *`,
    );
    this.#release = prepare(this.#db, 'UPDATE keiyaku_dead_letters SET claimed_at = NULL WHERE id = ?');
    this.#remove = prepare(this.#db, 'DELETE FROM keiyaku_dead_letters WHERE id = ?');
    this.#count = prepare(this.#db, `SELECT count(*) AS n FROM keiyaku_dead_letters WHERE ${FILTER}`);
  }

  /**
   * Stores the record and returns it as {@link get} will read it back (frozen, copies of the
   * request's values). Any text is kept exactly: a row with a NUL or a lone surrogate in any of its
   * texts is stored escaped (docs/stores.md).
   */
  async park(request: ParkRequest, parkedAt: Date): Promise<ParkedMessage> {
    const id = randomUUID();
    const row = deadLetterInsert(id, request, parkedAt);
    this.#insert.run({
      ...row,
      firstFailureAt: row.firstFailureAt.getTime(),
      lastFailureAt: row.lastFailureAt.getTime(),
      parkedAt: row.parkedAt.getTime(),
      escaped: row.escaped ? 1 : 0,
    });
    return parkedFromRequest(id, request, parkedAt);
  }

  async list(filter: DeadLetterFilter = {}): Promise<readonly ParkedMessage[]> {
    return this.#list.all(filterParams(filter)).map(parkedFromRow);
  }

  /** Oldest first, at most `page.limit` (100): the limit is in the query, and payloads are never read. */
  async summaries(page: DeadLetterPage = {}): Promise<readonly ParkedSummary[]> {
    const limit = pageLimit(page);
    return this.#summaries.all({ ...filterParams(page), limit }).map((row) => summaryFromRow(row, FORMAT));
  }

  async get(id: string): Promise<ParkedMessage | undefined> {
    const row = this.#get.get(id);
    return row === undefined ? undefined : parkedFromRow(row);
  }

  /** Claims the record with one UPDATE (SQLite serialises writers, across processes too); times are this machine's clock. */
  async claim(id: string, leaseMs: number): Promise<ParkedMessage | undefined> {
    const now = Date.now();
    const row = this.#claim.get({ id, now, staleBefore: now - checkLease(leaseMs) });
    return row === undefined ? undefined : parkedFromRow(row);
  }

  async release(id: string): Promise<void> {
    this.#release.run(id);
  }

  /** Removes the record and with it any claim on it. */
  async remove(id: string): Promise<boolean> {
    return this.#remove.run(id).changes > 0;
  }

  async count(filter: DeadLetterFilter = {}): Promise<number> {
    return this.#count.get(filterParams(filter))!.n;
  }

  /** Closes the database when the store opened it (the deprecated path form); yours stays open. */
  async close(): Promise<void> {
    if (this.#owned && this.#db.open) this.#db.close();
  }
}

/**
 * A dead-letter store on its own SQLite file (created when missing), its table migrated first when
 * `migrate` is set; closing the store closes the file. What `configure()` builds for
 * `deadLetters: { store: 'sqlite' }`.
 */
export function openDeadLetterStore(options: { readonly path: string; readonly migrate?: boolean }): SqliteDeadLetterStore {
  const db = openSqlite(options.path);
  try {
    if (options.migrate === true) migrateSqlite(db, { components: ['dead-letters'] });
    const store = new SqliteDeadLetterStore(db);
    return Object.assign(store, {
      close: async () => {
        if (db.open) db.close();
      },
    });
  } catch (error) {
    db.close();
    throw error;
  }
}
