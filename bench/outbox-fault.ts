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
 * Store: SQLite (a temporary file) by default; PostgreSQL with OUTBOX_FAULT_POSTGRES_URL.
 * Broker: KAFKA_BROKERS, else scripts/kafka start on KAFKA_PORT (default: free ports), stopped after.
 * Loopback only; bounded: OUTBOX_FAULT_ROWS rows (default 10 000), OUTBOX_FAULT_KILLS kills (default 3).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { Kafka, logLevel } from 'kafkajs';
import pg from 'pg';
import { BookBorrowed, BookIntegrationEvents } from '../generated/index.js';
import { PostgresOutbox } from '../runtime/postgres/index.js';
import { SqliteOutbox } from '../runtime/sqlite/index.js';
import { freePort } from '../test/setup/ports.js';

const root = join(import.meta.dirname, '..');

export interface OutboxFaultOptions {
  readonly brokers: string;
  /** A PostgreSQL URL (a fresh database is created on it), or undefined for a SQLite file. */
  readonly postgresUrl?: string;
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
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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
  const name = `keiyaku_outbox_fault_${randomUUID().replaceAll('-', '').slice(0, 10)}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const pool = new pg.Pool({ connectionString: url.toString(), max: 4 });
  pool.on('error', () => {});
  await pool.query('CREATE TABLE loans (copy_id text PRIMARY KEY, book_id text NOT NULL)');
  const outbox = new PostgresOutbox(pool);
  await outbox.migrate();
  const books = outbox.channel(BookIntegrationEvents);
  return {
    store: url.toString(),
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
      const drop = new pg.Client({ connectionString: serverUrl });
      await drop.connect();
      await drop.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await drop.end();
    },
  };
}

function startDispatcher(store: string, brokers: string, namespace: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=keiyaku-source', join(root, 'bench', 'outbox-fault-child.ts')], {
    cwd: root,
    env: { ...process.env, OUTBOX_FAULT_STORE: store, KAFKA_BROKERS: brokers, OUTBOX_FAULT_NAMESPACE: namespace },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the dispatcher process did not start in 60 s: ${stderr}`)), 60_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('started')) {
        clearTimeout(timer);
        resolve(child);
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the dispatcher process exited with ${code}: ${stderr}`));
    });
  });
}

/**
 * Counts the `sent` lines a dispatcher process prints, from the moment it is watched, so none
 * printed while the fault sleeps or reads the backlog is missed. `next(after, done)` resolves
 * with true on the first `sent` line past the `after`-th, with false once `done()` holds (every
 * row written and published: no batch will come), and rejects if the process exits.
 */
function watchSent(child: ChildProcess): { count(): number; next(after: number, done: () => Promise<boolean>): Promise<boolean> } {
  let count = 0;
  let partial = '';
  let exitedWith: string | undefined;
  const wake = new Set<() => void>();
  child.stdout!.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop()!;
    for (const line of lines) if (line === 'sent') count++;
    for (const w of wake) w();
  });
  child.once('exit', (code, signal) => {
    exitedWith = `${code ?? signal}`;
    for (const w of wake) w();
  });
  return {
    count: () => count,
    next: (after, done) =>
      new Promise<boolean>((resolve, reject) => {
        const deadline = Date.now() + 60_000;
        let settled = false;
        const finish = (error: Error | undefined, value: boolean): void => {
          if (settled) return;
          settled = true;
          wake.delete(check);
          clearInterval(poll);
          if (error) reject(error);
          else resolve(value);
        };
        const check = (): void => {
          if (count > after) finish(undefined, true);
          else if (exitedWith !== undefined)
            finish(new Error(`the dispatcher process exited (${exitedWith}) before it sent a batch`), false);
        };
        const poll = setInterval(() => {
          if (Date.now() > deadline) finish(new Error('the dispatcher sent no batch in 60 s while rows were pending'), false);
          else
            void done().then(
              (d) => d && count <= after && finish(undefined, false),
              (error: unknown) => finish(error as Error, false),
            );
        }, 100);
        wake.add(check);
        check();
      }),
  };
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
  });
}

/** Reads the topic to its high watermarks: how often each message id arrived, and each key's ids in arrival order. */
async function readTopic(brokers: string, topic: string): Promise<{ counts: Map<string, number>; byKey: Map<string, number[]> }> {
  const kafka = new Kafka({ brokers: brokers.split(','), clientId: 'outbox-fault-reader', logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  const ends = await admin.fetchTopicOffsets(topic);
  await admin.disconnect();
  const remaining = new Map(ends.filter((p) => p.high !== p.low).map((p) => [p.partition, BigInt(p.high)]));
  const counts = new Map<string, number>();
  const byKey = new Map<string, number[]>();
  const consumer = kafka.consumer({ groupId: `outbox-fault-reader-${randomUUID()}`, maxWaitTimeInMs: 100 });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await new Promise<void>((resolve, reject) => {
    if (remaining.size === 0) return resolve();
    const timer = setTimeout(() => reject(new Error('reading the topic took longer than 120 s')), 120_000);
    void consumer.run({
      eachMessage: async ({ partition, message }) => {
        const id = message.headers?.['ce_id']?.toString() ?? '';
        counts.set(id, (counts.get(id) ?? 0) + 1);
        const key = message.key?.toString() ?? '';
        const seq = Number(id.replace(/^\D+/, ''));
        const list = byKey.get(key);
        if (list) list.push(seq);
        else byKey.set(key, [seq]);
        if (BigInt(message.offset) + 1n >= (remaining.get(partition) ?? 0n)) remaining.delete(partition);
        if (remaining.size === 0) {
          clearTimeout(timer);
          resolve();
        }
      },
    });
  });
  await consumer.disconnect();
  return { counts, byKey };
}

export async function runOutboxKillFault(options: OutboxFaultOptions): Promise<OutboxFaultResult> {
  const log = options.log ?? (() => {});
  const service = options.postgresUrl ? await postgresService(options.postgresUrl) : await sqliteService();
  const namespace = `outbox-fault-${randomUUID().slice(0, 8)}`;
  let child: ChildProcess | undefined;
  try {
    child = await startDispatcher(service.store, options.brokers, namespace);
    // Watched before any row is written: the first kill lands on the first batch the broker
    // acknowledged, so every run has at least one kill mid-batch.
    let sent = watchSent(child);
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
      sent = watchSent(child);
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
    const { counts, byKey } = await readTopic(options.brokers, `${namespace}.${BookIntegrationEvents.address}`);
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
  let brokers = process.env['KAFKA_BROKERS'];
  // A broker of its own on free ports (broker, controller, SASL) unless KAFKA_PORT says where: two runs never collide.
  const env = { ...process.env, KAFKA_PORT: process.env['KAFKA_PORT'] ?? String(await freePort(3)) };
  const started = !brokers;
  if (!brokers) {
    brokers = execFileSync(join(root, 'scripts', 'kafka'), ['start'], { env, encoding: 'utf8' })
      .trim()
      .split('\n')
      .pop()!;
  }
  try {
    const result = await runOutboxKillFault({
      brokers,
      ...(process.env['OUTBOX_FAULT_POSTGRES_URL'] ? { postgresUrl: process.env['OUTBOX_FAULT_POSTGRES_URL'] } : {}),
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
    if (started) execFileSync(join(root, 'scripts', 'kafka'), ['stop'], { env, stdio: 'ignore' });
  }
}
