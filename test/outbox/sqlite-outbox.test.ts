// The SQLite outbox: the conformance suite over real SQLite files, plus what only SQLite has.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { OutboxError, SQLITE_OUTBOX_SCHEMA, SqliteOutbox } from 'keiyaku/sqlite';
import { OutboxPing, outboxConformanceChannel, runOutboxConformance } from 'keiyaku/testing';
import { afterEach, describe, expect, it } from 'vitest';

const dirs: string[] = [];
function tempFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'keiyaku-outbox-'));
  dirs.push(dir);
  return join(dir, 'service.db');
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

runOutboxConformance({
  name: 'sqlite',
  exclusive: true,
  create: async ({ channel }) => {
    const file = tempFile();
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    const outbox = new SqliteOutbox(db);
    outbox.migrate();
    const writer = outbox.channel(channel);
    const opened: SqliteOutbox[] = [];
    return {
      store: outbox,
      async write(items, options = {}) {
        db.transaction(() => {
          writer.writeMany(db, items);
          if (options.rollback) throw new Error('rolled back on purpose');
        })();
      },
      async another() {
        const other = new SqliteOutbox(file);
        opened.push(other);
        return other;
      },
      async cleanup() {
        for (const other of opened) await other.close();
        db.close();
      },
    };
  },
});

describe('SqliteOutbox', () => {
  it('migrate() is idempotent, records schema version 1, and writing before it is a typed error', () => {
    const db = new Database(':memory:');
    const outbox = new SqliteOutbox(db);
    expect(outbox.schemaVersion()).toBeUndefined();
    const writer = outbox.channel(outboxConformanceChannel('a'));
    expect(() => db.transaction(() => writer.write(db, OutboxPing.create({ seq: 1, key: 'k' })))()).toThrow(
      expect.objectContaining({ code: 'outbox_not_migrated' }),
    );
    outbox.migrate();
    outbox.migrate();
    expect(outbox.schemaVersion()).toBe(1);
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'keiyaku_outbox%' ORDER BY name").all();
    expect(tables).toEqual([{ name: 'keiyaku_outbox' }, { name: 'keiyaku_outbox_lock' }, { name: 'keiyaku_outbox_schema' }]);
    db.close();
  });

  it('the exported SQL creates the same tables for teams with their own migrations', () => {
    const db = new Database(':memory:');
    db.exec(SQLITE_OUTBOX_SCHEMA);
    const outbox = new SqliteOutbox(db);
    expect(outbox.schemaVersion()).toBe(1);
    db.close();
  });

  it('refuses a write outside a transaction and a newer schema', () => {
    const db = new Database(':memory:');
    const outbox = new SqliteOutbox(db);
    outbox.migrate();
    const writer = outbox.channel(outboxConformanceChannel('a'));
    expect(() => writer.write(db, OutboxPing.create({ seq: 1, key: 'k' }))).toThrow(OutboxError);
    expect(() => writer.write(db, OutboxPing.create({ seq: 1, key: 'k' }))).toThrow(/inside the transaction/);
    db.prepare('UPDATE keiyaku_outbox_schema SET version = 2').run();
    expect(() => outbox.migrate()).toThrow(expect.objectContaining({ code: 'outbox_schema_version' }));
    db.close();
  });
});
