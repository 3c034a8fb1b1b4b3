/** The PostgreSQL dead-letter store (`pg`): parked messages in `keiyaku_dead_letters`. */
import { randomUUID } from 'node:crypto';
import type { DeadLetterFilter, DeadLetterStore, ParkedMessage, ParkRequest } from '@keiyaku/runtime/adapter';
import { createPostgresPool, type PostgresQueryable, storeError } from './client.js';
import { migratePostgres } from './migrations.js';

interface Row {
  id: string;
  channel: string;
  address: string;
  group_id: string;
  type: string;
  payload: Buffer;
  headers: Record<string, string>;
  record_key: string | null;
  partition: number | null;
  record_offset: string | null;
  error_name: string;
  error_message: string;
  error_stack: string | null;
  attempts: number;
  first_failure_at: Date;
  last_failure_at: Date;
  parked_at: Date;
}

function fromRow(row: Row): ParkedMessage {
  return Object.freeze({
    id: row.id,
    channel: row.channel,
    address: row.address,
    groupId: row.group_id,
    type: row.type,
    payload: new Uint8Array(row.payload),
    headers: row.headers,
    ...(row.record_key === null ? {} : { key: row.record_key }),
    ...(row.partition === null ? {} : { partition: row.partition }),
    ...(row.record_offset === null ? {} : { offset: row.record_offset }),
    error: { name: row.error_name, message: row.error_message, ...(row.error_stack === null ? {} : { stack: row.error_stack }) },
    attempts: row.attempts,
    firstFailureAt: row.first_failure_at,
    lastFailureAt: row.last_failure_at,
    parkedAt: row.parked_at,
  });
}

const FILTER = '($1::text IS NULL OR channel = $1) AND ($2::text IS NULL OR group_id = $2)';

export interface PostgresDeadLetterStoreOptions {
  /** End the pool (or client) on `close()` (default false: the pool is yours). */
  readonly closeOnClose?: boolean;
}

export class PostgresDeadLetterStore implements DeadLetterStore {
  readonly #db: PostgresQueryable;
  readonly #closeDb: boolean;

  constructor(db: PostgresQueryable, options: PostgresDeadLetterStoreOptions = {}) {
    this.#db = db;
    this.#closeDb = options.closeOnClose ?? false;
  }

  async park(request: ParkRequest, parkedAt: Date): Promise<ParkedMessage> {
    const id = randomUUID();
    try {
      const { rows } = await this.#db.query<Row>(
        `INSERT INTO keiyaku_dead_letters (id, channel, address, group_id, type, payload, headers, record_key, partition, record_offset,
           error_name, error_message, error_stack, attempts, first_failure_at, last_failure_at, parked_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17) RETURNING *`,
        [
          id,
          request.channel,
          request.address,
          request.groupId,
          request.type,
          Buffer.from(request.payload),
          JSON.stringify(request.headers),
          request.key ?? null,
          request.partition ?? null,
          request.offset ?? null,
          request.error.name,
          request.error.message,
          request.error.stack ?? null,
          request.attempts,
          request.firstFailureAt,
          request.lastFailureAt,
          parkedAt,
        ],
      );
      return fromRow(rows[0]!);
    } catch (error) {
      throw storeError(error, `parking a message of ${request.channel}`);
    }
  }

  async list(filter: DeadLetterFilter = {}): Promise<readonly ParkedMessage[]> {
    try {
      const { rows } = await this.#db.query<Row>(`SELECT * FROM keiyaku_dead_letters WHERE ${FILTER} ORDER BY seq`, [
        filter.channel ?? null,
        filter.groupId ?? null,
      ]);
      return rows.map(fromRow);
    } catch (error) {
      throw storeError(error, 'listing parked messages');
    }
  }

  async get(id: string): Promise<ParkedMessage | undefined> {
    try {
      const { rows } = await this.#db.query<Row>('SELECT * FROM keiyaku_dead_letters WHERE id = $1', [id]);
      return rows[0] === undefined ? undefined : fromRow(rows[0]);
    } catch (error) {
      throw storeError(error, `reading parked message ${id}`);
    }
  }

  async remove(id: string): Promise<boolean> {
    try {
      const result = await this.#db.query('DELETE FROM keiyaku_dead_letters WHERE id = $1', [id]);
      return (result.rowCount ?? 0) > 0;
    } catch (error) {
      throw storeError(error, `removing parked message ${id}`);
    }
  }

  async count(filter: DeadLetterFilter = {}): Promise<number> {
    try {
      const { rows } = await this.#db.query<{ n: number }>(`SELECT count(*)::int AS n FROM keiyaku_dead_letters WHERE ${FILTER}`, [
        filter.channel ?? null,
        filter.groupId ?? null,
      ]);
      return rows[0]!.n;
    } catch (error) {
      throw storeError(error, 'counting parked messages');
    }
  }

  async close(): Promise<void> {
    if (this.#closeDb) await this.#db.end();
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
