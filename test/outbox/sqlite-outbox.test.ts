// The SQLite outbox: the conformance suite over real SQLite files, plus what only SQLite has.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OutboxPing, outboxConformanceChannel, runOutboxConformance } from '@keiyaku/runtime/testing';
import { OutboxError, SQLITE_OUTBOX_SCHEMA, SqliteOutbox, sqliteSchemaVersions } from '@keiyaku/sqlite';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { BookEvent } from '../../examples/library/book.js';
import { bookMapper } from '../../examples/library/book-mapper.js';
import { BookIntegrationEvents, DueDateReminder, MemberNotifications } from '../../generated/index.js';

const dirs: string[] = [];
function tempFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'keiyaku-outbox-'));
  dirs.push(dir);
  return join(dir, 'service.db');
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

await runOutboxConformance({
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
    expect(tables).toEqual([{ name: 'keiyaku_outbox' }, { name: 'keiyaku_outbox_lock' }]);
    expect(sqliteSchemaVersions(db)).toEqual({ outbox: 1 });
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
    db.prepare("UPDATE keiyaku_schema_versions SET version = 2 WHERE component = 'outbox'").run();
    expect(() => outbox.migrate()).toThrow(expect.objectContaining({ code: 'outbox_schema_version' }));
    db.close();
  });

  it('writes domain events through the mapper: null stays internal, key = aggregate id, causation = event id', () => {
    const db = new Database(':memory:');
    const outbox = new SqliteOutbox(db, { source: 'library' });
    outbox.migrate();
    const books = outbox.channel(BookIntegrationEvents);
    const events: BookEvent[] = [
      { type: 'BookAdded', title: 'Dune', author: 'Frank Herbert', isbn: '9780441013593', copies: 2 },
      { type: 'BookBorrowed', copyId: 'C-1', borrowerId: 'M-1001', at: '2026-11-02T10:15:00.000Z', loanDays: 21, via: 'desk' },
    ];
    const bookId = '6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b';
    const written = db.transaction(() =>
      books.writeEvents(db, bookMapper, events, { aggregateId: bookId, correlationId: 'req-1', eventIds: ['e-1', 'e-2'] }),
    )();
    expect(written).toBe(1);
    const rows = db.prepare('SELECT partition_key, type, headers, address FROM keiyaku_outbox').all() as {
      partition_key: string;
      type: string;
      headers: string;
      address: string;
    }[];
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ partition_key: bookId, type: 'BookBorrowed', address: 'library.book-integration-events' });
    expect(JSON.parse(rows[0]!.headers)).toMatchObject({
      ce_type: 'BookBorrowed',
      ce_source: 'library',
      ce_correlationid: 'req-1',
      ce_causationid: 'e-2',
      'content-type': 'application/json',
    });
    db.close();
  });

  it('needs the concrete address of a channel with parameters, per channel or per write', () => {
    const db = new Database(':memory:');
    const outbox = new SqliteOutbox(db);
    outbox.migrate();
    const reminder = DueDateReminder.create({
      memberId: 'M-1001',
      loans: [{ bookId: '6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b', dueAt: '2026-11-23T10:15:00Z' }],
    });
    const unbound = outbox.channel(MemberNotifications);
    expect(() => db.transaction(() => unbound.write(db, reminder))()).toThrow(expect.objectContaining({ code: 'address_required' }));
    db.transaction(() => unbound.write(db, reminder, { address: MemberNotifications.address({ memberId: 'M-1001' }) }))();
    const bound = outbox.channel(MemberNotifications, { address: MemberNotifications.address({ memberId: 'M-2002' }) });
    db.transaction(() => bound.write(db, reminder))();
    const addresses = db.prepare('SELECT address FROM keiyaku_outbox ORDER BY seq').all();
    expect(addresses).toEqual([{ address: 'library.members.M-1001.notifications' }, { address: 'library.members.M-2002.notifications' }]);
    db.close();
  });
});
