/**
 * The SQLite dead-letter store (better-sqlite3): the embedded default. Parked messages
 * are durable across process restarts. Its table comes from `migrateSqlite(db)`.
 */
import { randomUUID } from 'node:crypto';
import type { DeadLetterFilter, DeadLetterStore, Logger, ParkedMessage, ParkRequest } from '@keiyaku/runtime/adapter';
import { KeiyakuError } from '@keiyaku/runtime/adapter';
import type Database from 'better-sqlite3';
import { openSqlite, prepareMigrated } from './event-store.js';
import { migrateSqlite } from './migrations.js';

interface Row {
  id: string;
  channel: string;
  address: string;
  group_id: string;
  type: string;
  payload: Buffer;
  headers: string;
  record_key: string | null;
  partition: number | null;
  record_offset: string | null;
  error_name: string;
  error_message: string;
  error_stack: string | null;
  attempts: number;
  first_failure_at: number;
  last_failure_at: number;
  parked_at: number;
  seq: number;
}

/** A stored record that cannot be read back (a column of the wrong type, headers that are not a JSON object of strings). */
export class DeadLetterRecordError extends KeiyakuError {
  override readonly name = 'DeadLetterRecordError';
  constructor(id: unknown, detail: string, cause?: unknown) {
    super('dead_letter_record_invalid', `dead-letter record ${JSON.stringify(String(id)).slice(0, 80)} cannot be read: ${detail}`, {
      retriable: false,
      cause,
    });
  }
}

function column<T>(row: Record<string, unknown>, name: string, ok: (v: unknown) => v is T, expected: string): T {
  const value = row[name];
  if (!ok(value))
    throw new DeadLetterRecordError(row['id'], `column ${name} is ${value === null ? 'null' : typeof value}, expected ${expected}`);
  return value;
}
const isString = (v: unknown): v is string => typeof v === 'string';
const isOptionalString = (v: unknown): v is string | null => v === null || typeof v === 'string';
const isInteger = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v);
const isOptionalInteger = (v: unknown): v is number | null => v === null || isInteger(v);
const isBlob = (v: unknown): v is Buffer => Buffer.isBuffer(v);
/** Milliseconds since the epoch that make a valid Date. */
const isTime = (v: unknown): v is number => isInteger(v) && Math.abs(v) <= 8.64e15;

/**
 * @internal Reads one row back into a parked message; a row that is not what `park` wrote
 * (edited or damaged store) is a {@link DeadLetterRecordError}, never a crash or a half-read record.
 */
export function parkedFromRow(input: unknown): ParkedMessage {
  if (typeof input !== 'object' || input === null) throw new DeadLetterRecordError(undefined, 'the row is not an object');
  const row = input as Record<string, unknown>;
  const id = column(row, 'id', isString, 'text');
  const headersText = column(row, 'headers', isString, 'text');
  let parsed: unknown;
  try {
    parsed = JSON.parse(headersText);
  } catch (cause) {
    throw new DeadLetterRecordError(id, 'column headers is not JSON', cause);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new DeadLetterRecordError(id, 'column headers is not a JSON object');
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(parsed)) {
    if (typeof value !== 'string') throw new DeadLetterRecordError(id, `header ${JSON.stringify(name)} is not a string`);
    Object.defineProperty(headers, name, { value, enumerable: true, writable: true, configurable: true });
  }
  const key = column(row, 'record_key', isOptionalString, 'text or null');
  const partition = column(row, 'partition', isOptionalInteger, 'integer or null');
  const offset = column(row, 'record_offset', isOptionalString, 'text or null');
  const stack = column(row, 'error_stack', isOptionalString, 'text or null');
  return Object.freeze({
    id,
    channel: column(row, 'channel', isString, 'text'),
    address: column(row, 'address', isString, 'text'),
    groupId: column(row, 'group_id', isString, 'text'),
    type: column(row, 'type', isString, 'text'),
    payload: new Uint8Array(column(row, 'payload', isBlob, 'blob')),
    headers,
    ...(key === null ? {} : { key }),
    ...(partition === null ? {} : { partition }),
    ...(offset === null ? {} : { offset }),
    error: {
      name: column(row, 'error_name', isString, 'text'),
      message: column(row, 'error_message', isString, 'text'),
      ...(stack === null ? {} : { stack }),
    },
    attempts: column(row, 'attempts', isInteger, 'integer'),
    firstFailureAt: new Date(column(row, 'first_failure_at', isTime, 'a time')),
    lastFailureAt: new Date(column(row, 'last_failure_at', isTime, 'a time')),
    parkedAt: new Date(column(row, 'parked_at', isTime, 'a time')),
  });
}

