import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';

/** The server from the global setup (test/setup/postgres.ts), or the reason PostgreSQL tests are skipped. */
export const postgresUrl = inject('postgresUrl');
export const postgresSkipReason = inject('postgresSkipReason');

/** `describe` title suffix naming why the block is skipped (empty when PostgreSQL is there). */
export const postgresSkipNote = postgresSkipReason ? ` (${postgresSkipReason})` : '';

export interface FreshDatabase {
  /** Connection URL of the new database. */
  readonly url: string;
  /** Its name (`keiyaku_test_…`). */
  readonly name: string;
  /** A pool on it, closed by `drop()`. */
  readonly pool: pg.Pool;
  /** Closes the pool and drops the database (connections still open are terminated). */
  drop(): Promise<void>;
}

/**
 * Creates an empty database on the test server for one test file, so files never share tables,
 * rows or LISTEN channels. Call it in `beforeAll` and `drop()` it in `afterAll`.
 */
export async function freshDatabase(prefix = 'test'): Promise<FreshDatabase> {
  const name = `keiyaku_${prefix.replace(/[^a-z0-9_]/gi, '_').toLowerCase()}_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  const admin = new pg.Client({ connectionString: postgresUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(postgresUrl);
  url.pathname = `/${name}`;
  const pool = new pg.Pool({ connectionString: url.toString(), max: 4 });
  // A server restart in a fault test ends idle connections; the pool replaces them.
  pool.on('error', () => {});
  return {
    url: url.toString(),
    name,
    pool,
    async drop() {
      await pool.end();
      const client = new pg.Client({ connectionString: postgresUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}
