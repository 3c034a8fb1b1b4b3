// The belt's inbox policy over the memory transport with the SQLite, the PostgreSQL and the MySQL
// inbox (MariaDB in CI): the
// handler's effect row and its outbox row commit with the inbox row; a redelivered id is skipped;
// a failed attempt rolls its writes back so the retry commits exactly one; a parked message leaves
// no inbox row (parking and the inbox row are never both written).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MysqlInboxStore, type MysqlInboxTransaction, MysqlOutbox } from '@keiyaku/mysql';
import { PostgresInboxStore, type PostgresInboxTransaction, PostgresOutbox } from '@keiyaku/postgres';
import { createMessaging, type InboxStore, inboxTransaction, type Messaging } from '@keiyaku/runtime';
import { InMemoryTransport } from '@keiyaku/runtime/memory';
import { OutboxPing, outboxConformanceChannel } from '@keiyaku/runtime/testing';
import { SqliteInboxStore, SqliteOutbox } from '@keiyaku/sqlite';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BookIntegrationEvents } from '../../generated/index.js';
import { borrowed } from '../books.js';
import { recordingLogger, waitFor } from '../helpers.js';
import { type FreshMysqlDatabase, freshMysqlDatabase, mysqlSkipNote, mysqlUrl } from '../mysql/mysql-env.js';
import { type FreshDatabase, freshDatabase, postgresSkipNote, postgresUrl } from '../postgres/postgres-env.js';

/** One engine: its inbox, the handler's effect table, and an outbox on the same database. */
interface Engine<Tx> {
  readonly inbox: InboxStore<Tx>;
  /** The handler's own write, with the inbox transaction (a promise on PostgreSQL). */
  effect(tx: Tx, value: string): void | Promise<void>;
  /** The handler's outbox write, with the inbox transaction. */
  publish(tx: Tx, seq: number): void | Promise<void>;
  effects(): Promise<string[]>;
  pendingOutbox(): Promise<number>;
  close(): Promise<void>;
}

const hosts: Messaging[] = [];
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.stop();
});

function host(): Messaging {
  const messaging = createMessaging({
    transport: new InMemoryTransport({ defaultPartitions: 1, idleWaitMs: 5 }),
    logger: recordingLogger(),
    shutdownBudgetMs: 1_000,
  });
  hosts.push(messaging);
  return messaging;
}

function beltCases<Tx>(engine: () => Engine<Tx>): void {
  it('writes one effect row per message id; the redelivered id is skipped and counted', async () => {
    const { inbox, effect, effects } = engine();
    const messaging = host();
    const subscription = messaging.subscribe(
      BookIntegrationEvents,
      { groupId: 'belt.once', handle: (m, context) => effect(inboxTransaction(inbox, context), `${context.messageId}:${m.copyId}`) },
      { inbox },
    );
    const publisher = messaging.publisher(BookIntegrationEvents, { key: () => 'k', lingerMs: 0 });
    await messaging.start();
    await publisher.publish(borrowed('C-1'), { id: 'once-1' });
    await publisher.publish(borrowed('C-1'), { id: 'once-1' });
    await publisher.publish(borrowed('C-2'), { id: 'once-2' });
    await waitFor(() => subscription.health().processed + subscription.health().duplicatesSkipped === 3, 'three records through the belt');
    expect(subscription.health()).toMatchObject({ processed: 2, duplicatesSkipped: 1 });
    expect(await effects()).toEqual(['once-1:C-1', 'once-2:C-2']);
    expect(await inbox.has('belt.once', 'once-1')).toBe(true);
  });

  it('rolls back the effect of a failed attempt; the retry commits exactly one row', async () => {
    const { inbox, effect, effects } = engine();
    const messaging = host();
    const subscription = messaging.subscribe(
      BookIntegrationEvents,
      {
        groupId: 'belt.retry',
        handle: async (_m, context) => {
          await effect(inboxTransaction(inbox, context), `attempt-${context.attempt}`);
          if (context.attempt === 1) throw new Error('attempt 1 fails after its write');
        },
      },
      { inbox, retry: { initialMs: 1, maxMs: 2, jitter: 0 } },
    );
    const publisher = messaging.publisher(BookIntegrationEvents, { key: () => 'k', lingerMs: 0 });
    await messaging.start();
    await publisher.publish(borrowed('C-3'), { id: 'retry-1' });
    await waitFor(() => subscription.health().processed === 1, 'the record handled on its second attempt');
    expect(await effects()).toEqual(['attempt-2']);
    expect(await inbox.count()).toBe(1);
  });

  it('parks a message that always fails, and records no inbox row for it', async () => {
    const { inbox, effect, effects } = engine();
    const messaging = host();
    const subscription = messaging.subscribe(
      BookIntegrationEvents,
      {
        groupId: 'belt.park',
        handle: async (_m, context) => {
          await effect(inboxTransaction(inbox, context), `attempt-${context.attempt}`);
          throw new Error('always fails');
        },
      },
      { inbox, deadLetter: { maxRetries: 1 }, retry: { initialMs: 1, maxMs: 1, jitter: 0 } },
    );
    const publisher = messaging.publisher(BookIntegrationEvents, { key: () => 'k', lingerMs: 0 });
    await messaging.start();
    await publisher.publish(borrowed('C-4'), { id: 'park-1' });
    await publisher.publish(borrowed('C-5'), { id: 'park-2' });
    await waitFor(() => subscription.health().parked === 2, 'both records parked');
    expect(await messaging.deadLetters.count()).toBe(2);
    expect(await inbox.has('belt.park', 'park-1')).toBe(false);
    expect(await inbox.count()).toBe(0);
    expect(await effects()).toEqual([]);
  });

  it("commits the handler's outbox row with the inbox row, and rolls it back with it on failure", async () => {
    const { inbox, effect, publish, effects, pendingOutbox } = engine();
    const messaging = host();
    // What attempt 2 finds before it writes: attempt 1's rows are gone.
    let beforeRetry: { pending: number; effects: string[] } | undefined;
    const subscription = messaging.subscribe(
      BookIntegrationEvents,
      {
        groupId: 'belt.outbox',
        handle: async (_m, context) => {
          if (context.attempt === 2) beforeRetry = { pending: await pendingOutbox(), effects: await effects() };
          const tx = inboxTransaction(inbox, context);
          await effect(tx, `effect-${context.attempt}`);
          await publish(tx, context.attempt);
          if (context.attempt === 1) throw new Error('attempt 1 fails after its outbox write');
        },
      },
      { inbox, retry: { initialMs: 1, maxMs: 2, jitter: 0 } },
    );
    const publisher = messaging.publisher(BookIntegrationEvents, { key: () => 'k', lingerMs: 0 });
    await messaging.start();
    await publisher.publish(borrowed('C-6'), { id: 'outbox-1' });
    await waitFor(() => subscription.health().processed === 1, 'the record handled on its second attempt');
    expect(beforeRetry).toEqual({ pending: 0, effects: [] });
    expect(await pendingOutbox()).toBe(1);
    expect(await effects()).toEqual(['effect-2']);
    expect(await inbox.has('belt.outbox', 'outbox-1')).toBe(true);
  });
}

