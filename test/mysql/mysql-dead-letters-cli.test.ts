// `keiyaku dead-letters --store mysql://…` run as the real binary (from the sources) against the
// real server (MariaDB in CI): list, show and remove parked messages; an unknown id, an
// unreachable server or a wrong database exit non-zero, change nothing and never show the password.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { MysqlDeadLetterStore, migrateMysql } from '@keiyaku/mysql';
import type { ParkRequest } from '@keiyaku/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers.js';
import { type FreshMysqlDatabase, freshMysqlDatabase, mysqlSkipNote, mysqlUrl } from './mysql-env.js';

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}
const cleanEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('KEIYAKU_')));

function cli(args: readonly string[]): Promise<Result> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      ['--import', 'tsx/esm', '--conditions=keiyaku-source', join(repoRoot, 'generator', 'cli', 'run.ts'), 'dead-letters', ...args],
      { cwd: repoRoot, env: cleanEnv, timeout: 90_000 },
      (error, stdout, stderr) => resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr }),
    );
    child.stdin!.end('');
  });
}
const json = (r: Result) => JSON.parse(r.stdout) as Record<string, unknown> & { items: { id: string; kind: string }[] };

function parkRequest(overrides: Partial<ParkRequest> = {}): ParkRequest {
  return {
    channel: 'bookIntegrationEvents',
    address: 'library.book-integration-events',
    groupId: 'inventory.book-availability',
    type: 'BookBorrowed',
    payload: new TextEncoder().encode('{"copyId":"C-1"}'),
    headers: { ce_type: 'BookBorrowed', ce_id: 'id-1' },
    key: 'book-1',
    error: { name: 'Error', message: 'inventory database unavailable' },
    attempts: 3,
    firstFailureAt: new Date(Date.UTC(2026, 10, 30, 8)),
    lastFailureAt: new Date(Date.UTC(2026, 10, 30, 9)),
    ...overrides,
  };
}

(mysqlUrl === '' ? describe.skip : describe)(`keiyaku dead-letters on MySQL${mysqlSkipNote}`, () => {
  let database: FreshMysqlDatabase;
  let store: MysqlDeadLetterStore;
  beforeAll(async () => {
    database = await freshMysqlDatabase('dead_letters_cli');
    await migrateMysql(database.pool);
    store = new MysqlDeadLetterStore(database.pool);
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('lists, shows and removes parked messages; an unknown id, an unreachable server or a wrong database changes nothing', async () => {
    const a = await store.park(parkRequest(), new Date(Date.UTC(2026, 10, 30, 10)));
    const b = await store.park(
      parkRequest({ groupId: 'notifications.late-fees', error: { name: 'Error', message: 'nul\u0000 and 契約 😀' } }),
      new Date(Date.UTC(2026, 10, 30, 11)),
    );
    const password = new URL(database.url).password;
    const listed = json(await cli(['list', '--store', database.url, '--json']));
    expect(listed.items.map((i) => i.id)).toEqual([a.id, b.id]);
    expect(String(listed['store'])).not.toContain(`:${password}@`);
    expect(
      json(await cli(['list', '--store', database.url, '--json', '--group', 'notifications.late-fees'])).items.map((i) => i.id),
    ).toEqual([b.id]);
    expect((await cli(['show', a.id, '--store', database.url])).stdout).toContain('payload: {"copyId":"C-1"}');
    const shown = json(await cli(['show', b.id, '--store', database.url, '--json']));
    expect(JSON.stringify(shown)).toContain(JSON.stringify('nul\u0000 and 契約 😀').slice(1, -1));
    const unknown = await cli(['remove', randomUUID(), '--store', database.url, '--yes']);
    expect(unknown.code).toBe(2);
    expect(await store.count()).toBe(2);
    expect((await cli(['remove', a.id, '--store', database.url, '--yes'])).code).toBe(0);
    expect(await store.get(a.id)).toBeUndefined();

    const down = await cli(['list', '--store', 'mysql://keiyaku:s3cret-pw@127.0.0.1:1/keiyaku']);
    expect(down.code).toBe(2);
    expect(down.stderr).toMatch(/cannot reach MySQL at mysql:\/\/keiyaku@127\.0\.0\.1:1\/keiyaku: .*ECONNREFUSED/);
    expect(down.stderr).not.toContain('s3cret-pw');
    const wrongDb = new URL(database.url);
    wrongDb.pathname = '/no_such_database';
    const wrong = await cli(['list', '--store', wrongDb.toString()]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/Unknown database 'no_such_database'/);
    expect(wrong.stderr).not.toContain(`:${password}@`);
    expect(await store.count()).toBe(1);
    // Each run starts the CLI from its sources: seconds apiece on a loaded machine.
  }, 600_000);
});
