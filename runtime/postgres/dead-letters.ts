/**
 * The PostgreSQL dead-letter store (`pg`): parked messages in `keiyaku_dead_letters`. Any payload
 * bytes and any text are kept exactly: a row whose texts hold a NUL or a lone surrogate (which
 * `text` and `jsonb` refuse) is stored escaped (docs/stores.md). Rows read back are checked as
 * the SQLite store checks them: a damaged row is a `DeadLetterRecordError`, never a half-read record.
 */
import { randomUUID } from 'node:crypto';
import type {
  DeadLetterFilter,
  DeadLetterPage,
  DeadLetterRowFormat,
  DeadLetterStore,
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
  parkedFromRow,
  summaryFromRow,
} from '@keiyaku/runtime/adapter';
import { createPostgresPool, type PostgresQueryable, storeError } from './client.js';
import { migratePostgres } from './migrations.js';

/** A stored record that cannot be read back (the same error as `@keiyaku/sqlite`'s). */
export { DeadLetterRecordError };

const FORMAT: DeadLetterRowFormat = { times: 'date', headers: 'json-value', bytes: 'bytea' };

const fromRow = (row: unknown): ParkedMessage => parkedFromRow(row, FORMAT);

/** Plain rows match the filter's text, escaped rows its escape ($1–$6 from filterValues). */
const FILTER = `(NOT $1::boolean OR (NOT escaped AND channel = $2::text) OR (escaped AND channel = $3::text))
  AND (NOT $4::boolean OR (NOT escaped AND group_id = $5::text) OR (escaped AND group_id = $6::text))`;

function filterValues(filter: DeadLetterFilter): (string | boolean | null)[] {
  const f = deadLetterFilterColumns(filter);
  return [f.channelFiltered, f.channel, f.channelEscaped, f.groupIdFiltered, f.groupId, f.groupIdEscaped];
}

const SUMMARY_COLUMNS = deadLetterSummaryColumns('octet_length');

/** A table without the version-2 columns (42703 undefined_column) names the migration to run. */
function failure(error: unknown, doing: string): Error {
  if (error instanceof Error && (error as { code?: unknown }).code === '42703' && DEAD_LETTER_V2_COLUMN.test(error.message))
    return deadLetterTableOutdated('migratePostgres(pool) from @keiyaku/postgres', error);
  return storeError(error, doing);
}

export interface PostgresDeadLetterStoreOptions {
  /** End the pool (or client) on `close()` (default false: the pool is yours). */
  readonly closeOnClose?: boolean;
}

export class PostgresDeadLetterStore implements DeadLetterStore {
  readonly #db: PostgresQueryable;
  readonly #closeDb: boolean;
  #closing: Promise<void> | undefined;

  constructor(db: PostgresQueryable, options: PostgresDeadLetterStoreOptions = {}) {
    this.#db = db;
    this.#closeDb = options.closeOnClose ?? false;
  }

