// The example behind `npm run demo`, run as users run it: every behaviour it promises shows in its output.
import { join } from 'node:path';
import type mysql from 'mysql2/promise';
import { describe, expect, it } from 'vitest';
import { repoRoot, run, withoutKafkajsTimeoutWarning } from './helpers.js';
import { kafkaBrokers, kafkaSkipReason } from './kafka/kafka-env.js';
import { freshMysqlDatabase, mysqlSkipReason, mysqlUrl } from './mysql/mysql-env.js';
import { freshDatabase, postgresSkipReason, postgresUrl } from './postgres/postgres-env.js';

/** The demo keeps the default logger: its stderr is the runtime's own warnings, one JSON line each. */
function expectRuntimeWarnings(stderr: string): void {
  const records = withoutKafkajsTimeoutWarning(stderr)
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as { level: string; logger: string; msg: string });
  expect(records.every((r) => r.logger === 'keiyaku' && r.level === 'warn')).toBe(true);
  const messages = records.map((r) => r.msg);
  expect(messages).toContain('belt blocked: handler failed; the belt is stopped at this record and retries it');
  expect(messages).toContain('parked a message in the dead-letter store; the belt moves on');
  expect(messages).toContain('the belt moves again');
}

async function demo(env: NodeJS.ProcessEnv = {}) {
  const tsx = join(repoRoot, 'node_modules', '.bin', 'tsx');
  return run(tsx, ['--conditions=keiyaku-source', 'examples/demo.ts'], { timeout: 90_000, env });
}

describe('examples/demo.ts', () => {
  (kafkaBrokers === '' ? it.skip : it)(
    `runs unchanged over a real Kafka broker${kafkaSkipReason ? ` (${kafkaSkipReason})` : ''}`,
    async () => {
      const result = await demo({ KAFKA_BROKERS: kafkaBrokers, MYSQL_URL: '' });
      expectRuntimeWarnings(result.stderr);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('transport: kafka');
      expect(result.stdout).toMatch(/the belt stopped at BookReturned \(partition \d+, offset 2\)/);
      expect(result.stdout).toMatch(/parked in SQLite: BookReturned offset 3 after 3 attempts/);
      expect(result.stdout).toContain('inventory handled all 6 messages; copies on the shelf → 3');
      expect(result.stdout).toContain('counted once, the inbox skipped 1 duplicate; copies on the shelf → 2');
    },
    120_000,
  );

  it('shows events flowing, a stall and its recovery, a parked poison message, and a clean shutdown', async () => {
    const result = await demo({ KAFKA_BROKERS: '', POSTGRES_URL: '', MYSQL_URL: '' });
    expectRuntimeWarnings(result.stderr);
    expect(result.code).toBe(0);
    const out = result.stdout;
    expect(out).toContain('transport: memory; library events + outbox: SQLite (library.db)');
    expect(out).toContain('published: 2 BookBorrowed (BookAdded stays inside the library)');
    expect(out).toContain('outbox rows left after publishing: 0');
    expect(out).toContain('a borrowing of C-3 wrote its event and outbox row, then failed a rule and rolled back');
    expect(out).toContain('the rolled-back transaction published nothing: 2 published, 0 outbox rows');
    expect(out).toContain('inventory.book-availability: copies on the shelf 3 → 1');
    expect(out).toContain('notifications.late-fees skipped 2 borrowings');
    expect(out).toContain('the library answered "The Left Hand of Darkness", 2 copies on loan');
    expect(out).toMatch(/the belt stopped at BookReturned \(partition \d+, offset 2\)/);
    expect(out).toMatch(/health: ready=false, state=stalled, attempts=\d+, reason "Error: inventory database unavailable"/);
    expect(out).toContain('copies on the shelf → 2; nothing skipped');
    expect(out).toContain('health: ready=true, state=running');
    expect(out).toMatch(/parked in SQLite: BookReturned offset 3 after 3 attempts — Error: no exchange rate for XXX/);
    expect(out).toContain('the belt moved on: M-1003: late fee EUR 0.46 for copy C-2');
    expect(out).toContain('inventory handled all 6 messages; copies on the shelf → 3');
    expect(out).toMatch(
      /search\.book-index \(retryLater\): 3 BookReturned failed once, waited 300 ms on \S+\.retry\.search\.book-index\.300ms and went through/,
    );
    expect(out).toContain(
      'one BookBorrowed delivered twice (same ce_id): counted once, the inbox skipped 1 duplicate; copies on the shelf → 2',
    );
    expect(out).toMatch(/catalogue\.search-index \(a batch handler\) indexed 8 messages in [1-8] batches of at most 50/);
    expect(out).toContain('outbox drained after event 8: 6 published, 2 kept internal (BookAdded, BookLost); backlog 0, dead 0');
    expect(out).toContain(
      'mocks from the contract (seed 7): BookBorrowed (example first-loan), BookBorrowed, BookReturned; the generated codec accepts 3 of 3',
    );
    expect(out).toContain('The dead-letter store still holds 1 message after reopening the file');
  });

  (postgresUrl === '' ? it.skip : it)(
    `keeps the library's events and outbox in PostgreSQL with POSTGRES_URL${postgresSkipReason ? ` (${postgresSkipReason})` : ''}`,
    async () => {
      const database = await freshDatabase('demo');
      try {
        const result = await demo({ KAFKA_BROKERS: '', POSTGRES_URL: database.url, MYSQL_URL: '' });
        expectRuntimeWarnings(result.stderr);
        expect(result.code).toBe(0);
        const out = result.stdout;
        expect(out).toContain('library events + outbox: PostgreSQL');
        expect(out).toContain('the rolled-back transaction published nothing: 2 published, 0 outbox rows');
        expect(out).toContain('inventory handled all 6 messages; copies on the shelf → 3');
        expect(out).toContain('outbox drained after event 8: 6 published, 2 kept internal (BookAdded, BookLost); backlog 0, dead 0');
        const { rows } = await database.pool.query<{ n: string }>('SELECT count(*) AS n FROM keiyaku_outbox');
        expect(rows[0]!.n).toBe('0');
      } finally {
        await database.drop();
      }
    },
    120_000,
  );

  (mysqlUrl === '' ? it.skip : it)(
    `keeps the library's events and outbox in MySQL with MYSQL_URL${mysqlSkipReason ? ` (${mysqlSkipReason})` : ''}`,
    async () => {
      const database = await freshMysqlDatabase('demo');
      try {
        const result = await demo({ KAFKA_BROKERS: '', POSTGRES_URL: '', MYSQL_URL: database.url });
        expectRuntimeWarnings(result.stderr);
        expect(result.code).toBe(0);
        const out = result.stdout;
        expect(out).toContain('library events + outbox: MySQL');
        expect(out).toContain('the rolled-back transaction published nothing: 2 published, 0 outbox rows');
        expect(out).toContain('inventory handled all 6 messages; copies on the shelf → 3');
        expect(out).toContain('outbox drained after event 8: 6 published, 2 kept internal (BookAdded, BookLost); backlog 0, dead 0');
        const [rows] = await database.pool.query<mysql.RowDataPacket[]>('SELECT count(*) AS n FROM keiyaku_outbox');
        expect(Number(rows[0]!['n'])).toBe(0);
      } finally {
        await database.drop();
      }
    },
    120_000,
  );
});
