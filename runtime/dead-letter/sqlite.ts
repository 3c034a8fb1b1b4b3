/**
 * The SQLite dead-letter store (better-sqlite3): the embedded default. Parked messages
 * are durable across process restarts.
 */
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import type { DeadLetterFilter, DeadLetterStore, ParkedMessage, ParkRequest } from './store.js';

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

const SCHEMA = `
CREATE TABLE IF NOT EXISTS keiyaku_dead_letters (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  channel TEXT NOT NULL,
  address TEXT NOT NULL,
  group_id TEXT NOT NULL,
  type TEXT NOT NULL,
  payload BLOB NOT NULL,
  headers TEXT NOT NULL,
  record_key TEXT,
  partition INTEGER,
  record_offset TEXT,
  error_name TEXT NOT NULL,
  error_message TEXT NOT NULL,
  error_stack TEXT,
  attempts INTEGER NOT NULL,
  first_failure_at INTEGER NOT NULL,
  last_failure_at INTEGER NOT NULL,
  parked_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS keiyaku_dead_letters_channel ON keiyaku_dead_letters (channel, group_id);
`;

function fromRow(row: Row): ParkedMessage {
  return Object.freeze({
    id: row.id,
    channel: row.channel,
    address: row.address,
    groupId: row.group_id,
    type: row.type,
    payload: new Uint8Array(row.payload),
    headers: JSON.parse(row.headers) as Record<string, string>,
    ...(row.record_key === null ? {} : { key: row.record_key }),
    ...(row.partition === null ? {} : { partition: row.partition }),
    ...(row.record_offset === null ? {} : { offset: row.record_offset }),
    error: { name: row.error_name, message: row.error_message, ...(row.error_stack === null ? {} : { stack: row.error_stack }) },
    attempts: row.attempts,
    firstFailureAt: new Date(row.first_failure_at),
    lastFailureAt: new Date(row.last_failure_at),
    parkedAt: new Date(row.parked_at),
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

  /** `path` is a file (created if missing) or `:memory:`. */
  constructor(path: string) {
    this.#db = new Database(path);
    this.#db.pragma('journal_mode = WAL');
    this.#db.pragma('synchronous = NORMAL');
    this.#db.exec(SCHEMA);
    this.#insert = this.#db.prepare(
      `INSERT INTO keiyaku_dead_letters (id, channel, address, group_id, type, payload, headers, record_key, partition, record_offset,
         error_name, error_message, error_stack, attempts, first_failure_at, last_failure_at, parked_at)
       VALUES (@id, @channel, @address, @groupId, @type, @payload, @headers, @key, @partition, @offset,
         @errorName, @errorMessage, @errorStack, @attempts, @firstFailureAt, @lastFailureAt, @parkedAt)`,
    );
    this.#list = this.#db.prepare(`SELECT * FROM keiyaku_dead_letters WHERE ${FILTER} ORDER BY seq`);
    this.#get = this.#db.prepare('SELECT * FROM keiyaku_dead_letters WHERE id = ?');
    this.#remove = this.#db.prepare('DELETE FROM keiyaku_dead_letters WHERE id = ?');
    this.#count = this.#db.prepare(`SELECT count(*) AS n FROM keiyaku_dead_letters WHERE ${FILTER}`);
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
    return this.#list.all(filterParams(filter)).map(fromRow);
  }

  async get(id: string): Promise<ParkedMessage | undefined> {
    const row = this.#get.get(id);
    return row === undefined ? undefined : fromRow(row);
  }

  async remove(id: string): Promise<boolean> {
    return this.#remove.run(id).changes > 0;
  }

  async count(filter: DeadLetterFilter = {}): Promise<number> {
    return this.#count.get(filterParams(filter))!.n;
  }

  async close(): Promise<void> {
    if (this.#db.open) this.#db.close();
  }
}