interface InsertParams {
  id: string;
  channel: string;
  address: string;
  groupId: string;
  type: string;
  payload: Buffer;
  headers: string;
  key: string | null;
  partition: number | null;
  offset: string | null;
  errorName: string;
  errorMessage: string;
  errorStack: string | null;
  attempts: number;
  firstFailureAt: number;
  lastFailureAt: number;
  parkedAt: number;
}

interface FilterParams {
  channel: string | null;
  groupId: string | null;
}

const FILTER = '(@channel IS NULL OR channel = @channel) AND (@groupId IS NULL OR group_id = @groupId)';

function filterParams(filter: DeadLetterFilter): FilterParams {
  return { channel: filter.channel ?? null, groupId: filter.groupId ?? null };
}

export class SqliteDeadLetterStore implements DeadLetterStore {
  readonly #db: Database.Database;
  readonly #insert: Database.Statement<[InsertParams]>;
  readonly #list: Database.Statement<[FilterParams], Row>;
  readonly #get: Database.Statement<[string], Row>;
  readonly #remove: Database.Statement<[string]>;
  readonly #count: Database.Statement<[FilterParams], { n: number }>;

  readonly #owned: boolean;

  /**
   * `database`: your better-sqlite3 database, migrated with `migrateSqlite(db)` (a missing table
   * throws StoreNotMigratedError); the store does not close it.
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
    this.#insert = prepareMigrated(
      this.#db,
      `INSERT INTO keiyaku_dead_letters (id, channel, address, group_id, type, payload, headers, record_key, partition, record_offset,
         error_name, error_message, error_stack, attempts, first_failure_at, last_failure_at, parked_at)
       VALUES (@id, @channel, @address, @groupId, @type, @payload, @headers, @key, @partition, @offset,
         @errorName, @errorMessage, @errorStack, @attempts, @firstFailureAt, @lastFailureAt, @parkedAt)`,
    );
    this.#list = prepareMigrated(this.#db, `SELECT * FROM keiyaku_dead_letters WHERE ${FILTER} ORDER BY seq`);
    this.#get = prepareMigrated(this.#db, 'SELECT * FROM keiyaku_dead_letters WHERE id = ?');
    this.#remove = prepareMigrated(this.#db, 'DELETE FROM keiyaku_dead_letters WHERE id = ?');
    this.#count = prepareMigrated(this.#db, `SELECT count(*) AS n FROM keiyaku_dead_letters WHERE ${FILTER}`);
  }

  /** Stores the record and returns it as {@link get} will read it back (frozen, copies of the request's values). */
  async park(request: ParkRequest, parkedAt: Date): Promise<ParkedMessage> {
    const id = randomUUID();
    this.#insert.run({
      id,
      channel: request.channel,
      address: request.address,
      groupId: request.groupId,
      type: request.type,
      payload: Buffer.from(request.payload),
      headers: JSON.stringify(request.headers),
      key: request.key ?? null,
      partition: request.partition ?? null,
      offset: request.offset ?? null,
      errorName: request.error.name,
      errorMessage: request.error.message,
      errorStack: request.error.stack ?? null,
      attempts: request.attempts,
      firstFailureAt: request.firstFailureAt.getTime(),
      lastFailureAt: request.lastFailureAt.getTime(),
      parkedAt: parkedAt.getTime(),
    });
    return Object.freeze({
      id,
      channel: request.channel,
      address: request.address,
      groupId: request.groupId,
      type: request.type,
      payload: new Uint8Array(request.payload),
      headers: { ...request.headers },
      ...(request.key === undefined ? {} : { key: request.key }),
      ...(request.partition === undefined ? {} : { partition: request.partition }),
      ...(request.offset === undefined ? {} : { offset: request.offset }),
      error: {
        name: request.error.name,
        message: request.error.message,
        ...(request.error.stack === undefined ? {} : { stack: request.error.stack }),
      },
      attempts: request.attempts,
      firstFailureAt: new Date(request.firstFailureAt.getTime()),
      lastFailureAt: new Date(request.lastFailureAt.getTime()),
      parkedAt: new Date(parkedAt.getTime()),
    });
  }

  async list(filter: DeadLetterFilter = {}): Promise<readonly ParkedMessage[]> {
    return this.#list.all(filterParams(filter)).map(parkedFromRow);
  }

  async get(id: string): Promise<ParkedMessage | undefined> {
    const row = this.#get.get(id);
    return row === undefined ? undefined : parkedFromRow(row);
  }

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
