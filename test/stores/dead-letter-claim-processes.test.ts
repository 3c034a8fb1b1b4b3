// Claims across processes on one database: four child processes, each making five concurrent
// claims of the same records, started together; every record goes to exactly one claim.
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { once } from 'node:events';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { migratePostgres, PostgresDeadLetterStore } from '@keiyaku/postgres';
import type { DeadLetterStore } from '@keiyaku/runtime';
import { sampleParkRequest } from '@keiyaku/runtime/testing';
import { migrateSqlite, openSqlite, SqliteDeadLetterStore } from '@keiyaku/sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot, scratch } from '../helpers.js';
import { freshDatabase, postgresSkipNote, postgresUrl } from '../postgres/postgres-env.js';

const PROCESSES = 4;
const CLAIMS = 5;
const worker = join(repoRoot, 'test', 'stores', 'claim-worker.ts');

type Child = ChildProcessByStdio<Writable, Readable, Readable>;

/** Starts the workers, waits until every one is ready, releases them together, and sums their wins per record. */
async function race(kind: 'sqlite' | 'postgres', location: string, ids: readonly string[]): Promise<Record<string, number>> {
  const children: Child[] = [];
  const outputs: Promise<string[]>[] = [];
  const errors: string[] = [];
  for (let i = 0; i < PROCESSES; i++) {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx/esm', '--conditions=keiyaku-source', worker, kind, location, ids.join(','), String(CLAIMS)],
      { cwd: repoRoot, stdio: ['pipe', 'pipe', 'pipe'] },
    );
    child.stderr.on('data', (chunk: Buffer) => errors.push(chunk.toString()));
    children.push(child);
    outputs.push(
      (async () => {
        const lines: string[] = [];
        for await (const line of createInterface({ input: child.stdout })) lines.push(line);
        return lines;
      })(),
    );
  }
  try {
    // Ready: every worker has its store open and waits on stdin.
    await Promise.all(
      children.map(async (child) => {
        const [chunk] = (await once(child.stdout, 'data')) as [Buffer];
        if (!chunk.toString().startsWith('ready')) throw new Error(`worker said ${chunk.toString()}`);
      }),
    );
    for (const child of children) child.stdin.write('go\n');
    const codes = await Promise.all(children.map(async (child) => (await once(child, 'exit'))[0] as number));
    expect({ codes, errors: errors.join('') }).toEqual({ codes: codes.map(() => 0), errors: '' });
  } finally {
    for (const child of children) if (child.exitCode === null) child.kill();
  }
  const total: Record<string, number> = Object.fromEntries(ids.map((id) => [id, 0]));
  for (const lines of await Promise.all(outputs)) {
    const won = JSON.parse(lines.at(-1)!) as Record<string, number>;
    for (const [id, count] of Object.entries(won)) total[id] = (total[id] ?? 0) + count;
  }
  return total;
}

async function parkThree(store: DeadLetterStore): Promise<string[]> {
  const ids: string[] = [];
  for (const n of [1, 2, 3]) ids.push((await store.park(sampleParkRequest('claim-race', n), new Date())).id);
  return ids;
}

describe('dead-letter claims across processes', () => {
  const dir = scratch('claim-processes');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it(`SQLite: of ${PROCESSES} processes × ${CLAIMS} concurrent claims, exactly one gets each record`, async () => {
    const file = join(dir, 'claims.db');
    const db = openSqlite(file);
    migrateSqlite(db, { components: ['dead-letters'] });
    const ids = await parkThree(new SqliteDeadLetterStore(db));
    expect(await race('sqlite', file, ids)).toEqual(Object.fromEntries(ids.map((id) => [id, 1])));
    db.close();
  });

  (postgresUrl === '' ? it.skip : it)(
    `PostgreSQL: of ${PROCESSES} processes × ${CLAIMS} concurrent claims, exactly one gets each record${postgresSkipNote}`,
    async () => {
      const database = await freshDatabase('claims');
      try {
        await migratePostgres(database.pool, { components: ['dead-letters'] });
        const ids = await parkThree(new PostgresDeadLetterStore(database.pool));
        expect(await race('postgres', database.url, ids)).toEqual(Object.fromEntries(ids.map((id) => [id, 1])));
      } finally {
        await database.drop();
      }
    },
  );
});
