// The SQLite dead-letter store beyond the conformance suite: what the table holds for plain and
// hostile rows (docs/stores.md), summaries that never read payloads or headers, and damaged
// escaped rows as DeadLetterRecordErrors.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { hostileParkRequest, sampleParkRequest } from '@keiyaku/runtime/testing';
import { DeadLetterRecordError, migrateSqlite, openSqlite, SqliteDeadLetterStore } from '@keiyaku/sqlite';
import type Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { scratch } from '../helpers.js';

const dir = scratch('sqlite-dead-letters');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
function database(): Database.Database {
  const db = openSqlite(join(dir, `dl-${++n}.db`));
  migrateSqlite(db, { components: ['dead-letters'] });
  return db;
}

describe('SqliteDeadLetterStore', () => {
  it('keeps plain rows as plain text and escapes every text of a hostile row', async () => {
    const db = database();
    const store = new SqliteDeadLetterStore(db);
    const plain = await store.park(sampleParkRequest('plain', 1, { type: 'Ping "quoted" \\ é', topic: 'plain.topic' }), new Date());
    const hostile = await store.park(hostileParkRequest('hostile', 1), new Date());
    const rows = db
      .prepare<[], { id: string; escaped: number; type: string; topic: string; headers: string }>(
        'SELECT id, escaped, type, topic, headers FROM keiyaku_dead_letters ORDER BY seq',
      )
      .all();
    expect(rows[0]).toMatchObject({ id: plain.id, escaped: 0, type: 'Ping "quoted" \\ é', topic: 'plain.topic' });
    expect(JSON.parse(rows[0]!.headers)).toEqual({ ce_type: 'Ping', ce_id: 'id-1' });
    expect(rows[1]).toMatchObject({ id: hostile.id, escaped: 1, type: JSON.stringify(hostile.type).slice(1, -1) });
    expect(rows[1]!.type).toContain('Type\\u0000');
    expect(rows[1]!.headers).not.toContain('\u0000');
    db.close();
  });

  it('lists summaries of rows whose payload and headers are damaged: summaries read neither', async () => {
    const db = database();
    const store = new SqliteDeadLetterStore(db);
    const parked = await store.park(sampleParkRequest('damaged', 1), new Date(0));
    db.prepare("UPDATE keiyaku_dead_letters SET payload = '1000000000', headers = '{not json' WHERE id = ?").run(parked.id);
    await expect(store.list({ channel: 'damaged' })).rejects.toThrow(DeadLetterRecordError);
    const [summary] = await store.summaries({ channel: 'damaged' });
    expect(summary).toMatchObject({ id: parked.id, channel: 'damaged', error: { name: 'Error', message: 'failure 1' } });
    db.close();
  });

  it.each([
    ['a text column that is not an escape', { type: 'bad \\x' }, /column type is not escaped text \(the row is marked escaped\)/],
    ['a header value that is not an escape', { headers: '{"ce_type":"\\\\q"}' }, /column headers \("ce_type"\) is not escaped text/],
    ['an escaped flag of another type', { escaped: 'yes' }, /column escaped is string, expected a boolean/],
  ])('a damaged escaped row is a DeadLetterRecordError: %s', async (_what, values, message) => {
    const db = database();
    const store = new SqliteDeadLetterStore(db);
    const parked = await store.park(hostileParkRequest('escaped-damage', 1), new Date(0));
    const sets = Object.keys(values).map((column) => `${column} = @${column}`);
    db.prepare(`UPDATE keiyaku_dead_letters SET ${sets.join(', ')} WHERE id = @id`).run({ ...values, id: parked.id });
    await expect(store.get(parked.id)).rejects.toThrow(message);
    await expect(store.get(parked.id)).rejects.toMatchObject({ code: 'dead_letter_record_invalid' });
    db.close();
  });
});
