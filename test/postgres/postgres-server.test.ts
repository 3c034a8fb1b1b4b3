import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FreshDatabase, freshDatabase, postgresSkipNote, postgresUrl } from './postgres-env.js';

(postgresUrl === '' ? describe.skip : describe)(`the test PostgreSQL server${postgresSkipNote}`, () => {
  let a: FreshDatabase;
  let b: FreshDatabase;
  beforeAll(async () => {
    a = await freshDatabase('server_a');
    b = await freshDatabase('server_b');
  });
  afterAll(async () => {
    await a?.drop();
    await b?.drop();
  });

  it('is a real PostgreSQL reachable at the provided URL', async () => {
    const { rows } = await a.pool.query<{ version: string }>('SELECT version() AS version');
    expect(rows[0]!.version).toMatch(/^PostgreSQL \d+/);
  });

  it('gives each caller its own database, so tables never collide', async () => {
    await a.pool.query('CREATE TABLE t (v int)');
    await a.pool.query('INSERT INTO t VALUES (1)');
    await expect(b.pool.query('SELECT * FROM t')).rejects.toThrow(/relation "t" does not exist/);
    const { rows } = await a.pool.query<{ current_database: string }>('SELECT current_database()');
    expect(rows[0]!.current_database).toBe(a.name);
  });

  it('drops the database afterwards', async () => {
    const c = await freshDatabase('server_c');
    await c.drop();
    const { rows } = await a.pool.query('SELECT 1 FROM pg_database WHERE datname = $1', [c.name]);
    expect(rows).toHaveLength(0);
  });
});