  async park(request: ParkRequest, parkedAt: Date): Promise<ParkedMessage> {
    const id = randomUUID();
    try {
      await this.#db.query(
        `INSERT INTO keiyaku_dead_letters (${DEAD_LETTER_INSERT_COLUMNS})
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)`,
        Object.values(deadLetterInsert(id, request, parkedAt)),
      );
    } catch (error) {
      throw failure(error, `parking a message of ${request.channel}`);
    }
    return parkedFromRequest(id, request, parkedAt);
  }

  async list(filter: DeadLetterFilter = {}): Promise<readonly ParkedMessage[]> {
    let rows: unknown[];
    try {
      ({ rows } = await this.#db.query(`SELECT * FROM keiyaku_dead_letters WHERE ${FILTER} ORDER BY seq`, filterValues(filter)));
    } catch (error) {
      throw failure(error, 'listing parked messages');
    }
    return rows.map(fromRow);
  }

  /** Oldest first, at most `page.limit` (100): the limit is in the query, and payloads are never read. */
  async summaries(page: DeadLetterPage = {}): Promise<readonly ParkedSummary[]> {
    const limit = pageLimit(page);
    let rows: unknown[];
    try {
      ({ rows } = await this.#db.query(`SELECT ${SUMMARY_COLUMNS} FROM keiyaku_dead_letters WHERE ${FILTER} ORDER BY seq LIMIT $7`, [
        ...filterValues(page),
        limit,
      ]));
    } catch (error) {
      throw failure(error, 'listing parked messages');
    }
    return rows.map((row) => summaryFromRow(row, FORMAT));
  }

  async get(id: string): Promise<ParkedMessage | undefined> {
    let rows: unknown[];
    try {
      ({ rows } = await this.#db.query('SELECT * FROM keiyaku_dead_letters WHERE id = $1', [id]));
    } catch (error) {
      throw failure(error, `reading parked message ${id}`);
    }
    return rows[0] === undefined ? undefined : fromRow(rows[0]);
  }

  /**
   * Claims the record with one UPDATE: concurrent claimers (any pool, any process) queue on the
   * row lock, and each re-checks the claim after the one before it committed, so one wins. Times
   * are the server's clock, the same for every process.
   */
  async claim(id: string, leaseMs: number): Promise<ParkedMessage | undefined> {
    const lease = checkLease(leaseMs);
    let rows: unknown[];
    try {
      ({ rows } = await this.#db.query(
        `UPDATE keiyaku_dead_letters SET claimed_at = clock_timestamp()
         WHERE id = $1 AND (claimed_at IS NULL OR claimed_at <= clock_timestamp() - make_interval(secs => $2::float8 / 1000))
         RETURNING *`,
        [id, lease],
      ));
    } catch (error) {
      throw failure(error, `claiming parked message ${id}`);
    }
    return rows[0] === undefined ? undefined : fromRow(rows[0]);
  }

  async release(id: string): Promise<void> {
    try {
      await this.#db.query('UPDATE keiyaku_dead_letters SET claimed_at = NULL WHERE id = $1', [id]);
    } catch (error) {
      throw failure(error, `releasing parked message ${id}`);
    }
  }

  /** Removes the record and with it any claim on it. */
  async remove(id: string): Promise<boolean> {
    try {
      const result = await this.#db.query('DELETE FROM keiyaku_dead_letters WHERE id = $1', [id]);
      return (result.rowCount ?? 0) > 0;
    } catch (error) {
      throw failure(error, `removing parked message ${id}`);
    }
  }

  async count(filter: DeadLetterFilter = {}): Promise<number> {
    try {
      const { rows } = await this.#db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM keiyaku_dead_letters WHERE ${FILTER}`,
        filterValues(filter),
      );
      return rows[0]!.n;
    } catch (error) {
      throw failure(error, 'counting parked messages');
    }
  }

  /** Ends the pool when the store owns it (`closeOnClose`); calling it again does nothing. */
  async close(): Promise<void> {
    if (!this.#closeDb) return;
    this.#closing ??= this.#db.end();
    await this.#closing;
  }
}

/**
 * A dead-letter store on its own pool to `connectionString` (tables in `schema` when given), its
 * table migrated first when `migrate` is set; closing the store ends the pool. What `configure()`
 * builds for `deadLetters: { store: 'postgres' }`.
 */
export async function openDeadLetterStore(options: {
  readonly connectionString: string;
  readonly schema?: string;
  readonly migrate?: boolean;
}): Promise<PostgresDeadLetterStore> {
  const pool = createPostgresPool(
    options.connectionString,
    options.schema === undefined ? {} : { options: `-c search_path=${options.schema}` },
  );
  try {
    if (options.migrate === true) await migratePostgres(pool, { components: ['dead-letters'] });
  } catch (error) {
    await pool.end();
    throw error;
  }
  return new PostgresDeadLetterStore(pool, { closeOnClose: true });
}
