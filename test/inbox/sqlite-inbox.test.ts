// The SQLite inbox: the inbox conformance suite over real SQLite files, plus what only SQLite has
// (the explicit migration and its errors, the synchronous path, one transaction at a time on the
// connection, the outbox writing in the inbox's transaction).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { INBOX_SCHEMA_VERSION, InboxError, InboxPurger, ManualClock } from '@keiyaku/runtime';
import { OutboxPing, outboxConformanceChannel, runInboxConformance } from '@keiyaku/runtime/testing';
import { migrateSqlite, SqliteInboxStore, SqliteOutbox, sqliteMigrationSql, sqliteSchemaVersions } from '@keiyaku/sqlite';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';

const dirs: string[] = [];
function tempFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'keiyaku-inbox-'));
  dirs.push(dir);
  return join(dir, 'service.db');
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function effectsDb(file = tempFile()): Database.Database {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE effects (value TEXT NOT NULL)');
  return db;
}

const readEffects = (db: Database.Database): string[] => db.prepare<[], string>('SELECT value FROM effects ORDER BY rowid').pluck().all();

await runInboxConformance<Database.Database>({
  name: 'sqlite',
  create: async ({ clock }) => {
    const db = effectsDb();
    const store = new SqliteInboxStore(db, { clock });
    store.migrate();
    return {
      store,
      write: (tx, value) => void tx.prepare('INSERT INTO effects (value) VALUES (?)').run(value),
      read: async () => readEffects(db),
      cleanup: async () => void db.close(),
    };
  },
});

