/**
 * Cost of the durable event store over a bare insert, in the same process and database:
 * N transactions of one event each through `SqliteEventStore.append` / `PostgresEventStore.append`
 * (expected-version check, ordered gapless position, envelope columns, NOTIFY on PostgreSQL)
 * against the same number of single-row INSERT transactions into a plain table with the same
 * payload. PostgreSQL needs POSTGRES_URL (e.g. from `scripts/postgres start`), MySQL/MariaDB
 * MYSQL_URL (e.g. from `scripts/mysql start`; `MysqlEventStore.append`: the head row lock, a
 * locking read of the stream's version, no NOTIFY); without them only SQLite runs. BENCH_EVENTS
 * sets N (default 5000).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { createMysqlPool, MysqlEventStore, migrateMysql } from '../runtime/mysql/index.js';
import { migratePostgres, PostgresEventStore } from '../runtime/postgres/index.js';
import { migrateSqlite, openSqlite, SqliteEventStore } from '../runtime/sqlite/index.js';

const out = (line: string): void => {
  process.stdout.write(`${line}\n`);
};
const N = Number(process.env['BENCH_EVENTS'] ?? 5_000);
const event = (i: number) => ({ type: 'BookBorrowed', copyId: `C-${i}`, borrowerId: 'M-1001', at: '2026-11-02T10:15:00.000Z' });

function rate(ms: number): string {
  return `${Math.round((N / ms) * 1000).toLocaleString('en')} tx/s`;
}

async function sqlite(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'keiyaku-bench-stores-'));
  try {
    const db = openSqlite(join(dir, 'bench.db'));
    migrateSqlite(db);
    db.exec('CREATE TABLE plain (id INTEGER PRIMARY KEY, stream_id TEXT NOT NULL, data TEXT NOT NULL)');
    const insert = db.prepare('INSERT INTO plain (stream_id, data) VALUES (?, ?)');
    const plain = db.transaction((i: number) => insert.run(`book-${i % 100}`, JSON.stringify(event(i))));
    const store = new SqliteEventStore<ReturnType<typeof event>>(db);
    let t = performance.now();
    for (let i = 0; i < N; i++) plain(i);
    const base = performance.now() - t;
    t = performance.now();
    for (let i = 0; i < N; i++) store.append(`book-${i % 100}`, [event(i)]);
    const measured = performance.now() - t;
    out(`sqlite: ${N} appends ${rate(measured)} vs plain insert ${rate(base)} → ${(base / measured).toFixed(2)}× of the plain throughput`);
    db.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function postgres(url: string): Promise<void> {
  const name = `keiyaku_bench_${randomUUID().replaceAll('-', '').slice(0, 10)}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const target = new URL(url);
  target.pathname = `/${name}`;
  const pool = new pg.Pool({ connectionString: target.toString(), max: 2 });
  pool.on('error', () => {}); // DROP DATABASE … WITH (FORCE) below ends connections still closing
  try {
    await migratePostgres(pool);
    await pool.query('CREATE TABLE plain (id BIGSERIAL PRIMARY KEY, stream_id TEXT NOT NULL, data TEXT NOT NULL)');
    const store = new PostgresEventStore<ReturnType<typeof event>>(pool);
    const client = await pool.connect();
    let t = performance.now();
    for (let i = 0; i < N; i++) {
      await client.query('BEGIN');
      await client.query('INSERT INTO plain (stream_id, data) VALUES ($1, $2)', [`book-${i % 100}`, JSON.stringify(event(i))]);
      await client.query('COMMIT');
    }
    const base = performance.now() - t;
    client.release();
    t = performance.now();
    for (let i = 0; i < N; i++) await store.append(`book-${i % 100}`, [event(i)]);
    const measured = performance.now() - t;
    out(
      `postgres: ${N} appends ${rate(measured)} vs plain insert ${rate(base)} → ${(base / measured).toFixed(2)}× of the plain throughput`,
    );
  } finally {
    await pool.end();
    await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
    await admin.end();
  }
}

async function mysqlServer(url: string): Promise<void> {
  const name = `keiyaku_bench_${randomUUID().replaceAll('-', '').slice(0, 10)}`;
  const target = new URL(url);
  const admin = await mysql.createConnection({
    host: target.hostname,
    port: Number(target.port || 3306),
    user: decodeURIComponent(target.username),
    password: decodeURIComponent(target.password),
  });
  await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
  target.pathname = `/${name}`;
  const pool = createMysqlPool(target.toString(), { connectionLimit: 2 });
  try {
    await migrateMysql(pool);
    await pool.query(
      'CREATE TABLE plain (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, stream_id VARCHAR(512) NOT NULL, data LONGTEXT NOT NULL) ENGINE=InnoDB',
    );
    const store = new MysqlEventStore<ReturnType<typeof event>>(pool);
    const connection = await pool.getConnection();
    let t = performance.now();
    for (let i = 0; i < N; i++) {
      await connection.query('START TRANSACTION');
      await connection.query('INSERT INTO plain (stream_id, data) VALUES (?, ?)', [`book-${i % 100}`, JSON.stringify(event(i))]);
      await connection.query('COMMIT');
    }
    const base = performance.now() - t;
    connection.release();
    t = performance.now();
    for (let i = 0; i < N; i++) await store.append(`book-${i % 100}`, [event(i)]);
    const measured = performance.now() - t;
    out(`mysql: ${N} appends ${rate(measured)} vs plain insert ${rate(base)} → ${(base / measured).toFixed(2)}× of the plain throughput`);
  } finally {
    await pool.end();
    await admin.query(`DROP DATABASE IF EXISTS \`${name}\``);
    await admin.end();
  }
}

await sqlite();
const url = process.env['POSTGRES_URL'];
if (url) await postgres(url);
else out('postgres: skipped (set POSTGRES_URL, e.g. from scripts/postgres start)');
const mysqlUrl = process.env['MYSQL_URL'];
if (mysqlUrl) await mysqlServer(mysqlUrl);
else out('mysql: skipped (set MYSQL_URL, e.g. from scripts/mysql start)');
