// Where set-aside items live and how they are read: parked messages of the dead-letter store and dead
// rows of the transactional outbox, in a SQLite file, a PostgreSQL or a MySQL database. The store packages are
// optional peers of keiyaku, loaded on use.
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { PostgresOutbox } from '@keiyaku/postgres';
import type { DeadLetterStore, ParkedMessage } from '@keiyaku/runtime';
import type { OutboxAdmin, OutboxRow } from '@keiyaku/runtime/adapter';
import type { SqliteOutbox } from '@keiyaku/sqlite';
import { DeadLettersError, reason } from './options.js';

/** One set-aside item, whatever its source. */
export interface DeadItem {
  /** `outbox:<row>` for an outbox row, else the parked message's id. */
  readonly id: string;
  readonly kind: 'parked' | 'outbox';
  readonly channel: string;
  readonly address: string;
  readonly groupId?: string;
  readonly type: string;
  readonly key?: string;
  readonly attempts: number;
  readonly error: string;
  /** When it was parked, or when the outbox row went dead. */
  readonly at: Date;
  readonly payload: Uint8Array;
  readonly headers: Readonly<Record<string, string>>;
  readonly details: Readonly<Record<string, unknown>>;
}

export interface DeadFilter {
  readonly channel?: string;
  readonly groupId?: string;
}

/** Where set-aside items live: the dead-letter store, the outbox, … */
export interface DeadSource {
  readonly kind: DeadItem['kind'];
  list(filter: DeadFilter): Promise<readonly DeadItem[]>;
  /** `id` as listed (with its prefix); undefined when this source does not have it. */
  get(id: string): Promise<DeadItem | undefined>;
  remove(item: DeadItem): Promise<boolean>;
}

function fromParked(p: ParkedMessage): DeadItem {
  return {
    id: p.id,
    kind: 'parked',
    channel: p.channel,
    address: p.address,
    groupId: p.groupId,
    type: p.type,
    ...(p.key === undefined ? {} : { key: p.key }),
    attempts: p.attempts,
    error: `${p.error.name}: ${p.error.message}`,
    at: p.parkedAt,
    payload: p.payload,
    headers: p.headers,
    details: {
      ...(p.partition === undefined ? {} : { partition: p.partition }),
      ...(p.offset === undefined ? {} : { offset: p.offset }),
      firstFailureAt: p.firstFailureAt.toISOString(),
      lastFailureAt: p.lastFailureAt.toISOString(),
      ...(p.error.stack === undefined ? {} : { stack: p.error.stack }),
    },
  };
}

export class ParkedSource implements DeadSource {
  readonly kind = 'parked';
  constructor(readonly store: DeadLetterStore) {}
  async list(filter: DeadFilter): Promise<readonly DeadItem[]> {
    return (await this.store.list(filter)).map(fromParked);
  }
  async get(id: string): Promise<DeadItem | undefined> {
    if (id.startsWith('outbox:')) return undefined;
    const parked = await this.store.get(id);
    return parked === undefined ? undefined : fromParked(parked);
  }
  remove(item: DeadItem): Promise<boolean> {
    return this.store.remove(item.id);
  }
}

const OUTBOX_PREFIX = 'outbox:';

function fromOutbox(row: OutboxRow): DeadItem {
  return {
    id: `${OUTBOX_PREFIX}${row.id}`,
    kind: 'outbox',
    channel: row.channel,
    address: row.address,
    type: row.type,
    ...(row.key === undefined ? {} : { key: row.key }),
    attempts: row.attempts,
    error: row.lastError ?? '',
    at: new Date(row.finishedAt ?? row.createdAt),
    payload: row.payload,
    headers: row.headers,
    details: { messageId: row.messageId, state: row.state, createdAt: new Date(row.createdAt).toISOString() },
  };
}

