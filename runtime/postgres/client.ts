/** What the PostgreSQL stores accept: a `pg` Pool (they borrow a client per operation) or one client. */

import { StoreError, StoreNotMigratedError } from '@keiyaku/runtime/adapter';
import pg from 'pg';

export type PostgresQueryable = pg.Pool | pg.PoolClient | pg.Client;

/**
 * A `pg` pool to `connectionString`. An idle connection the server drops emits `error` on the
 * pool; that is ignored here (the next query reconnects) instead of crashing the process.
 */
export function createPostgresPool(connectionString: string, options: Omit<pg.PoolConfig, 'connectionString'> = {}): pg.Pool {
  const pool = new pg.Pool({ connectionString, ...options });
  pool.on('error', () => undefined);
  return pool;
}

/** True for a `pg` Pool (by shape, so a pool of another installed copy of `pg` counts too). */
export function isPool(db: PostgresQueryable): db is pg.Pool {
  return typeof (db as pg.Pool).totalCount === 'number' && typeof (db as pg.Pool).idleCount === 'number';
}

/** Runs `fn` on one client: borrowed from the pool and released, or the given client itself. */
export async function withClient<T>(db: PostgresQueryable, fn: (client: pg.PoolClient | pg.Client) => Promise<T>): Promise<T> {
  if (!isPool(db)) return fn(db);
  const client = await db.connect();
  let broken: Error | undefined;
  // A server that goes away between two queries makes the client emit 'error'; the next query fails instead.
  const onError = (error: Error): void => {
    broken = error;
  };
  client.on('error', onError);
  try {
    return await fn(client);
  } catch (error) {
    // A connection that failed mid-transaction is not returned to the pool.
    if (isConnectionError(error)) broken = error as Error;
    throw error;
  } finally {
    client.release(broken);
    // A destroyed client keeps the listener, so a late error on it is not unhandled.
    if (broken === undefined) client.off('error', onError);
  }
}

/** Runs `fn` inside BEGIN … COMMIT (ROLLBACK when it throws). */
export async function inTransaction<T>(db: PostgresQueryable, fn: (client: pg.PoolClient | pg.Client) => Promise<T>): Promise<T> {
  return withClient(db, async (client) => {
    await client.query('BEGIN');
    try {
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    }
  });
}

/** True for errors that mean the connection or the server went away (worth retrying on a new connection). */
export function isConnectionError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') {
    // 08: connection exception; 57P01..57P03: admin shutdown, crash shutdown, cannot connect now.
    if (code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03') return true;
    if (code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === 'EPIPE' || code === 'ETIMEDOUT') return true;
  }
  const message = error instanceof Error ? error.message : '';
  return /Connection terminated|connection.*(ended|closed)|Client has encountered a connection error|not queryable/i.test(message);
}

/**
 * Maps a `pg` error to a keiyaku error: a missing keiyaku table to {@link StoreNotMigratedError},
 * anything else to a {@link StoreError} (retriable when the connection failed).
 */
export function storeError(error: unknown, doing: string): Error {
  if (error instanceof Error && (error as { code?: unknown }).code === '42P01') {
    const table = /relation "([^"]+)"/.exec(error.message)?.[1] ?? 'keiyaku_…';
    return new StoreNotMigratedError(table, 'migratePostgres(pool) from @keiyaku/postgres', error);
  }
  if (error instanceof Error && /^[A-Z]\w*Error$/.test(error.name) && typeof (error as { retriable?: unknown }).retriable === 'boolean')
    return error;
  const reason = error instanceof Error ? error.message : String(error);
  return new StoreError(`PostgreSQL: ${doing} failed: ${reason}`, { cause: error, retriable: isConnectionError(error) });
}
