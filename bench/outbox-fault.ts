/**
 * `npm run fault:outbox`: the outbox dispatcher's process is SIGKILLed mid-stream and
 * restarted, several times, while the service keeps committing domain changes with their
 * outbox rows (and rolls some transactions back). Afterwards the Kafka topic is read to its
 * end: every committed row must be there at least once, no rolled-back row at all, and each
 * key's rows in commit order. Prints one line:
 *
 *   outbox fault: N committed, N published, 0 lost, D duplicates
 *
 * Each kill lands right after the broker acknowledged a batch and before the dispatcher marked it
 * published (see bench/outbox-fault-child.ts), so duplicates are expected and counted.
 * Store: SQLite (a temporary file) by default; PostgreSQL with OUTBOX_FAULT_POSTGRES_URL; MySQL or
 * MariaDB with OUTBOX_FAULT_MYSQL_URL (a fresh database is created on either server).
 * Broker: KAFKA_BROKERS, else scripts/kafka start on KAFKA_PORT (default: free ports), stopped after.
 * Loopback only; bounded: OUTBOX_FAULT_ROWS rows (default 10 000), OUTBOX_FAULT_KILLS kills (default 3).
 */
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { BookBorrowed, BookIntegrationEvents } from '../generated/index.js';
import { MysqlOutbox } from '../runtime/mysql/index.js';
import { PostgresOutbox } from '../runtime/postgres/index.js';
import { SqliteOutbox } from '../runtime/sqlite/index.js';
import { createDatabase, createMysqlDatabase, exited, ownBroker, readTopic, sleep, spawnChild, watchLines } from './fault-kit.js';

export interface OutboxFaultOptions {
  readonly brokers: string;
  /** A PostgreSQL URL (a fresh database is created on it), or undefined for a SQLite file. */
  readonly postgresUrl?: string;
  /** A MySQL / MariaDB URL (a fresh database is created on it); takes precedence over `postgresUrl`. */
  readonly mysqlUrl?: string;
  readonly rows: number;
  readonly kills: number;
  /** Progress lines (not the result line). */
  readonly log?: (line: string) => void;
}

export interface OutboxFaultResult {
  readonly committed: number;
  /** Distinct committed rows found on the topic. */
  readonly published: number;
  readonly lost: number;
  readonly duplicates: number;
  /** Rows of rolled-back transactions found on the topic (must be 0). */
  readonly leakedRollbacks: number;
  /** Keys whose rows arrived out of commit order (must be 0). */
  readonly outOfOrderKeys: number;
  readonly kills: number;
}

const ROWS_PER_TRANSACTION = 10;
const KEYS = 200;
const bookId = (k: number): string => `6f1c2b8e-3a4d-4e5f-9a0b-${String(k).padStart(12, '0')}`;
const borrowed = (i: number, k: number) =>
  BookBorrowed.create({
    bookId: bookId(k),
    copyId: `C-${i}`,
    borrower: { memberId: 'M-1001' },
    borrowedAt: '2026-11-02T10:15:00Z',
    dueAt: '2026-11-23T10:15:00Z',
    channel: 'desk',
  });

/** The service side: a domain table and the outbox, written in one transaction per aggregate change. */
interface Service {
  /** Commits (or rolls back) one transaction of `rows` loans on book `k`, ids as given. */
  transaction(k: number, ids: readonly number[], rollback: boolean): Promise<void>;
  backlog(): Promise<number>;
  readonly store: string;
  close(): Promise<void>;
}

