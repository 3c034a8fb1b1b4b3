// `deadLetters.store: mysql` / KEIYAKU_DEAD_LETTERS=mysql: validated without a server (secrets never
// shown), and built against the real server (MariaDB in CI) from the environment.
import { MysqlDeadLetterStore } from '@keiyaku/mysql';
import { ConfigurationError, configure, describeConfig, resolveConfig } from '@keiyaku/runtime/config';
import { hostileParkRequest } from '@keiyaku/runtime/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FreshMysqlDatabase, freshMysqlDatabase, mysqlSkipNote, mysqlUrl } from './mysql-env.js';

const secret = 'Sup3r-Secret-Mysql';

function problemsOf(run: () => unknown): { key: string; message: string }[] {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigurationError) return error.problems.map((p) => ({ key: p.key, message: p.message }));
    throw error;
  }
  return [];
}

describe('the mysql dead-letter store in the configuration', () => {
  it('is chosen by object or environment, with its URL required and checked, the value never shown', () => {
    const fromObject = resolveConfig({
      deadLetters: { store: 'mysql', connectionString: `mysql://u:${secret}@db:3306/app`, migrate: true },
    });
    expect(fromObject.deadLetters).toEqual({ store: 'mysql', connectionString: `mysql://u:${secret}@db:3306/app`, migrate: true });
    const fromEnv = resolveConfig(undefined, {
      env: { KEIYAKU_DEAD_LETTERS: 'mysql', KEIYAKU_DEAD_LETTERS_CONNECTION_STRING: `mariadb://u:${secret}@db/app` },
    });
    expect(fromEnv.deadLetters).toEqual({ store: 'mysql', connectionString: `mariadb://u:${secret}@db/app`, migrate: false });
    expect(problemsOf(() => resolveConfig(undefined, { env: { KEIYAKU_DEAD_LETTERS: 'mysql' } }))).toEqual([
      { key: 'KEIYAKU_DEAD_LETTERS_CONNECTION_STRING', message: 'is required with store mysql (mysql://user:password@host:port/database)' },
    ]);
    const wrong = problemsOf(() =>
      resolveConfig({ deadLetters: { store: 'mysql', connectionString: `postgres://u:${secret}@db/app`, schema: 'keiyaku' } }),
    );
    expect(wrong).toEqual([
      { key: 'deadLetters.schema', message: 'is only used with store postgres (MySQL: name the database in the URL)' },
      { key: 'deadLetters.connectionString', message: 'must be a mysql:// or mariadb:// URL (value not shown)' },
    ]);
    expect(JSON.stringify(wrong)).not.toContain(secret);
    expect(
      problemsOf(() => resolveConfig({ deadLetters: { store: 'sqlite', path: 'x.db', connectionString: `mysql://u:${secret}@h/d` } })),
    ).toEqual([{ key: 'deadLetters.connectionString', message: 'is only used with store postgres or mysql' }]);
  });

  it('describeConfig hides the connection string', () => {
    const described = describeConfig(resolveConfig({ deadLetters: { store: 'mysql', connectionString: `mysql://u:${secret}@h/db` } }));
    expect(described['deadLetters']).toEqual({ store: 'mysql', connectionString: '(secret)', migrate: false });
    expect(JSON.stringify(described)).not.toContain(secret);
  });
});

(mysqlUrl === '' ? describe.skip : describe)(`configure() builds the MySQL dead-letter store (real server)${mysqlSkipNote}`, () => {
  let database: FreshMysqlDatabase;
  beforeAll(async () => {
    database = await freshMysqlDatabase('config');
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('without migrate an unmigrated database fails the first use; with it the store parks, and the record outlives the store', async () => {
    const env = { KEIYAKU_DEAD_LETTERS: 'mysql', KEIYAKU_DEAD_LETTERS_CONNECTION_STRING: database.url };
    const unmigrated = await configure(undefined, { env });
    await expect(unmigrated.deadLetters.count()).rejects.toMatchObject({ name: 'StoreNotMigratedError' });
    await unmigrated.deadLetters.close?.();
    await unmigrated.transport.close();

    const parts = await configure(undefined, { env: { ...env, KEIYAKU_DEAD_LETTERS_MIGRATE: 'true' } });
    expect(parts.deadLetters).toBeInstanceOf(MysqlDeadLetterStore);
    const request = hostileParkRequest('config.mysql', 1);
    const parked = await parts.deadLetters.park(request, new Date(Date.UTC(2026, 0, 1)));
    await parts.deadLetters.close?.();
    await parts.transport.close();
    const [rows] = await database.pool.query('SELECT id FROM keiyaku_dead_letters');
    expect(rows).toEqual([{ id: parked.id }]);
    const again = await configure(undefined, { env });
    expect(await again.deadLetters.get(parked.id)).toEqual(parked);
    await again.deadLetters.close?.();
    await again.transport.close();
  });
});
