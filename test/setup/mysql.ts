/**
 * vitest global setup: a MySQL-compatible server for the tests that need one.
 * - MYSQL_URL set: use that server (MariaDB 10.6+ or MySQL 8.0+; the user may create databases).
 * - Else: MySQL tests skip with the printed reason — and under CI that is a failure instead.
 *   (A server is started with `scripts/mysql start`, which prints the URL to export.)
 */
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    mysqlUrl: string;
    mysqlSkipReason: string;
  }
}

export default function setup(project: TestProject): undefined {
  const given = process.env['MYSQL_URL'];
  if (given) {
    project.provide('mysqlUrl', given);
    project.provide('mysqlSkipReason', '');
    return undefined;
  }
  const reason = 'MySQL tests skipped: MYSQL_URL is not set (scripts/mysql start runs a MariaDB server and prints its URL)';
  if (process.env['CI']) throw new Error(`${reason}; under CI a real MySQL or MariaDB server is required`);
  process.stdout.write(`\n${reason}\n`);
  project.provide('mysqlUrl', '');
  project.provide('mysqlSkipReason', reason);
  return undefined;
}
