/**
 * The MySQL dead-letter store (`mysql2`): parked messages in `keiyaku_dead_letters`. Payloads are
 * LONGBLOB and sent as binary parameters (any bytes, up to the server's `max_allowed_packet`);
 * texts are utf8mb4 with a binary collation. A row whose texts hold a NUL or a lone surrogate
 * (which UTF-8 cannot carry) is stored escaped, by the rule every keiyaku store shares
 * (docs/stores.md). Rows read back are checked: a damaged row is a `DeadLetterRecordError`.
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
  DeadLetterRecordError,
  deadLetterFilterColumns,
  deadLetterInsert,
  deadLetterSummaryColumns,
  pageLimit,
  parkedFromRequest,
  parkedFromRow,
  summaryFromRow,
} from '@keiyaku/runtime/adapter';
import { affectedRows, createMysqlPool, type MysqlQueryable, selectRows, storeError } from './client.js';
import { migrateMysql } from './migrations.js';

/** A stored record that cannot be read back (the same error as the other stores'). */
export { DeadLetterRecordError };

const FORMAT: DeadLetterRowFormat = { times: 'epoch-ms', headers: 'json-text', bytes: 'longblob' };

/** `partition` and `escaped` are reserved words in MySQL. */
const quoteReserved = (columns: string): string => columns.replace(/\b(partition|escaped)\b/g, '`$1`');

const INSERT_COLUMNS = quoteReserved(DEAD_LETTER_INSERT_COLUMNS);
const INSERT_PLACEHOLDERS = DEAD_LETTER_INSERT_COLUMNS.split(',')
  .map(() => '?')
  .join(', ');
const SUMMARY_COLUMNS = quoteReserved(deadLetterSummaryColumns('OCTET_LENGTH'));

/** BIGINT columns a pool configured to return big numbers as strings hands back as text. */
const NUMBER_COLUMNS = ['first_failure_at', 'last_failure_at', 'parked_at', 'payload_bytes'] as const;

function normalised(row: unknown): unknown {
  if (typeof row !== 'object' || row === null) return row;
  const r = { ...(row as Record<string, unknown>) };
  for (const column of NUMBER_COLUMNS) if (typeof r[column] === 'string' && /^-?\d+$/.test(r[column])) r[column] = Number(r[column]);
  return r;
}

const fromRow = (row: unknown): ParkedMessage => parkedFromRow(normalised(row), FORMAT);

/** Plain rows match the filter's text, escaped rows its escape. */
const FILTER = `(NOT ? OR (NOT \`escaped\` AND channel = ?) OR (\`escaped\` AND channel = ?))
  AND (NOT ? OR (NOT \`escaped\` AND group_id = ?) OR (\`escaped\` AND group_id = ?))`;

function filterValues(filter: DeadLetterFilter): (string | boolean | null)[] {
  const f = deadLetterFilterColumns(filter);
  return [f.channelFiltered, f.channel, f.channelEscaped, f.groupIdFiltered, f.groupId, f.groupIdEscaped];
}

/** Milliseconds since the epoch on the server's clock (the same for every process). */
const SERVER_NOW_MS = 'FLOOR(UNIX_TIMESTAMP(NOW(3)) * 1000)';

export interface MysqlDeadLetterStoreOptions {
  /** End the pool (or connection) on `close()` (default false: the pool is yours). */
  readonly closeOnClose?: boolean;
}

export class MysqlDeadLetterStore implements DeadLetterStore {
  readonly #db: MysqlQueryable;
  readonly #closeDb: boolean;
  #closing: Promise<void> | undefined;

  constructor(db: MysqlQueryable, options: MysqlDeadLetterStoreOptions = {}) {
    this.#db = db;
    this.#closeDb = options.closeOnClose ?? false;
  }