async function sqliteService(): Promise<Service> {
  const dir = mkdtempSync(join(tmpdir(), 'keiyaku-outbox-fault-'));
  const file = join(dir, 'library.db');
  const db = new Database(file, { timeout: 10_000 });
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE loans (copy_id TEXT PRIMARY KEY, book_id TEXT NOT NULL)');
  const outbox = new SqliteOutbox(db);
  outbox.migrate();
  const books = outbox.channel(BookIntegrationEvents);
  const insertLoan = db.prepare('INSERT INTO loans (copy_id, book_id) VALUES (?, ?)');
  return {
    store: file,
    async transaction(k, ids, rollback) {
      try {
        db.transaction(() => {
          for (const i of ids) {
            insertLoan.run(`C-${i}`, bookId(k));
            books.write(db, borrowed(i, k), { id: rollback ? `rolled-back-${i}` : `row-${i}`, key: bookId(k) });
          }
          if (rollback) throw new Error('rollback');
        })();
      } catch (error) {
        if (!rollback) throw error;
      }
    },
    backlog: async () => (await outbox.counts()).pending,
    async close() {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function postgresService(serverUrl: string): Promise<Service> {
  const database = await createDatabase(serverUrl, 'keiyaku_outbox_fault');
  const pool = new pg.Pool({ connectionString: database.url, max: 4 });
  pool.on('error', () => {});
  await pool.query('CREATE TABLE loans (copy_id text PRIMARY KEY, book_id text NOT NULL)');
  const outbox = new PostgresOutbox(pool);
  await outbox.migrate();
  const books = outbox.channel(BookIntegrationEvents);
  return {
    store: database.url,
    async transaction(k, ids, rollback) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        for (const i of ids) await client.query('INSERT INTO loans (copy_id, book_id) VALUES ($1, $2)', [`C-${i}`, bookId(k)]);
        await books.writeMany(
          client,
          ids.map((i) => [borrowed(i, k), { id: rollback ? `rolled-back-${i}` : `row-${i}`, key: bookId(k) }] as const),
        );
        await client.query(rollback ? 'ROLLBACK' : 'COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
    backlog: async () => (await outbox.counts()).pending,
    async close() {
      await outbox.close();
      await pool.end();
      await database.drop();
    },
  };
}

async function mysqlService(serverUrl: string): Promise<Service> {
  const database = await createMysqlDatabase(serverUrl, 'keiyaku_outbox_fault');
  const pool = mysql.createPool({ uri: database.url, connectionLimit: 4 });
  await pool.query('CREATE TABLE loans (copy_id VARCHAR(64) PRIMARY KEY, book_id VARCHAR(64) NOT NULL)');
  const outbox = new MysqlOutbox(pool);
  await outbox.migrate();
  const books = outbox.channel(BookIntegrationEvents);
  return {
    store: database.url,
    async transaction(k, ids, rollback) {
      const connection = await pool.getConnection();
      try {
        await connection.beginTransaction();
        for (const i of ids) await connection.execute('INSERT INTO loans (copy_id, book_id) VALUES (?, ?)', [`C-${i}`, bookId(k)]);
        await books.writeMany(
          connection,
          ids.map((i) => [borrowed(i, k), { id: rollback ? `rolled-back-${i}` : `row-${i}`, key: bookId(k) }] as const),
        );
        if (rollback) await connection.rollback();
        else await connection.commit();
      } catch (error) {
        await connection.rollback().catch(() => undefined);
        throw error;
      } finally {
        connection.release();
      }
    },
    backlog: async () => (await outbox.counts()).pending,
    async close() {
      await outbox.close();
      await pool.end();
      await database.drop();
    },
  };
}

async function startDispatcher(store: string, brokers: string, namespace: string): Promise<ChildProcess> {
  const env = { OUTBOX_FAULT_STORE: store, KAFKA_BROKERS: brokers, OUTBOX_FAULT_NAMESPACE: namespace };
  const { child, started } = spawnChild('outbox-fault-child.ts', [], env, () => {});
  await started;
  return child;
}

export async function runOutboxKillFault(options: OutboxFaultOptions): Promise<OutboxFaultResult> {
  const log = options.log ?? (() => {});
  const service = options.mysqlUrl
    ? await mysqlService(options.mysqlUrl)
    : options.postgresUrl
      ? await postgresService(options.postgresUrl)
      : await sqliteService();
  const namespace = `outbox-fault-${randomUUID().slice(0, 8)}`;
  let child: ChildProcess | undefined;
  try {
    child = await startDispatcher(service.store, options.brokers, namespace);
    // Watched before any row is written: the first kill lands on the first batch the broker
    // acknowledged, so every run has at least one kill mid-batch.
    let sent = watchLines(child, (line) => line === 'sent');
    log('dispatcher started');
    let next = 0;
    let committed = 0;
    let transactions = 0;
    let writingDone = false;
    const writing = (async () => {
      while (committed < options.rows) {
        const k = transactions % KEYS;
        const rollback = transactions % 25 === 24;
        const count = Math.min(ROWS_PER_TRANSACTION, options.rows - committed);
        const ids = Array.from({ length: count }, (_, j) => next + j);
        next += count;
        await service.transaction(k, ids, rollback);
        if (!rollback) committed += count;
        transactions++;
        // Spread the writes over a few seconds so the kills land mid-stream.
        if (transactions % 20 === 0) await sleep(25);
      }
    })().finally(() => {
      writingDone = true;
    });
    // Every row written and already published: no batch is left to kill the dispatcher in.
    const drained = async (): Promise<boolean> => writingDone && (await service.backlog()) === 0;
    let kills = 0;
    while (kills < options.kills) {
      if (kills > 0) await sleep(300 + Math.floor(Math.random() * 400));
      if (!(await sent.next(sent.count(), drained))) break;
      child.kill('SIGKILL');
      await exited(child);
      kills++;
      log(`dispatcher SIGKILLed (${kills}); backlog ${await service.backlog()}; restarting`);
      child = await startDispatcher(service.store, options.brokers, namespace);
      sent = watchLines(child, (line) => line === 'sent');
    }
    await writing;
    const deadline = Date.now() + 180_000;
    while ((await service.backlog()) > 0) {
      if (Date.now() > deadline) throw new Error(`the outbox did not drain in 180 s (backlog ${await service.backlog()})`);
      await sleep(100);
    }
    child.kill('SIGTERM');
    await exited(child);
    child = undefined;
    const counts = new Map<string, number>();
    const byKey = new Map<string, number[]>();
    // Per partition in offset order, so each key's rows in the order the topic holds them.
    for (const record of await readTopic(options.brokers, `${namespace}.${BookIntegrationEvents.address}`, 'read_uncommitted')) {
      const id = record.headers['ce_id'] ?? '';
      counts.set(id, (counts.get(id) ?? 0) + 1);
      const seq = Number(id.replace(/^\D+/, ''));
      const list = byKey.get(record.key);
      if (list) list.push(seq);
      else byKey.set(record.key, [seq]);
    }
    let published = 0;
    let duplicates = 0;
    let leakedRollbacks = 0;
    for (const [id, n] of counts) {
      if (id.startsWith('rolled-back-')) leakedRollbacks += n;
      else {
        published++;
        duplicates += n - 1;
      }
    }
    let outOfOrderKeys = 0;
    for (const seqs of byKey.values()) {
      const seen = new Set<number>();
      const firsts = seqs.filter((s) => !seen.has(s) && seen.add(s));
      if (firsts.some((s, i) => i > 0 && s < firsts[i - 1]!)) outOfOrderKeys++;
    }
    return { committed, published, lost: committed - published, duplicates, leakedRollbacks, outOfOrderKeys, kills };
  } finally {
    if (child) {
      child.kill('SIGKILL');
      await exited(child);
    }
    await service.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  // A store URL variable that is set but empty (a server that did not start) would quietly run on SQLite.
  for (const name of ['OUTBOX_FAULT_POSTGRES_URL', 'OUTBOX_FAULT_MYSQL_URL']) {
    if (process.env[name] !== undefined && process.env[name].trim() === '') {
      process.stderr.write(`outbox fault: ${name} is set but empty; give the server's URL or unset it to run on SQLite\n`);
      process.exit(2);
    }
  }
  // A broker of its own (on KAFKA_PORT, else on free ports: two runs never collide) unless KAFKA_BROKERS names one.
  const broker = process.env['KAFKA_BROKERS'] ? undefined : await ownBroker(process.env['KAFKA_PORT']);
  try {
    const result = await runOutboxKillFault({
      brokers: broker?.brokers ?? process.env['KAFKA_BROKERS']!,
      ...(process.env['OUTBOX_FAULT_POSTGRES_URL'] ? { postgresUrl: process.env['OUTBOX_FAULT_POSTGRES_URL'] } : {}),
      ...(process.env['OUTBOX_FAULT_MYSQL_URL'] ? { mysqlUrl: process.env['OUTBOX_FAULT_MYSQL_URL'] } : {}),
      rows: Number(process.env['OUTBOX_FAULT_ROWS'] ?? 10_000),
      kills: Number(process.env['OUTBOX_FAULT_KILLS'] ?? 3),
      log: (line) => process.stderr.write(`${line}\n`),
    });
    process.stdout.write(
      `outbox fault: ${result.committed} committed, ${result.published} published, ${result.lost} lost, ${result.duplicates} duplicates\n`,
    );
    if (result.lost !== 0 || result.leakedRollbacks !== 0 || result.outOfOrderKeys !== 0) {
      process.stderr.write(
        `outbox fault FAILED: ${result.lost} lost, ${result.leakedRollbacks} rows of rolled-back transactions published, ${result.outOfOrderKeys} keys out of order\n`,
      );
      process.exitCode = 1;
    }
  } finally {
    await broker?.stop();
  }
}
