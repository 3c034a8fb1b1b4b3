import { createRequire } from 'node:module';
import { SqliteDriverError } from '@keiyaku/sqlite';
import { describe, expect, it } from 'vitest';
import { assertSqliteDriverRuns, checkSqliteDriver } from '../../runtime/sqlite/driver.js';

describe('the better-sqlite3 of @keiyaku/sqlite on the Node in use', () => {
  it('refuses better-sqlite3 13 on Node 20 (it would crash the process) with the version to install', () => {
    const refused = (() => {
      try {
        checkSqliteDriver('20.20.2', '13.2.0');
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(refused).toBeInstanceOf(SqliteDriverError);
    expect(refused).toMatchObject({ code: 'sqlite_driver_unsupported' });
    expect((refused as Error).message).toMatch(/better-sqlite3 13\.2\.0 needs Node 22 .*\(npm i better-sqlite3@12/);
  });

  it('accepts 12 on Node 20 and on later lines, and 13 from Node 22', () => {
    for (const [node, driver] of [
      ['20.19.0', '12.6.2'],
      ['22.12.0', '12.11.1'],
      ['22.12.0', '13.2.0'],
      ['26.12.1', '13.2.0'],
    ] as const) {
      expect(() => checkSqliteDriver(node, driver)).not.toThrow();
    }
  });

  it('passes for the better-sqlite3 installed here, which then opens a database', async () => {
    const { version } = createRequire(import.meta.url)('better-sqlite3/package.json') as { version: string };
    expect(version).toMatch(process.versions.node.startsWith('20.') ? /^12\./ : /^1[23]\./);
    expect(() => assertSqliteDriverRuns()).not.toThrow();
    const { openSqlite } = await import('@keiyaku/sqlite');
    expect(openSqlite(':memory:').prepare('SELECT 1 AS one').get()).toEqual({ one: 1 });
  });
});
