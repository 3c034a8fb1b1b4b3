import { randomUUID } from 'node:crypto';
import { createMysqlPool, type MysqlPool } from '@keiyaku/mysql';
import mysql from 'mysql2/promise';
import { inject } from 'vitest';

/** The server from the global setup (test/setup/mysql.ts), or the reason MySQL tests are skipped. */
export const mysqlUrl = inject('mysqlUrl');
export const mysqlSkipReason = inject('mysqlSkipReason');

/** `describe` title suffix naming why the block is skipped (empty when MySQL is there). */
export const mysqlSkipNote = mysqlSkipReason ? ` (${mysqlSkipReason})` : '';

export interface FreshMysqlDatabase {
  /** Connection URL of the new database. */
  readonly url: string;
  /** Its name (`keiyaku_test_…`). */
  readonly name: string;
  /** A pool on it, closed by `drop()`. */
  readonly pool: MysqlPool;
  /** Closes the pool and drops the database. */
  drop(): Promise<void>;
}

async function admin<T>(fn: (connection: mysql.Connection) => Promise<T>): Promise<T> {
  const url = new URL(mysqlUrl);
  const connection = await mysql.createConnection({
    host: url.hostname,
    port: Number(url.port || 3306),
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
  });
  try {
    return await fn(connection);
  } finally {
    await connection.end();
  }
}

/**
 * Creates an empty database on the test server for one test file, so files (and several people
 * running tests against one server) never share tables or rows. Call it in `beforeAll` and
 * `drop()` it in `afterAll`.
 */
export async function freshMysqlDatabase(prefix = 'test'): Promise<FreshMysqlDatabase> {
  const name = `keiyaku_${prefix.replace(/[^a-z0-9_]/gi, '_').toLowerCase()}_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  await admin((c) => c.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`));
  const url = new URL(mysqlUrl);
  url.pathname = `/${name}`;
  const pool = createMysqlPool(url.toString(), { connectionLimit: 4 });
  return {
    url: url.toString(),
    name,
    pool,
    async drop() {
      await pool.end().catch(() => {});
      await admin((c) => c.query(`DROP DATABASE IF EXISTS \`${name}\``));
    },
  };
}
