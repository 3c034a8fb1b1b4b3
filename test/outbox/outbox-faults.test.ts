// Outbox faults against the real parts (loopback, bounded): the dispatcher's process SIGKILLed
// mid-batch and restarted, the Kafka broker halted while the service keeps committing, and the
// PostgreSQL server restarted mid-stream. Rolled-back transactions and poison rows are covered
// by the outbox conformance suite (test/outbox/*-outbox.test.ts).
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KafkaTransport } from '@keiyaku/kafka';
import { PostgresOutbox } from '@keiyaku/postgres';
import type { Logger, OutgoingRecord, Transport } from '@keiyaku/runtime';
import { InMemoryTransport } from '@keiyaku/runtime/memory';
import { SqliteOutbox } from '@keiyaku/sqlite';
import Database from 'better-sqlite3';
import { Kafka, logLevel } from 'kafkajs';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { runOutboxKillFault } from '../../bench/outbox-fault.js';
import { BookBorrowed, BookIntegrationEvents } from '../../generated/index.js';
import { repoRoot, waitFor } from '../helpers.js';
import { kafkaBrokers, kafkaSkipReason } from '../kafka/kafka-env.js';
import { postgresSkipReason, postgresUrl } from '../postgres/postgres-env.js';
import { portFromEnv } from '../setup/ports.js';

const borrowed = (i: number) =>
  BookBorrowed.create({
    bookId: `6f1c2b8e-3a4d-4e5f-9a0b-${String(i % 7).padStart(12, '0')}`,
    copyId: `C-${i}`,
    borrower: { memberId: 'M-1001' },
    borrowedAt: '2026-11-02T10:15:00Z',
    dueAt: '2026-11-23T10:15:00Z',
    channel: 'desk',
  });
const keyOf = (i: number) => `6f1c2b8e-3a4d-4e5f-9a0b-${String(i % 7).padStart(12, '0')}`;
const collect = (): { logger: Logger; lines: string[] } => {
  const lines: string[] = [];
  const push = (level: string) => (message: string, fields?: Readonly<Record<string, unknown>>) =>
    void lines.push(`${level} ${message} ${JSON.stringify(fields ?? {})}`);
  return { lines, logger: { debug: () => {}, info: push('info'), warn: push('warn'), error: push('error') } };
};

describe(`outbox dispatcher SIGKILLed mid-batch and restarted${kafkaSkipReason ? ` (${kafkaSkipReason})` : ''}`, () => {
  const run = kafkaBrokers === '' ? it.skip : it;
  run(
    'SQLite: every committed row is published, none lost, nothing of rolled-back transactions, keys in order',
    async () => {
      const result = await runOutboxKillFault({ brokers: kafkaBrokers, rows: 2_000, kills: 2 });
      expect(result).toMatchObject({ committed: 2_000, published: 2_000, lost: 0, leakedRollbacks: 0, outOfOrderKeys: 0 });
      // Up to two kills: the fault stops killing once every row is written and published, which a
      // fast dispatcher reaches after the first restart.
      expect(result.kills).toBeGreaterThanOrEqual(1);
      expect(result.kills).toBeLessThanOrEqual(2);
      // Each kill lands after the broker acknowledged a batch and before it was marked published.
      expect(result.duplicates).toBeGreaterThan(0);
    },
    240_000,
  );

  (kafkaBrokers === '' || postgresUrl === '' ? it.skip : it)(
    `PostgreSQL: the same, with the killed dispatcher's lane leases expiring${postgresSkipReason ? ` (${postgresSkipReason})` : ''}`,
    async () => {
      const result = await runOutboxKillFault({ brokers: kafkaBrokers, postgresUrl, rows: 2_000, kills: 2 });
      expect(result).toMatchObject({ committed: 2_000, published: 2_000, lost: 0, leakedRollbacks: 0, outOfOrderKeys: 0 });
      expect(result.duplicates).toBeGreaterThan(0);
    },
    240_000,
  );
});

// The broker test halts and starts the broker on OUTBOX_KAFKA_PORT (else on free ports): its own
// unless pointed at one that may be halted.
const kafkaPort = await portFromEnv('OUTBOX_KAFKA_PORT', 3);
const kafkaScript = (command: string): string =>
  execFileSync(join(repoRoot, 'scripts', 'kafka'), [command], {
    env: { ...process.env, KAFKA_PORT: kafkaPort },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  }).trim();

