/**
 * What the MySQL stores accept: a `mysql2/promise` Pool (they borrow a connection per operation)
 * or one connection. Errors are classified here: a connection that failed (retriable on a new
 * one), a deadlock or lock wait timeout (retriable), a missing keiyaku table
 * ({@link StoreNotMigratedError}), any other SQL error (not retriable).
 */

import { StoreError, StoreNotMigratedError } from '@keiyaku/runtime/adapter';
import mysql from 'mysql2/promise';

export type MysqlPool = mysql.Pool;
export type MysqlConnection = mysql.PoolConnection | mysql.Connection;
export type MysqlQueryable = MysqlPool | MysqlConnection;

/** Options of {@link createMysqlPool}: mysql2's pool options, without the URL's parts. */
export type MysqlPoolOptions = Omit<mysql.PoolOptions, 'uri' | 'host' | 'port' | 'user' | 'password' | 'database'>;

/**
 * A `mysql2` pool to `connectionString` (`mysql://user:password@host:port/database`). The
 * settings the stores rely on are fixed: utf8mb4 on the connection and BIGINT values as numbers
 * (positions and times in ms stay below 2^53).
 */
export function createMysqlPool(connectionString: string, options: MysqlPoolOptions = {}): mysql.Pool {
  const url = parseMysqlUrl(connectionString);
  return mysql.createPool({
    connectionLimit: 10,
    ...options,
    host: url.host,
    port: url.port,
    user: url.user,
    password: url.password,
    ...(url.database === undefined ? {} : { database: url.database }),
    charset: 'utf8mb4_bin',
    supportBigNumbers: true,
    bigNumberStrings: false,
  });
}

/** The parts of a `mysql://` (or `mariadb://`) URL; a malformed one is a RangeError that never shows the password. */
export function parseMysqlUrl(connectionString: string): {
  host: string;
  port: number;
  user: string;
  password: string;
  database: string | undefined;
} {
  let url: URL;
  try {
    url = new URL(connectionString);
  } catch {
    throw new RangeError('a MySQL connection string is a URL: mysql://user:password@host:port/database');
  }
  if (url.protocol !== 'mysql:' && url.protocol !== 'mariadb:')
    throw new RangeError(`a MySQL connection string starts with mysql://, not ${url.protocol}//`);
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  return {
    host: url.hostname.replace(/^\[(.*)\]$/, '$1') || 'localhost',
    port: url.port === '' ? 3306 : Number(url.port),
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    database: database === '' ? undefined : database,
  };
}

/** The URL without its password (for messages and descriptions). */
export function redactMysqlUrl(connectionString: string): string {
  try {
    const url = new URL(connectionString);
    if (url.password !== '') url.password = '***';
    return url.toString();
  } catch {
    return 'mysql://(unparsable URL)';
  }
}

/** True for a `mysql2` promise Pool (by shape, so a pool of another installed copy counts too). */
export function isPool(db: MysqlQueryable): db is mysql.Pool {
  return typeof (db as mysql.Pool).getConnection === 'function';
}

/** Runs `fn` on one connection: borrowed from the pool and released (destroyed when it failed), or the given one itself. */
export async function withConnection<T>(db: MysqlQueryable, fn: (connection: MysqlConnection) => Promise<T>): Promise<T> {
  if (!isPool(db)) return fn(db);
  const connection = await db.getConnection();
  let broken = false;
  try {
    return await fn(connection);
  } catch (error) {
    if (isConnectionError(error)) broken = true;
    throw error;
  } finally {
    if (broken) connection.destroy();
    else connection.release();
  }
}

/** Runs `fn` inside START TRANSACTION … COMMIT (ROLLBACK when it throws). */
export async function inTransaction<T>(db: MysqlQueryable, fn: (connection: MysqlConnection) => Promise<T>): Promise<T> {
  return withConnection(db, async (connection) => {
    await connection.query('START TRANSACTION');
    try {
      const result = await fn(connection);
      await connection.query('COMMIT');
      return result;
    } catch (error) {
      await connection.query('ROLLBACK').catch(() => {});
      throw error;
    }
  });
}

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'ER_SERVER_SHUTDOWN',
  'ER_CON_COUNT_ERROR',
  'ER_CONNECTION_KILLED',
  'ER_QUERY_INTERRUPTED',
  'CR_SERVER_GONE_ERROR',
  'CR_SERVER_LOST',
]);

/** Server error numbers of a lost or refused connection: 1040 too many, 1053 shutdown, 1927 killed, 2006/2013 gone. */
const CONNECTION_ERRNOS = new Set([1040, 1053, 1927, 2002, 2003, 2006, 2013]);

/** True for errors that mean the connection or the server went away (worth retrying on a new connection). */
export function isConnectionError(error: unknown): boolean {
  const e = error as { code?: unknown; errno?: unknown; sqlState?: unknown; fatal?: unknown } | null;
  if (e === null || typeof e !== 'object') return false;
  if (typeof e.code === 'string' && CONNECTION_CODES.has(e.code)) return true;
  if (typeof e.errno === 'number' && CONNECTION_ERRNOS.has(e.errno)) return true;
  if (typeof e.sqlState === 'string' && e.sqlState.startsWith('08')) return true;
  if (e.fatal === true) return true;
  const message = error instanceof Error ? error.message : '';
  return /connection is in closed state|Pool is closed|Connection lost|server has gone away/i.test(message);
}

/** True for a deadlock (1213) or a lock wait timeout (1205): the transaction was rolled back and may simply run again. */
export function isLockConflict(error: unknown): boolean {
  const errno = (error as { errno?: unknown } | null)?.errno;
  return errno === 1213 || errno === 1205;
}

/** The table a "no such table" error (1146, ER_NO_SUCH_TABLE) names, else undefined. */
export function missingTable(error: unknown): string | undefined {
  if (!(error instanceof Error) || (error as { errno?: unknown }).errno !== 1146) return undefined;
  const named = /Table '(?:[^'.]+\.)?([^']+)' doesn't exist/.exec(error.message)?.[1];
  return named ?? 'keiyaku_…';
}

/**
 * Maps a `mysql2` error to a keiyaku error: a missing keiyaku table to {@link StoreNotMigratedError},
 * anything else to a {@link StoreError} (retriable when the connection failed or a lock conflict
 * rolled the statement back). keiyaku's own typed errors pass through unchanged.
 */
export function storeError(error: unknown, doing: string): Error {
  const table = missingTable(error);
  if (table !== undefined) return new StoreNotMigratedError(table, 'migrateMysql(pool) from @keiyaku/mysql', error);
  if (error instanceof Error && /^[A-Z]\w*Error$/.test(error.name) && typeof (error as { retriable?: unknown }).retriable === 'boolean')
    return error;
  const reason = error instanceof Error ? error.message : String(error);
  return new StoreError(`MySQL: ${doing} failed: ${reason}`, {
    cause: error,
    retriable: isConnectionError(error) || isLockConflict(error),
  });
}

/** Rows of a SELECT through `db` (a pool or a connection), with `?` placeholders. */
export async function selectRows<R>(db: MysqlQueryable, sql: string, values: readonly unknown[] = []): Promise<R[]> {
  const [rows] = await db.query(sql, values as unknown[]);
  return rows as R[];
}

/** Rows a statement changed (INSERT/UPDATE/DELETE) through `db`. */
export async function affectedRows(db: MysqlQueryable, sql: string, values: readonly unknown[] = []): Promise<number> {
  const [result] = await db.query(sql, values as unknown[]);
  return (result as mysql.ResultSetHeader).affectedRows;
}