export class OutboxSource implements DeadSource {
  readonly kind = 'outbox';
  constructor(readonly outbox: OutboxAdmin) {}
  async list(filter: DeadFilter): Promise<readonly DeadItem[]> {
    // Outbox rows belong to no consumer group: a group filter leaves them out.
    if (filter.groupId !== undefined) return [];
    const rows = await this.outbox.list({
      state: 'dead',
      ...(filter.channel === undefined ? {} : { channel: filter.channel }),
      limit: 100_000,
    });
    return rows.map(fromOutbox);
  }
  async get(id: string): Promise<DeadItem | undefined> {
    if (!id.startsWith(OUTBOX_PREFIX)) return undefined;
    const local = id.slice(OUTBOX_PREFIX.length);
    if (!/^\d+$/.test(local)) return undefined;
    const row = await this.outbox.get(local);
    return row === undefined || row.state !== 'dead' ? undefined : fromOutbox(row);
  }
  remove(item: DeadItem): Promise<boolean> {
    return this.outbox.remove(item.id.slice(OUTBOX_PREFIX.length));
  }
  reset(item: DeadItem): Promise<boolean> {
    return this.outbox.reset(item.id.slice(OUTBOX_PREFIX.length));
  }
}

export interface OpenedStore {
  readonly description: string;
  readonly sources: readonly DeadSource[];
  close(): Promise<void>;
}

/** `postgres://user:secret@host/db` → `postgres://user@host/db` (also mysql://), for messages. */
function redact(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = '';
    return parsed.toString();
  } catch {
    return url;
  }
}

interface StorePackages {
  '@keiyaku/sqlite': typeof import('@keiyaku/sqlite');
  '@keiyaku/postgres': typeof import('@keiyaku/postgres');
  '@keiyaku/mysql': typeof import('@keiyaku/mysql');
  '@keiyaku/kafka': typeof import('@keiyaku/kafka');
}

