// Fault test: the MySQL server SIGKILLed and restarted under a live pool. While it is down, every
// store call fails with a retriable StoreError (a connection error, not a SQL one); after the
// restart the same pool reconnects and the stores carry on with every committed row kept.
// Runs its own server (scripts/mysql on MYSQL_FAULT_PORT, else a free port) so other test files
// never see the outage.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { createMysqlPool, isConnectionError, MysqlDeadLetterStore, MysqlEventStore, migrateMysql } from '@keiyaku/mysql';
import { StoreError } from '@keiyaku/runtime';
import { sampleParkRequest } from '@keiyaku/runtime/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers.js';
import { portFromEnv } from '../setup/ports.js';
import { mysqlSkipNote, mysqlUrl } from './mysql-env.js';

const port = await portFromEnv('MYSQL_FAULT_PORT');
// The script's own state directory for that port (stop deletes it).
const env = { ...process.env, MYSQL_PORT: port };
const script = (command: string): string =>
  execFileSync(join(repoRoot, 'scripts', 'mysql'), [command], {
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 120_000,
  }).trim();

let started = false;
afterAll(() => {
  if (started) script('stop');
});

async function failure(run: () => Promise<unknown>): Promise<unknown> {
  return run().then(
    () => undefined,
    (error: unknown) => error,
  );
}

(mysqlUrl === '' ? describe.skip : describe)(`MySQL killed and restarted under a live pool${mysqlSkipNote}`, () => {
  it('fails retriably while the server is down, then the same pool reconnects with every committed row kept', async () => {
    const url = script('start').split('\n').pop()!;
    started = true;
    const pool = createMysqlPool(url, { connectionLimit: 3, connectTimeout: 2_000 });
    try {
      await migrateMysql(pool);
      const events = new MysqlEventStore<{ type: string; n: number }>(pool);
      const deadLetters = new MysqlDeadLetterStore(pool);
      await events.append('book-1', [
        { type: 'Happened', n: 1 },
        { type: 'Happened', n: 2 },
      ]);
      const parked = await deadLetters.park(sampleParkRequest('fault', 1), new Date(Date.UTC(2026, 0, 1)));

      script('kill');
      for (const run of [
        () => events.append('book-1', [{ type: 'Happened', n: 3 }], { expectedVersion: 2 }),
        () => events.readStream('book-1'),
        () => deadLetters.count(),
      ]) {
        const error = await failure(run);
        expect(error).toBeInstanceOf(StoreError);
        expect((error as StoreError).retriable).toBe(true);
        expect(isConnectionError((error as Error).cause)).toBe(true);
      }

      script('restart');
      const [third] = await events.append('book-1', [{ type: 'Happened', n: 3 }], { expectedVersion: 2 });
      expect(third!.position).toBe(3);
      expect((await events.readStream('book-1')).map((e) => e.event.n)).toEqual([1, 2, 3]);
      expect(await deadLetters.get(parked.id)).toEqual(parked);
    } finally {
      await pool.end().catch(() => {});
    }
  }, 300_000);
});