describe('the belt with the SQLite inbox', () => {
  let dir: string;
  let current: Engine<Database.Database> | undefined;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'keiyaku-belt-inbox-'));
  });
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  beltCases(() => {
    const db = new Database(join(dir, `${crypto.randomUUID()}.db`));
    db.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE effects (value TEXT NOT NULL)');
    const inbox = new SqliteInboxStore(db);
    inbox.migrate();
    const outbox = new SqliteOutbox(db);
    outbox.migrate();
    const writer = outbox.channel(outboxConformanceChannel('belt-inbox'));
    current = {
      inbox,
      effect: (tx, value) => void tx.prepare('INSERT INTO effects (value) VALUES (?)').run(value),
      publish: (tx, seq) => writer.write(tx, OutboxPing.create({ seq, key: 'k' })),
      effects: async () => db.prepare<[], string>('SELECT value FROM effects ORDER BY rowid').pluck().all(),
      pendingOutbox: async () => (await outbox.counts()).pending,
      close: async () => {
        await outbox.close();
        db.close();
      },
    };
    return current;
  });
});

(postgresUrl !== '' ? describe : describe.skip)(`the belt with the PostgreSQL inbox${postgresSkipNote}`, () => {
  let db: FreshDatabase;
  let current: Engine<PostgresInboxTransaction> | undefined;
  beforeAll(async () => {
    db = await freshDatabase('belt_inbox');
    await db.pool.query('CREATE TABLE effects (seq bigserial PRIMARY KEY, value text NOT NULL)');
    await new PostgresInboxStore(db.pool).migrate();
    await new PostgresOutbox(db.pool).migrate();
  });
  afterEach(async () => {
    await current?.close();
    current = undefined;
    await db.pool.query('TRUNCATE keiyaku_inbox, keiyaku_outbox, effects');
  });
  afterAll(async () => {
    await db?.drop();
  });

  beltCases(() => {
    const inbox = new PostgresInboxStore(db.pool);
    const outbox = new PostgresOutbox(db.pool);
    const writer = outbox.channel(outboxConformanceChannel('belt-inbox'));
    current = {
      inbox,
      effect: async (tx, value) => {
        await tx.query('INSERT INTO effects (value) VALUES ($1)', [value]);
      },
      publish: (tx, seq) => writer.write(tx, OutboxPing.create({ seq, key: 'k' })),
      effects: async () => (await db.pool.query<{ value: string }>('SELECT value FROM effects ORDER BY seq')).rows.map((r) => r.value),
      pendingOutbox: async () => (await outbox.counts()).pending,
      close: () => outbox.close(),
    };
    return current;
  });
});

(mysqlUrl !== '' ? describe : describe.skip)(`the belt with the MySQL inbox${mysqlSkipNote}`, () => {
  let db: FreshMysqlDatabase;
  let current: Engine<MysqlInboxTransaction> | undefined;
  beforeAll(async () => {
    db = await freshMysqlDatabase('belt_inbox');
    await db.pool.query('CREATE TABLE effects (seq BIGINT AUTO_INCREMENT PRIMARY KEY, value VARCHAR(255) NOT NULL) ENGINE=InnoDB');
    await new MysqlInboxStore(db.pool).migrate();
    await new MysqlOutbox(db.pool).migrate();
  });
  afterEach(async () => {
    await current?.close();
    current = undefined;
    for (const table of ['keiyaku_inbox', 'keiyaku_outbox', 'effects']) await db.pool.query(`TRUNCATE TABLE ${table}`);
  });
  afterAll(async () => {
    await db?.drop();
  });

  beltCases(() => {
    const inbox = new MysqlInboxStore(db.pool);
    const outbox = new MysqlOutbox(db.pool);
    const writer = outbox.channel(outboxConformanceChannel('belt-inbox'));
    current = {
      inbox,
      effect: async (tx, value) => {
        await tx.query('INSERT INTO effects (value) VALUES (?)', [value]);
      },
      publish: (tx, seq) => writer.write(tx, OutboxPing.create({ seq, key: 'k' })),
      effects: async () => {
        const [rows] = await db.pool.query('SELECT value FROM effects ORDER BY seq');
        return (rows as { value: string }[]).map((r) => r.value);
      },
      pendingOutbox: async () => (await outbox.counts()).pending,
      close: () => outbox.close(),
    };
    return current;
  });
});