/** Loads a store or transport package (optional peers of keiyaku); a missing one is named with its install command. */
export async function optionalPackage<N extends keyof StorePackages>(name: N, purpose: string): Promise<StorePackages[N]> {
  const specifier: string = name;
  try {
    return (await import(specifier)) as StorePackages[N];
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if ((code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && String((error as Error).message).includes(name))
      throw new DeadLettersError(`${purpose} needs the package ${name}: npm i -D ${name} (nothing changed)`);
    throw error;
  }
}

/**
 * An error a database driver raised (pg's DatabaseError carries a SQLSTATE code and a severity;
 * better-sqlite3's is a SqliteError; mysql2's carries a code and a SQLSTATE).
 */
export function isDriverError(error: unknown): boolean {
  const e = error as { name?: unknown; code?: unknown; severity?: unknown; sqlState?: unknown };
  return e?.name === 'SqliteError' || (typeof e?.code === 'string' && (typeof e?.severity === 'string' || typeof e?.sqlState === 'string'));
}

export async function openStore(store: string, cwd: string): Promise<OpenedStore> {
  if (/^postgres(ql)?:\/\//.test(store)) return openPostgres(store);
  if (/^(mysql|mariadb):\/\//.test(store)) return openMysql(store);
  return openSqliteFile(resolve(cwd, store), store);
}

async function openPostgres(url: string): Promise<OpenedStore> {
  const shown = redact(url);
  const { createPostgresPool, PostgresDeadLetterStore, PostgresOutbox } = await optionalPackage('@keiyaku/postgres', 'a postgres:// store');
  const pool = createPostgresPool(url, { max: 2, connectionTimeoutMillis: 5_000 });
  let tables: { dead: boolean; outbox: boolean };
  try {
    const { rows } = await pool.query<{ dead: boolean; outbox: boolean }>(
      "SELECT to_regclass('keiyaku_dead_letters') IS NOT NULL AS dead, to_regclass('keiyaku_outbox') IS NOT NULL AS outbox",
    );
    tables = rows[0]!;
  } catch (error) {
    await pool.end().catch(() => {});
    throw new DeadLettersError(`cannot reach PostgreSQL at ${shown}: ${reason(error)}`, error);
  }
  const sources: DeadSource[] = [];
  let outbox: PostgresOutbox | undefined;
  if (tables.dead) sources.push(new ParkedSource(new PostgresDeadLetterStore(pool)));
  if (tables.outbox) {
    outbox = new PostgresOutbox(pool);
    sources.push(new OutboxSource(outbox));
  }
  return opened(shown, sources, async () => {
    await outbox?.close().catch(() => {});
    await pool.end();
  });
}

async function openMysql(url: string): Promise<OpenedStore> {
  const shown = redact(url);
  const { createMysqlPool, MysqlDeadLetterStore, MysqlOutbox } = await optionalPackage('@keiyaku/mysql', 'a mysql:// store');
  let pool: ReturnType<typeof createMysqlPool>;
  let tables: Set<string>;
  try {
    pool = createMysqlPool(url, { connectionLimit: 2, connectTimeout: 5_000 });
  } catch (error) {
    throw new DeadLettersError(`cannot use ${shown}: ${reason(error)}`, error);
  }
  try {
    const [rows] = await pool.query(
      "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name IN ('keiyaku_dead_letters', 'keiyaku_outbox')",
    );
    tables = new Set((rows as { name: string }[]).map((r) => r.name));
  } catch (error) {
    await pool.end().catch(() => {});
    throw new DeadLettersError(`cannot reach MySQL at ${shown}: ${reason(error)}`, error);
  }
  const sources: DeadSource[] = [];
  if (tables.has('keiyaku_dead_letters')) sources.push(new ParkedSource(new MysqlDeadLetterStore(pool)));
  const outbox = tables.has('keiyaku_outbox') ? new MysqlOutbox(pool) : undefined;
  if (outbox !== undefined) sources.push(new OutboxSource(outbox));
  return opened(shown, sources, async () => {
    await outbox?.close().catch(() => {});
    await pool.end();
  });
}

/** The store with what it holds; a database without keiyaku's tables is closed and refused. */
async function opened(shown: string, sources: DeadSource[], close: () => Promise<void>): Promise<OpenedStore> {
  if (sources.length === 0) {
    await close();
    throw new DeadLettersError(
      `${shown} has no keiyaku dead-letter or outbox tables (keiyaku_dead_letters, keiyaku_outbox); is this the service's database?`,
    );
  }
  return { description: shown, sources, close };
}

async function openSqliteFile(path: string, shown: string): Promise<OpenedStore> {
  if (!existsSync(path))
    throw new DeadLettersError(`no SQLite database at ${shown} (for PostgreSQL pass a postgres://… URL, for MySQL a mysql://… URL)`);
  if (!statSync(path).isFile()) throw new DeadLettersError(`${shown} is not a file`);
  const { openSqlite, SqliteDeadLetterStore, SqliteOutbox } = await optionalPackage('@keiyaku/sqlite', 'a SQLite file');
  let db: ReturnType<typeof openSqlite>;
  let tables: Set<string>;
  try {
    db = openSqlite(path, { fileMustExist: true });
    tables = new Set(
      db
        .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'keiyaku_%'")
        .all()
        .map((r) => r.name),
    );
  } catch (error) {
    throw new DeadLettersError(`cannot read ${shown} as a SQLite database: ${reason(error)}`, error);
  }
  const sources: DeadSource[] = [];
  let outbox: SqliteOutbox | undefined;
  if (tables.has('keiyaku_dead_letters')) sources.push(new ParkedSource(new SqliteDeadLetterStore(db)));
  if (tables.has('keiyaku_outbox')) {
    outbox = new SqliteOutbox(db);
    sources.push(new OutboxSource(outbox));
  }
  return opened(shown, sources, async () => {
    if (db.open) db.close();
  });
}

export async function find(opened: OpenedStore, id: string): Promise<{ item: DeadItem; source: DeadSource }> {
  for (const source of opened.sources) {
    const item = await source.get(id);
    if (item !== undefined) return { item, source };
  }
  throw new DeadLettersError(
    `no parked message or dead outbox row with id ${id} in ${opened.description} (see keiyaku dead-letters list --store …)`,
  );
}