describe('SqliteInboxStore', () => {
  it('creates its table only in migrate(): before it a typed error names the database and the fix', async () => {
    const file = tempFile();
    const db = new Database(file);
    const inbox = new SqliteInboxStore(db);
    expect(inbox.description).toBe(`sqlite:${file}`);
    expect(inbox.schemaVersion()).toBeUndefined();
    let thrown: unknown;
    try {
      inbox.process('g', 'm', () => undefined);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(InboxError);
    expect((thrown as InboxError).code).toBe('inbox_not_migrated');
    expect((thrown as Error).message).toContain(`sqlite:${file}`);
    expect((thrown as Error).message).toContain('inbox.migrate()');
    await expect(inbox.count()).rejects.toMatchObject({ code: 'inbox_not_migrated' });
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'keiyaku_inbox'").get()).toBeUndefined();
    inbox.migrate();
    inbox.migrate();
    expect(sqliteSchemaVersions(db)).toEqual({ inbox: INBOX_SCHEMA_VERSION });
    expect(inbox.process('g', 'm', () => undefined)).toBe('processed');
    db.close();
  });

  it('is not part of a plain migrateSqlite(db); named, it is', () => {
    const db = new Database(':memory:');
    migrateSqlite(db);
    expect(sqliteSchemaVersions(db).inbox).toBeUndefined();
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'keiyaku_inbox'").get()).toBeUndefined();
    expect(migrateSqlite(db, { components: ['inbox'] }).applied).toEqual([{ component: 'inbox', from: 0, to: INBOX_SCHEMA_VERSION }]);
    expect(new SqliteInboxStore(db).process('g', 'm', () => undefined)).toBe('processed');
    db.close();
  });

  it("is purged past its retention by the host's purger, in batches", async () => {
    const clock = new ManualClock(Date.UTC(2026, 11, 1));
    const db = new Database(':memory:');
    const inbox = new SqliteInboxStore(db, { clock, retentionMs: 60_000 });
    inbox.migrate();
    for (let i = 0; i < 5; i++) inbox.process('g', `old-${i}`, () => undefined);
    await clock.advance(61_000);
    inbox.process('g', 'new', () => undefined);
    expect(await new InboxPurger({ store: inbox, clock }, { batchSize: 2 }).purge()).toBe(5);
    expect(await inbox.count()).toBe(1);
    expect(await inbox.has('g', 'new')).toBe(true);
    db.close();
  });

  it('refuses a database at another inbox schema version', async () => {
    const db = new Database(':memory:');
    new SqliteInboxStore(db).migrate();
    db.prepare("UPDATE keiyaku_schema_versions SET version = 2 WHERE component = 'inbox'").run();
    const inbox = new SqliteInboxStore(db);
    await expect(inbox.has('g', 'm')).rejects.toMatchObject({ code: 'inbox_schema_version' });
    await expect(inbox.has('g', 'm')).rejects.toThrow(/inbox schema version 2; this keiyaku reads version 1/);
    db.close();
  });

  it('runs exactly the SQL sqliteMigrationSql([inbox]) gives, with the index on received_at', () => {
    const migrated = new Database(':memory:');
    new SqliteInboxStore(migrated).migrate();
    const scripted = new Database(':memory:');
    scripted.exec(sqliteMigrationSql(['inbox']));
    const schema = (db: Database.Database) =>
      db.prepare<[], string>("SELECT sql FROM sqlite_master WHERE name LIKE 'keiyaku_inbox%' ORDER BY name").pluck().all();
    expect(schema(scripted)).toEqual(schema(migrated));
    expect(schema(migrated).join('\n')).toMatch(/keiyaku_inbox_received ON keiyaku_inbox \(received_at\)/);
    expect(sqliteSchemaVersions(scripted)).toEqual({ inbox: 1 });
    migrated.close();
    scripted.close();
  });

  it('answers without a promise when the handler does, and is inside a transaction for it', () => {
    const db = effectsDb();
    const inbox = new SqliteInboxStore(db);
    inbox.migrate();
    let inside: boolean | undefined;
    const outcome = inbox.process('g', 'm-1', (tx) => {
      inside = tx.inTransaction;
      tx.prepare("INSERT INTO effects (value) VALUES ('x')").run();
    });
    expect(outcome).toBe('processed');
    expect(inside).toBe(true);
    expect(db.inTransaction).toBe(false);
    expect(inbox.process('g', 'm-1', () => undefined)).toBe('duplicate');
    expect(readEffects(db)).toEqual(['x']);
    db.close();
  });

  it('refuses to run inside a transaction the caller opened', () => {
    const db = effectsDb();
    const inbox = new SqliteInboxStore(db);
    inbox.migrate();
    let thrown: unknown;
    db.transaction(() => {
      try {
        inbox.process('g', 'm-1', () => undefined);
      } catch (error) {
        thrown = error;
      }
    })();
    expect((thrown as InboxError).code).toBe('inbox_nested_transaction');
    expect(inbox.process('g', 'm-1', () => undefined)).toBe('processed');
    db.close();
  });

  it('runs one transaction at a time: messages that arrive while a handler awaits queue behind it, in order', async () => {
    const db = effectsDb();
    const inbox = new SqliteInboxStore(db);
    inbox.migrate();
    const order: string[] = [];
    const slow = inbox.process('g', 'm-1', async (tx) => {
      order.push('m-1 start');
      await new Promise((resolve) => setTimeout(resolve, 30));
      tx.prepare("INSERT INTO effects (value) VALUES ('m-1')").run();
      order.push('m-1 end');
    });
    const queued = inbox.process('g', 'm-2', (tx) => {
      order.push('m-2');
      tx.prepare("INSERT INTO effects (value) VALUES ('m-2')").run();
    });
    const failing = inbox.process('g', 'm-3', () => {
      order.push('m-3');
      throw new Error('m-3 failed');
    });
    const last = inbox.process('g', 'm-4', () => void order.push('m-4'));
    expect(queued).toBeInstanceOf(Promise);
    expect(await slow).toBe('processed');
    expect(await queued).toBe('processed');
    await expect(failing).rejects.toThrow('m-3 failed');
    expect(await last).toBe('processed');
    expect(order).toEqual(['m-1 start', 'm-1 end', 'm-2', 'm-3', 'm-4']);
    expect(readEffects(db)).toEqual(['m-1', 'm-2']);
    expect(await inbox.has('g', 'm-3')).toBe(false);
    // The queue is empty again: the synchronous path is back.
    expect(inbox.process('g', 'm-5', () => undefined)).toBe('processed');
    db.close();
  });

  it('two inbox stores on one Database queue behind each other', async () => {
    const db = effectsDb();
    const first = new SqliteInboxStore(db);
    first.migrate();
    const second = new SqliteInboxStore(db);
    const slow = first.process('a', 'm-1', async (tx) => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      tx.prepare("INSERT INTO effects (value) VALUES ('a')").run();
    });
    const queued = second.process('b', 'm-1', (tx) => void tx.prepare("INSERT INTO effects (value) VALUES ('b')").run());
    expect(queued).toBeInstanceOf(Promise);
    expect(await Promise.all([slow, queued])).toEqual(['processed', 'processed']);
    expect(readEffects(db)).toEqual(['a', 'b']);
    db.close();
  });

  it("commits the handler's outbox rows with the inbox row, and rolls them back with it", async () => {
    const db = effectsDb();
    const inbox = new SqliteInboxStore(db);
    inbox.migrate();
    const outbox = new SqliteOutbox(db);
    outbox.migrate();
    const writer = outbox.channel(outboxConformanceChannel('inbox-outbox'));
    expect(() =>
      inbox.process('g', 'm-1', (tx) => {
        writer.write(tx, OutboxPing.create({ seq: 1, key: 'k' }));
        throw new Error('after the outbox write');
      }),
    ).toThrow('after the outbox write');
    expect((await outbox.counts()).pending).toBe(0);
    await inbox.process('g', 'm-1', async (tx) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      writer.write(tx, OutboxPing.create({ seq: 2, key: 'k' }));
    });
    expect((await outbox.counts()).pending).toBe(1);
    expect(await inbox.has('g', 'm-1')).toBe(true);
    await outbox.close();
    db.close();
  });

  it('opened from a path, closes the file it opened; a Database given by the caller stays open', async () => {
    const file = tempFile();
    const own = effectsDb(file);
    new SqliteInboxStore(own).migrate();
    const fromPath = new SqliteInboxStore(file, { retentionMs: 60_000 });
    expect(fromPath.retentionMs).toBe(60_000);
    expect(fromPath.process('g', 'm', () => undefined)).toBe('processed');
    await fromPath.close();
    expect(fromPath.db.open).toBe(false);
    const given = new SqliteInboxStore(own);
    expect(given.retentionMs).toBe(7 * 24 * 60 * 60 * 1000);
    await given.close();
    expect(own.open).toBe(true);
    expect(await given.count()).toBe(1);
    own.close();
  });
});