describe(`outbox while Kafka is halted${kafkaSkipReason ? ` (${kafkaSkipReason})` : ''}`, () => {
  (kafkaBrokers === '' ? it.skip : it)(
    'rows accumulate while the broker is down, then drain in order once it is back',
    async () => {
      const wasRunning = (() => {
        try {
          kafkaScript('status');
          return true;
        } catch {
          return false;
        }
      })();
      const brokers = kafkaScript('start').split('\n').pop()!;
      const dir = mkdtempSync(join(tmpdir(), 'keiyaku-outbox-halt-'));
      const db = new Database(join(dir, 'library.db'));
      db.pragma('journal_mode = WAL');
      const namespace = `outbox-halt-${randomUUID().slice(0, 8)}`;
      const { logger, lines } = collect();
      const transport = new KafkaTransport({
        brokers: [brokers],
        namespace,
        retry: { retries: 2, initialRetryTime: 100, maxRetryTime: 500 },
        client: { connectionTimeout: 1_000, requestTimeout: 3_000 },
        logger,
      });
      const outbox = new SqliteOutbox(db);
      outbox.migrate();
      const books = outbox.channel(BookIntegrationEvents, { key: (m) => m.bookId });
      const dispatcher = outbox.dispatcher(
        { transport, logger },
        { pollIntervalMs: 100, maxAttempts: 1_000, retry: { initialMs: 200, maxMs: 1_000 } },
      );
      const write = (from: number, count: number): void =>
        db.transaction(() => {
          for (let i = from; i < from + count; i++) books.write(db, borrowed(i), { id: `row-${i}` });
        })();
      try {
        await dispatcher.start();
        write(0, 100);
        await waitFor(async () => (await dispatcher.refresh()).backlog === 0, 'the first rows are published', 60_000);
        kafkaScript('halt');
        for (let i = 100; i < 600; i += 50) {
          write(i, 50);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        const during = await dispatcher.refresh();
        expect(during.backlog).toBe(500);
        expect(during.oldestPendingAgeMs).toBeGreaterThan(1_000);
        kafkaScript('start');
        await waitFor(async () => (await dispatcher.refresh()).backlog === 0, 'the backlog drains after the broker is back', 120_000);
        expect(dispatcher.status().dead).toBe(0);
        expect(lines.some((l) => l.startsWith('warn outbox publish failed; retrying'))).toBe(true);

        const kafka = new Kafka({ brokers: [brokers], logLevel: logLevel.NOTHING });
        const consumer = kafka.consumer({ groupId: `${namespace}-reader`, maxWaitTimeInMs: 100 });
        await consumer.connect();
        await consumer.subscribe({ topic: `${namespace}.${BookIntegrationEvents.address}`, fromBeginning: true });
        const byKey = new Map<string, number[]>();
        const ids = new Set<string>();
        void consumer.run({
          eachMessage: async ({ message }) => {
            const id = message.headers?.['ce_id']?.toString() ?? '';
            ids.add(id);
            const key = message.key!.toString();
            byKey.set(key, [...(byKey.get(key) ?? []), Number(id.slice(4))]);
          },
        });
        await waitFor(
          () => ids.size === 600,
          () => `all 600 rows are on the topic (${ids.size})`,
          60_000,
        );
        await consumer.disconnect();
        for (let k = 0; k < 7; k++) {
          const seqs = byKey.get(keyOf(k))!;
          const firsts = seqs.filter((s, i) => seqs.indexOf(s) === i);
          expect(firsts).toEqual([...firsts].sort((a, b) => a - b));
        }
      } finally {
        await dispatcher.stop(AbortSignal.timeout(10_000));
        await transport.close();
        db.close();
        rmSync(dir, { recursive: true, force: true });
        if (!wasRunning) kafkaScript('stop');
      }
    },
    300_000,
  );
});

// The PostgreSQL test restarts a server of its own on OUTBOX_POSTGRES_PORT (else a free port), never
// the one the other test files share: it starts it (unless running), restarts it, and stops it if it started it.
const postgresPort = await portFromEnv('OUTBOX_POSTGRES_PORT');
const postgresScript = (command: string): string =>
  execFileSync(join(repoRoot, 'scripts', 'postgres'), [command], {
    env: { ...process.env, POSTGRES_PORT: postgresPort },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  }).trim();

describe(`outbox while PostgreSQL restarts${postgresSkipReason ? ` (${postgresSkipReason})` : ''}`, () => {
  (postgresUrl === '' ? it.skip : it)(
    'the dispatcher reconnects and resumes; every committed row is published',
    async () => {
      const wasRunning = (() => {
        try {
          postgresScript('status');
          return true;
        } catch {
          return false;
        }
      })();
      const serverUrl = postgresScript('start').split('\n').pop()!;
      const admin = new pg.Client({ connectionString: serverUrl });
      await admin.connect();
      const name = `keiyaku_outbox_restart_${randomUUID().replaceAll('-', '').slice(0, 10)}`;
      await admin.query(`CREATE DATABASE ${name}`);
      await admin.end();
      const databaseUrl = new URL(serverUrl);
      databaseUrl.pathname = `/${name}`;
      const pool = new pg.Pool({ connectionString: databaseUrl.toString(), max: 4 });
      pool.on('error', () => {});
      const sent: OutgoingRecord[] = [];
      const memory = new InMemoryTransport();
      const transport: Transport = {
        name: 'recording',
        capabilities: memory.capabilities,
        consumer: (options) => memory.consumer(options),
        close: () => memory.close(),
        producer() {
          const producer = memory.producer();
          return {
            send: async (records) => {
              await producer.send(records);
              sent.push(...records);
            },
            close: () => producer.close(),
          };
        },
      };
      const { logger, lines } = collect();
      const outbox = new PostgresOutbox(pool, { logger });
      await outbox.migrate();
      const books = outbox.channel(BookIntegrationEvents, { key: (m) => m.bookId });
      const dispatcher = outbox.dispatcher({ transport, logger }, { pollIntervalMs: 100 });
      const committed: number[] = [];
      let failedCommits = 0;
      const write = async (i: number): Promise<void> => {
        let client: pg.PoolClient | undefined;
        try {
          client = await pool.connect();
          // A pooled connection the halted server closed can be handed out before its close is
          // seen: its query fails (counted below) and it also emits 'error', which needs a listener.
          client.on('error', () => undefined);
          await client.query('BEGIN');
          await books.write(client, borrowed(i), { id: `row-${i}` });
          await client.query('COMMIT');
          committed.push(i);
        } catch {
          failedCommits++;
          await client?.query('ROLLBACK').catch(() => undefined);
        } finally {
          client?.release(true);
        }
      };
      try {
        await dispatcher.start();
        for (let i = 0; i < 200; i++) await write(i);
        await waitFor(() => sent.length >= 100, 'the dispatcher is flowing', 30_000);
        postgresScript('halt');
        for (let i = 200; i < 220; i++) await write(i); // fail: the server is down
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        postgresScript('start');
        for (let i = 220; i < 400; i++) await write(i);
        expect(failedCommits).toBe(20);
        await waitFor(
          () => committed.every((i) => sent.some((r) => r.headers['ce_id'] === `row-${i}`)),
          () => `every committed row is published (${sent.length} sent, ${committed.length} committed)`,
          60_000,
        );
        expect(committed.length).toBe(380);
        const uncommitted = sent.filter((r) => {
          const n = Number(r.headers['ce_id']!.slice(4));
          return n >= 200 && n < 220;
        });
        expect(uncommitted).toEqual([]);
        expect(lines.some((l) => l.startsWith('warn outbox dispatcher: database step failed; retrying'))).toBe(true);
        await waitFor(async () => (await dispatcher.refresh()).backlog === 0, 'the backlog is 0', 30_000);
      } finally {
        postgresScript('start');
        await dispatcher.stop(AbortSignal.timeout(10_000));
        await pool.end();
        if (wasRunning) {
          const drop = new pg.Client({ connectionString: serverUrl });
          await drop.connect();
          await drop.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
          await drop.end();
        } else postgresScript('stop');
      }
    },
    180_000,
  );
});
