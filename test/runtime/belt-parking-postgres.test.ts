// The belt over the real PostgreSQL dead-letter store when parking fails: a table that is gone
// for a while (the store rejects), and a pool that is closed for good (unreachable). The process
// survives (no unhandled rejection), health shows the reason, and the record is parked once.

import { migratePostgres, PostgresDeadLetterStore } from '@keiyaku/postgres';
import { createMessaging, type Logger, ManualClock, type Messaging } from '@keiyaku/runtime';
import { InMemoryTransport } from '@keiyaku/runtime/memory';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BookBorrowed, BookIntegrationEvents } from '../../generated/index.js';
import { waitFor } from '../helpers.js';
import { type FreshDatabase, freshDatabase, postgresSkipNote, postgresUrl } from '../postgres/postgres-env.js';

const borrowed = (copyId: string) =>
  BookBorrowed.create({
    bookId: '6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b',
    copyId,
    borrower: { memberId: 'M-1001' },
    borrowedAt: '2026-11-02T10:15:00Z',
    dueAt: '2026-11-23T10:15:00Z',
    channel: 'desk',
  });

const warnings: string[] = [];
const logger: Logger = {
  debug() {},
  info() {},
  warn: (message) => void warnings.push(message),
  error: (message) => void warnings.push(message),
};

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
const hosts: Messaging[] = [];
beforeEach(() => {
  unhandled.length = 0;
  warnings.length = 0;
  process.on('unhandledRejection', onUnhandled);
});
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.stop();
  process.off('unhandledRejection', onUnhandled);
});

(postgresUrl === '' ? describe.skip : describe)(`the belt parking in PostgreSQL when the store fails${postgresSkipNote}`, () => {
  let db: FreshDatabase;
  beforeAll(async () => {
    db = await freshDatabase('belt_parking');
    await migratePostgres(db.pool, { components: ['dead-letters'] });
  });
  afterAll(async () => {
    await db?.drop();
  });

  function rig(store: PostgresDeadLetterStore) {
    const clock = new ManualClock(Date.UTC(2026, 10, 30, 8, 0, 0));
    const transport = new InMemoryTransport({ defaultPartitions: 1, idleWaitMs: 5 });
    const host = createMessaging({ logger, transport, deadLetters: store, clock, random: () => 0.5, shutdownBudgetMs: 1_000 });
    hosts.push(host);
    const handled: string[] = [];
    const subscription = host.subscribe(
      BookIntegrationEvents,
      {
        groupId: 'inventory.book-availability',
        handle(m) {
          if (m.copyId === 'poison') throw new Error('poison copy');
          handled.push(m.copyId);
        },
      },
      { deadLetter: { maxRetries: 0 }, retry: { initialMs: 1_000, maxMs: 1_000, jitter: 0 } },
    );
    const publisher = host.publisher(BookIntegrationEvents, { key: () => 'one-key', lingerMs: 0 });
    return { clock, host, handled, subscription, publisher };
  }

  it('blocks while the store rejects (its table is gone), then parks the record once when it is back', async () => {
    const store = new PostgresDeadLetterStore(db.pool);
    const { clock, host, handled, subscription, publisher } = rig(store);
    await db.pool.query('ALTER TABLE keiyaku_dead_letters RENAME TO keiyaku_dead_letters_away');
    try {
      await host.start();
      await publisher.publishMany([borrowed('C-1'), borrowed('poison'), borrowed('C-3')]);
      await waitFor(() => subscription.health().stalls.length === 1 && clock.pending === 1, 'the first park failed');
      await clock.advance(1_000);
      await waitFor(
        () => subscription.health().stalls[0]?.reason.includes('(2 times;') === true && clock.pending === 1,
        'the second park failed',
      );
      const [stall] = subscription.health().stalls;
      expect(stall!.reason).toMatch(
        /^the dead-letter store failed to park it \(2 times; trying again\): Store\w*Error: .*keiyaku_dead_letters.*; parking because Error: poison copy$/,
      );
      expect(host.health().ready).toBe(false);
      expect(handled).toEqual(['C-1']);
      expect(warnings).toContain(
        'belt blocked: the dead-letter store failed to park the message; the belt is stopped at this record and tries again',
      );
    } finally {
      await db.pool.query('ALTER TABLE keiyaku_dead_letters_away RENAME TO keiyaku_dead_letters');
    }
    await clock.advance(1_000);
    await waitFor(() => handled.length === 2, 'the belt moves on once parked');
    expect(handled).toEqual(['C-1', 'C-3']);
    const parked = await store.list();
    expect(parked).toHaveLength(1);
    expect(parked[0]).toMatchObject({ groupId: 'inventory.book-availability', offset: '1', error: { message: 'poison copy' } });
    expect(subscription.health()).toMatchObject({ state: 'running', stalls: [], parked: 1 });
    expect(unhandled).toEqual([]);
    await db.pool.query('DELETE FROM keiyaku_dead_letters');
  });

  it('keeps the process alive on a closed pool (unreachable), the reason in health, and stops cleanly', async () => {
    const pool = new pg.Pool({ connectionString: db.url, max: 1 });
    await pool.end();
    const store = new PostgresDeadLetterStore(pool);
    const { clock, host, handled, subscription, publisher } = rig(store);
    await host.start();
    await publisher.publishMany([borrowed('poison'), borrowed('C-2')]);
    for (let i = 1; i <= 3; i++) {
      await waitFor(
        () => subscription.health().stalls[0]?.reason.includes(`(${i} time`) === true && clock.pending === 1,
        `park ${i} failed`,
      );
      await clock.advance(1_000);
    }
    expect(subscription.health().stalls[0]!.reason).toMatch(
      /^the dead-letter store failed to park it \(\d times; trying again\): StoreError: /,
    );
    expect(handled).toEqual([]);
    await host.stop();
    expect(subscription.health().state).toBe('stopped');
    expect((await db.pool.query('SELECT count(*)::int AS n FROM keiyaku_dead_letters')).rows[0].n).toBe(0);
    expect(unhandled).toEqual([]);
  });
});
