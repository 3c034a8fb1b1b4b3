// A child process of dead-letter-claim-processes.test.ts: opens a dead-letter store on the database
// it is given, says "ready", waits for a line on stdin, then claims each record `claims` times at
// once and prints, per record, how many of its claims won.
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { PostgresDeadLetterStore } from '@keiyaku/postgres';
import type { DeadLetterStore } from '@keiyaku/runtime';
import { openSqlite, SqliteDeadLetterStore } from '@keiyaku/sqlite';
import pg from 'pg';

const [kind, location, ids, claims] = process.argv.slice(2) as [string, string, string, string];
const db = kind === 'sqlite' ? openSqlite(location) : undefined;
const store: DeadLetterStore =
  db === undefined
    ? new PostgresDeadLetterStore(new pg.Pool({ connectionString: location, max: Number(claims) }), { closeOnClose: true })
    : new SqliteDeadLetterStore(db);

const lines = createInterface({ input: process.stdin });
process.stdout.write('ready\n');
await once(lines, 'line');
const won: Record<string, number> = {};
await Promise.all(
  ids.split(',').flatMap((id) =>
    Array.from({ length: Number(claims) }, async () => {
      const claimed = await store.claim!(id, 60_000);
      won[id] = (won[id] ?? 0) + (claimed?.id === id ? 1 : 0);
    }),
  ),
);
process.stdout.write(`${JSON.stringify(won)}\n`);
lines.close();
await store.close?.();
db?.close();
