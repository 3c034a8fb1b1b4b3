/**
 * The MySQL outbox's writer: the rows of one channel inserted with the caller's connection, inside
 * its transaction (a prepared single-row `INSERT`, or one multi-row `INSERT` in order), and the
 * lane a key hashes to. `MysqlOutbox.channel(...)` makes them.
 */
import type { AnyContractMessage, EventMapper, HeadersOf } from '@keiyaku/runtime/adapter';
import {
  type OutboxEncoder,
  type OutboxEventsOptions,
  type OutboxRecord,
  type OutboxWriteOptions,
  outboxNotMigrated,
} from '@keiyaku/runtime/adapter';
import { MYSQL_OUTBOX_LANE_COUNT } from './outbox-schema.js';

/** MySQL's error number for a missing table. */
const ER_NO_SUCH_TABLE = 1146;

/** What a writer needs of the caller's connection: mysql2's promise `Connection` and `PoolConnection` have it. */
export interface MysqlOutboxConnection {
  query(sql: string, values?: unknown): Promise<unknown>;
  execute(sql: string, values?: unknown): Promise<unknown>;
}

/** FNV-1a (32 bit) of the key's UTF-16 code units, as PostgreSQL's outbox hashes keys: stable across processes and releases. */
export function mysqlOutboxLane(key: string | undefined): number {
  if (key === undefined) return Math.floor(Math.random() * MYSQL_OUTBOX_LANE_COUNT);
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    hash ^= key.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % MYSQL_OUTBOX_LANE_COUNT;
}

/** The `errno` of a mysql2 error, if any. */
export function errno(error: unknown): number | undefined {
  const n = (error as { errno?: unknown } | null)?.errno;
  return typeof n === 'number' ? n : undefined;
}

/** Rethrows a missing-table error as the outbox's typed `outbox_not_migrated`; anything else as it is. */
export function notMigrated(cause: unknown): never {
  if (errno(cause) === ER_NO_SUCH_TABLE) throw outboxNotMigrated('outbox.migrate() (or MYSQL_OUTBOX_SCHEMA in your migrations)', cause);
  throw cause;
}

/** The payload as a `Buffer` over the same bytes (what mysql2 sends as a binary parameter). */
const buffer = (r: OutboxRecord): Buffer => Buffer.from(r.payload.buffer, r.payload.byteOffset, r.payload.byteLength);

const INSERT_COLUMNS = 'message_id, channel, address, partition_key, lane, type, payload, headers, created_at';

/** The single-row INSERT: a prepared statement, parsed once per connection (mysql2 keeps it). */
const INSERT_ONE = `INSERT INTO keiyaku_outbox (${INSERT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`;

const values = (r: OutboxRecord): unknown[] => [
  r.messageId,
  r.channel,
  r.address,
  r.key ?? null,
  mysqlOutboxLane(r.key),
  r.type,
  buffer(r),
  JSON.stringify(r.headers),
  r.createdAt,
];

/** Writes one channel's contract messages into the outbox with the caller's connection, inside its transaction. */
export class MysqlOutboxChannel<M extends AnyContractMessage> {
  readonly encoder: OutboxEncoder<M>;
  readonly #wrote: () => void;

  constructor(encoder: OutboxEncoder<M>, wrote: () => void = () => undefined) {
    this.encoder = encoder;
    this.#wrote = wrote;
  }

  /** Writes `message` with `tx` (a connection inside its transaction); rejects with the codec's error for an invalid message, before any query. */
  async write<T extends M>(tx: MysqlOutboxConnection, message: T, options?: OutboxWriteOptions<HeadersOf<T>>): Promise<void> {
    // A channel framed for a Schema Registry reads its schema id first (once per address and type).
    const prepared = this.encoder.prepareOne(message, options as OutboxWriteOptions<HeadersOf<M>> | undefined);
    if (prepared !== undefined) await prepared;
    await this.insert(tx, [this.encoder.encode(message, options)]);
  }

  /** Writes each message (or `[message, options]`) in order, in one statement; resolves to how many. */
  async writeMany(tx: MysqlOutboxConnection, items: Iterable<M | readonly [M, OutboxWriteOptions<HeadersOf<M>>]>): Promise<number> {
    const list = [...items];
    const prepared = this.encoder.prepareItems(list);
    if (prepared !== undefined) await prepared;
    return this.insert(tx, this.encoder.encodeMany(list));
  }

  /** Maps domain events through `mapper` (null keeps one internal) and writes the resulting messages; resolves to how many. */
  async writeEvents<D>(
    tx: MysqlOutboxConnection,
    mapper: EventMapper<D, M>,
    events: readonly D[],
    options: OutboxEventsOptions,
  ): Promise<number> {
    const prepared = this.encoder.prepare(options.address);
    if (prepared !== undefined) await prepared;
    return this.insert(tx, this.encoder.encodeEvents(mapper, events, options));
  }

  /** Readies a channel framed for a Schema Registry (its schema ids on `address`); `write` does it itself. */
  async prepare(address?: string): Promise<void> {
    await this.encoder.prepare(address);
  }

  /** Inserts already encoded records: one prepared statement for one row, one multi-row INSERT (rows in order) for several. */
  async insert(tx: MysqlOutboxConnection, records: readonly OutboxRecord[]): Promise<number> {
    if (records.length === 0) return 0;
    try {
      if (records.length === 1) await tx.execute(INSERT_ONE, values(records[0]!));
      else await tx.query(`INSERT INTO keiyaku_outbox (${INSERT_COLUMNS}) VALUES ?`, [records.map(values)]);
    } catch (error) {
      notMigrated(error);
    }
    this.#wrote();
    return records.length;
  }
}
