/**
 * The PostgreSQL a benchmark runs on: POSTGRES_URL, else `scripts/postgres start` on POSTGRES_PORT
 * (default: a free port), stopped afterwards; in it, a fresh database of its own, dropped afterwards.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from '../test/setup/ports.js';
import { createDatabase, root } from './fault-kit.js';

export async function benchDatabase(prefix: string): Promise<{ url: string; close(): Promise<void> }> {
  let serverUrl = process.env['POSTGRES_URL'];
  const env = { ...process.env, POSTGRES_PORT: process.env['POSTGRES_PORT'] ?? String(await freePort()) };
  const startedServer = !serverUrl;
  if (!serverUrl)
    serverUrl = execFileSync(join(root, 'scripts', 'postgres'), ['start'], { env, encoding: 'utf8' })
      .trim()
      .split('\n')
      .pop()!;
  const database = await createDatabase(serverUrl, prefix);
  return {
    url: database.url,
    async close() {
      await database.drop();
      if (startedServer) execFileSync(join(root, 'scripts', 'postgres'), ['stop'], { env, stdio: 'ignore' });
    },
  };
}
