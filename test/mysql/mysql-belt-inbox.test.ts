// The belt's inbox policy over the memory transport with the MySQL inbox (MariaDB in CI): the
// handler's effect row commits with the inbox row; a redelivered id is skipped; a failed attempt
// rolls its write back so the retry commits exactly one; a parked message leaves no inbox row.
import { MysqlInboxStore } from '@keiyaku/mysql';
import { createMessaging, inboxTransaction, type Messaging } from '@keiyaku/runtime';
import { InMemoryTransport } from '@keiyaku/runtime/memory';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BookIntegrationEvents } from '../../generated/index.js';
import { borrowed } from '../books.js';
import { recordingLogger, waitFor } from '../helpers.js';
import { type FreshMysqlDatabase, freshMysqlDatabase, mysqlSkipNote, mysqlUrl } from './mysql-env.js';

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

(mysqlUrl === '' ? describe.skip : describe)(`the belt with the MySQL inbox${mysqlSkipNote}`, () => {
  let db: FreshMysqlDatabase;
  let inbox: MysqlInboxStore;
  beforeAll(async () => {
    db = await freshMysqlDatabase('belt_inbox');
    await db.pool.query('CREATE TABLE effects (value VARCHAR(255) NOT NULL) ENGINE=InnoDB');
    inbox = new MysqlInboxStore(db.pool);
    await inbox.migrate();
  });
  beforeEach(async () => {
    await db.pool.query('TRUNCATE TABLE effects');
    await db.pool.query('TRUNCATE TABLE keiyaku_inbox');
  });
  afterAll(async () => {
    await db?.drop();
  });
  const effects = async (): Promise<string[]> => {
    const [rows] = await db.pool.query('SELECT value FROM effects ORDER BY value');
    return (rows as { value: string }[]).map((r) => r.value);
  };

  it('writes one effect row per message id; the redelivered id is skipped and counted', async () => {
    const messaging = host();
    const subscription = messaging.subscribe(
      BookIntegrationEvents,
      {
        groupId: 'belt.once',
        handle: async (m, context) => {
          await inboxTransaction(inbox, context).query('INSERT INTO effects (value) VALUES (?)', [`${context.messageId}:${m.copyId}`]);
        },
      },
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
    const messaging = host();
    const subscription = messaging.subscribe(
      BookIntegrationEvents,
      {
        groupId: 'belt.retry',
        handle: async (_m, context) => {
          await inboxTransaction(inbox, context).query('INSERT INTO effects (value) VALUES (?)', [`attempt-${context.attempt}`]);
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
    const messaging = host();
    const subscription = messaging.subscribe(
      BookIntegrationEvents,
      {
        groupId: 'belt.park',
        handle: async (_m, context) => {
          await inboxTransaction(inbox, context).query('INSERT INTO effects (value) VALUES (?)', [`attempt-${context.attempt}`]);
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
});
