/**
 * Which better-sqlite3 runs on which Node. `@keiyaku/sqlite` takes 12 or 13: 13 is built for
 * Node 22 and later, and on Node 20 opening a database with it crashes the process (SIGSEGV,
 * nothing to catch). npm installs 12 there (it picks the newest version whose `engines` accept the
 * Node in use); pnpm and yarn do not choose by `engines`, so the stores check before they open one.
 */
import { createRequire } from 'node:module';
import { KeiyakuError } from '@keiyaku/runtime/adapter';

/** The installed better-sqlite3 cannot run on this Node; the message names the version to install. */
export class SqliteDriverError extends KeiyakuError {
  override readonly name = 'SqliteDriverError';

  constructor(message: string) {
    super('sqlite_driver_unsupported', message);
  }
}

/** Throws {@link SqliteDriverError} when better-sqlite3 `driver` cannot run on Node `node` (both versions). */
export function checkSqliteDriver(node: string, driver: string): void {
  const major = (version: string): number => Number(version.split('.')[0]);
  if (major(driver) >= 13 && major(node) < 22) {
    throw new SqliteDriverError(
      `better-sqlite3 ${driver} needs Node 22 or later and crashes on Node ${node}: ` +
        'install better-sqlite3 12 beside @keiyaku/sqlite (npm i better-sqlite3@12), or run on Node 22 or later',
    );
  }
}

let checked = false;

/** {@link checkSqliteDriver} for the better-sqlite3 that `@keiyaku/sqlite` imports, once per process. */
export function assertSqliteDriverRuns(): void {
  if (checked) return;
  const { version } = createRequire(import.meta.url)('better-sqlite3/package.json') as { version: string };
  checkSqliteDriver(process.versions.node, version);
  checked = true;
}