  async park(request: ParkRequest, parkedAt: Date): Promise<ParkedMessage> {
    const id = randomUUID();
    const row = deadLetterInsert(id, request, parkedAt);
    const values = Object.values({
      ...row,
      firstFailureAt: row.firstFailureAt.getTime(),
      lastFailureAt: row.lastFailureAt.getTime(),
      parkedAt: row.parkedAt.getTime(),
      escaped: row.escaped ? 1 : 0,
    });
    try {
      // A prepared statement: the payload goes over the wire as bytes, not as a hex literal twice its size.
      await this.#db.execute(`INSERT INTO keiyaku_dead_letters (${INSERT_COLUMNS}) VALUES (${INSERT_PLACEHOLDERS})`, values);
    } catch (error) {
      throw storeError(error, `parking a message of ${request.channel}`);
    }
    return parkedFromRequest(id, request, parkedAt);
  }

  async list(filter: DeadLetterFilter = {}): Promise<readonly ParkedMessage[]> {
    let rows: unknown[];
    try {
      rows = await selectRows(this.#db, `SELECT * FROM keiyaku_dead_letters WHERE ${FILTER} ORDER BY seq`, filterValues(filter));
    } catch (error) {
      throw storeError(error, 'listing parked messages');
    }
    return rows.map(fromRow);
  }

  /** Oldest first, at most `page.limit` (100): the limit is in the query, and payloads are never read. */
  async summaries(page: DeadLetterPage = {}): Promise<readonly ParkedSummary[]> {
    const limit = pageLimit(page);
    let rows: unknown[];
    try {
      rows = await selectRows(this.#db, `SELECT ${SUMMARY_COLUMNS} FROM keiyaku_dead_letters WHERE ${FILTER} ORDER BY seq LIMIT ?`, [
        ...filterValues(page),
        limit,
      ]);
    } catch (error) {
      throw storeError(error, 'listing parked messages');
    }
    return rows.map((row) => summaryFromRow(normalised(row), FORMAT));
  }

  async get(id: string): Promise<ParkedMessage | undefined> {
    let rows: unknown[];
    try {
      rows = await selectRows(this.#db, 'SELECT * FROM keiyaku_dead_letters WHERE id = ?', [id]);
    } catch (error) {
      throw storeError(error, `reading parked message ${id}`);
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
    try {
      const claimed = await affectedRows(
        this.#db,
        `UPDATE keiyaku_dead_letters SET claimed_at = ${SERVER_NOW_MS}
         WHERE id = ? AND (claimed_at IS NULL OR claimed_at <= ${SERVER_NOW_MS} - ?)`,
        [id, lease],
      );
      if (claimed === 0) return undefined;
    } catch (error) {
      throw storeError(error, `claiming parked message ${id}`);
    }
    // Removed between the claim and this read: nothing to redrive.
    return this.get(id);
  }

  async release(id: string): Promise<void> {
    try {
      await this.#db.query('UPDATE keiyaku_dead_letters SET claimed_at = NULL WHERE id = ?', [id]);
    } catch (error) {
      throw storeError(error, `releasing parked message ${id}`);
    }
  }

  /** Removes the record and with it any claim on it. */
  async remove(id: string): Promise<boolean> {
    try {
      return (await affectedRows(this.#db, 'DELETE FROM keiyaku_dead_letters WHERE id = ?', [id])) > 0;
    } catch (error) {
      throw storeError(error, `removing parked message ${id}`);
    }
  }

  async count(filter: DeadLetterFilter = {}): Promise<number> {
    try {
      const rows = await selectRows<{ n: number | string }>(
        this.#db,
        `SELECT COUNT(*) AS n FROM keiyaku_dead_letters WHERE ${FILTER}`,
        filterValues(filter),
      );
      return Number(rows[0]!.n);
    } catch (error) {
      throw storeError(error, 'counting parked messages');
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
 * A dead-letter store on its own pool to `connectionString` (`mysql://user:password@host:port/database`),
 * its table migrated first when `migrate` is set; closing the store ends the pool. What
 * `configure()` builds for `deadLetters: { store: 'mysql' }`.
 */
export async function openDeadLetterStore(options: {
  readonly connectionString: string;
  readonly migrate?: boolean;
}): Promise<MysqlDeadLetterStore> {
  const pool = createMysqlPool(options.connectionString, { connectionLimit: 4 });
  try {
    if (options.migrate === true) await migrateMysql(pool, { components: ['dead-letters'] });
  } catch (error) {
    await pool.end().catch(() => {});
    throw error;
  }
  return new MysqlDeadLetterStore(pool, { closeOnClose: true });
}
