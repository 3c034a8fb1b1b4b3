/**
 * The MySQL / MariaDB outbox (mysql2, promise API). Writes go through the caller's own
 * connection inside its transaction (a `PoolConnection` or `Connection` after
 * `beginTransaction()`); nothing is committed by the outbox.
 *
 * Several processes may run dispatchers against one database, as with PostgreSQL: keys are
 * hashed into 64 lanes; a dispatcher claims whole lanes (`FOR UPDATE SKIP LOCKED` on the lane
 * rows — MySQL 8.0 and MariaDB 10.6 or later — with a lease that expires if its holder dies), so
 * one key is only ever dispatched by one dispatcher at a time and its rows go out in order.
 *
 * MySQL has no LISTEN/NOTIFY. An idle dispatcher polls (one indexed `SELECT` every
 * `pollIntervalMs`, default {@link DEFAULT_MYSQL_OUTBOX_POLL_MS} ms); a write through this
 * outbox's writers in the same process wakes it at once and it then polls at 1, 2, 4, … ms for a
 * moment, so a row committed in-process goes out a few milliseconds after its commit.
 *
 * ```ts
 * const pool = mysql.createPool(process.env.MYSQL_URL!);
 * const outbox = new MysqlOutbox(pool);
 * await outbox.migrate();
 * const books = outbox.channel(BookIntegrationEvents);
 * const connection = await pool.getConnection();
 * await connection.beginTransaction();
 * await saveBook(connection, book);
 * await books.writeEvents(connection, bookMapper, events, { aggregateId: book.id });
 * await connection.commit();
 * connection.release();
 * messaging.host(outbox.dispatcher({ transport: messaging.transport }));
 * ```
 */

import type { AnyChannel, AnyContractMessage } from '@keiyaku/runtime/adapter';
import {
  OUTBOX_COLUMNS as COLUMNS,
  capOutboxBatch as capBytes,
  type Logger,
  type OutboxChannelOptions,
  type OutboxClaimRequest,
  type OutboxCounts,
  OutboxError,
  type OutboxFailure,
  type OutboxFilter,
  type OutboxRow,
  OutboxStoreBase,
  type OutboxStoreOptions,
  type OutboxTableRow,
  outboxCountsFrom,
  outboxRowFrom,
  parseRowId,
  silentLogger,
  waitForWake,
} from '@keiyaku/runtime/adapter';
import type mysql from 'mysql2/promise';
import { createMysqlPool, parseMysqlUrl } from './client.js';
import { applyMysqlMigrations, MYSQL_OUTBOX_MIGRATION, mysqlMigrationSql, mysqlSchemaVersions } from './migrations.js';
import { errno, MysqlOutboxChannel, notMigrated } from './outbox-channel.js';
import { MYSQL_OUTBOX_LANE_COUNT } from './outbox-schema.js';

export { MysqlOutboxChannel, type MysqlOutboxConnection, mysqlOutboxLane } from './outbox-channel.js';

/**
 * The SQL {@link MysqlOutbox.migrate} amounts to on a database without the outbox: the
 * `keiyaku_schema_versions` table, the outbox tables and lanes (schema version 1) and their
 * version row. Every statement is idempotent (MySQL commits DDL statement by statement, so it is
 * not one transaction). The same as `mysqlMigrationSql(['outbox'])`.
 */
export const MYSQL_OUTBOX_SCHEMA = mysqlMigrationSql([MYSQL_OUTBOX_MIGRATION.component]);

/** How often an idle dispatcher looks for rows committed by other processes, unless given (ms). */
export const DEFAULT_MYSQL_OUTBOX_POLL_MS = 250;

/** The server's current time (UTC, milliseconds), as the lane leases hold it. */
const NOW = 'UTC_TIMESTAMP(3)';

/** The row columns qualified with the alias `o`. */
const JOINED_COLUMNS = COLUMNS.split(', ')
  .map((c) => `o.${c}`)
  .join(', ');

/** After an in-process write, the waits before the next polls (ms), then `pollIntervalMs`. */
const EAGER_WAITS = [1, 2, 4, 8, 16, 32, 64, 128] as const;

/** MySQL's error numbers the outbox tells apart. */
const ER_LOCK_DEADLOCK = 1213;
const ER_LOCK_WAIT_TIMEOUT = 1205;

type Row = OutboxTableRow & { readonly headers: string };

const fromRow = (row: Row): OutboxRow => outboxRowFrom(row);

/** Which server `VERSION()` names, and whether it has `FOR UPDATE SKIP LOCKED` (MySQL 8.0.1+, MariaDB 10.6+). */
export function mysqlServerSupport(version: string): { readonly server: string; readonly supported: boolean } {
  const mariadb = /mariadb/i.test(version);
  // MariaDB behind some proxies reports `5.5.5-10.x.y-MariaDB`.
  const numbers = /(\d+)\.(\d+)\.(\d+)/.exec(mariadb ? version.replace(/^5\.5\.5-/, '') : version);
  const [major, minor, patch] = numbers ? [Number(numbers[1]), Number(numbers[2]), Number(numbers[3])] : [0, 0, 0];
  const at = (a: number, b: number, c: number): boolean => major > a || (major === a && (minor > b || (minor === b && patch >= c)));
  return { server: `${mariadb ? 'MariaDB' : 'MySQL'} ${major}.${minor}.${patch}`, supported: mariadb ? at(10, 6, 0) : at(8, 0, 1) };
}

/** A list of row ids for `IN (?)` (mysql2's `query` expands an array). */
const seqs = (ids: readonly string[]): number[] => ids.map(Number);

export interface MysqlOutboxOptions extends OutboxStoreOptions {
  /** Lanes one claim takes at most (default 16 of 64), so several dispatchers share the work. */
  readonly lanesPerClaim?: number;
  /**
   * How often an idle dispatcher looks for rows committed by other processes (default 250 ms; the
   * dispatcher's own `pollIntervalMs` when that is shorter). Rows written through this outbox in
   * the same process wake it without waiting for this.
   */
  readonly pollIntervalMs?: number;
  readonly logger?: Logger;
}

/**
 * The outbox on one MySQL or MariaDB database. `pool` is the service's mysql2 promise pool (the
 * dispatcher and operators borrow connections from it; the outbox never ends it) or a connection
 * URL `mysql://user:password@host:port/database` (the outbox opens and ends its own pool).
 * Writers only use the connection they are given.
 */
export class MysqlOutbox extends OutboxStoreBase {
  readonly description: string;
  readonly pool: mysql.Pool;
  readonly #ownsPool: boolean;
  readonly #lanesPerClaim: number;
  readonly #pollMs: number;
  /** Lanes of each owner's last claim, for {@link renew} to tell when one was lost. */
  readonly #claimedLanes = new Map<string, number>();
  /** The lanes each owner's last claim left held (taken, or kept for rows in flight). */
  readonly #held = new Map<string, ReadonlySet<number>>();
  /** The lane of each row an owner claimed and may still have in flight. */
  readonly #laneOf = new Map<string, Map<string, number>>();
  /** Index into {@link EAGER_WAITS} of the next wait; past its end the waits are `pollIntervalMs`. */
  #eager: number = EAGER_WAITS.length;
  #serverChecked = false;

  constructor(pool: mysql.Pool | string, options: MysqlOutboxOptions = {}) {
    super(options, options.logger ?? silentLogger);
    if (typeof pool === 'string') {
      this.pool = createMysqlPool(pool, { connectionLimit: 4 });
      this.#ownsPool = true;
      const url = parseMysqlUrl(pool);
      this.description = `mysql:${url.host}:${url.port}`;
    } else {
      this.pool = pool;
      this.#ownsPool = false;
      const config = (pool as unknown as { pool?: { config?: { connectionConfig?: { host?: string; port?: number } } } }).pool?.config
        ?.connectionConfig;
      this.description = `mysql:${config?.host ?? 'localhost'}${config?.port === undefined ? '' : `:${config.port}`}`;
    }
    this.#lanesPerClaim = options.lanesPerClaim ?? 16;
    this.#pollMs = options.pollIntervalMs ?? DEFAULT_MYSQL_OUTBOX_POLL_MS;
  }

  /**
   * Creates or upgrades the outbox tables and lanes (the `outbox` component of
   * `keiyaku_schema_versions`); idempotent, safe from several processes at once. Throws
   * an {@link OutboxError} `outbox_server_version` on a server without `SKIP LOCKED`.
   */
  async migrate(): Promise<void> {
    await this.#checkServer();
    await applyMysqlMigrations(this.pool, [MYSQL_OUTBOX_MIGRATION]);
    await this.#checkVersion();
  }

  /** The schema version in the database, or undefined when the outbox tables are not there. */
  async schemaVersion(): Promise<number | undefined> {
    return (await mysqlSchemaVersions(this.pool))['outbox'];
  }

  async #checkVersion(): Promise<void> {
    this.assertSchemaVersion(await this.schemaVersion());
  }

  async #checkServer(): Promise<void> {
    if (this.#serverChecked) return;
    const [rows] = await this.pool.query<mysql.RowDataPacket[]>('SELECT VERSION() AS version');
    const version = String(rows[0]?.['version'] ?? '');
    const { server, supported } = mysqlServerSupport(version);
    if (!supported)
      throw new OutboxError(
        'outbox_server_version',
        `${this.description} runs ${server} (${version}); the outbox claims rows with FOR UPDATE SKIP LOCKED, which needs MySQL 8.0.1 or MariaDB 10.6 or later`,
      );
    this.#serverChecked = true;
  }

  /** A writer of `channel`'s contract messages into this outbox. */
  channel<M extends AnyContractMessage>(channel: AnyChannel<M>, options: OutboxChannelOptions<M> = {}): MysqlOutboxChannel<M> {
    return new MysqlOutboxChannel(this.encoderFor(channel, options), () => this.#wrote());
  }

  /** Rows were written in this process: wake the dispatchers now and poll eagerly for a moment (the commit is not seen from here). */
  #wrote(): void {
    this.#eager = 0;
    if (this.waiters.size > 0) this.wakeAll();
  }

  async open(owner: string): Promise<void> {
    await this.#checkServer();
    await this.#checkVersion();
    this.#claimedLanes.delete(owner);
    // Whatever this owner may hold from before is given back by its first claim.
    this.#held.set(owner, new Set(Array.from({ length: MYSQL_OUTBOX_LANE_COUNT }, (_, lane) => lane)));
  }

  /**
   * Extends the lease of the owner's lanes. False when a lane of its last claim ran out of its lease
   * (another dispatcher may hold it now): said once, after which the owner holds nothing until its
   * next claim. A transactional dispatcher checks it before it commits a batch.
   */
  async renew(owner: string): Promise<boolean> {
    const held = this.#claimedLanes.get(owner) ?? 0;
    const [result] = await this.pool.query<mysql.ResultSetHeader>(
      `UPDATE keiyaku_outbox_lanes SET lease_until = ${NOW} + INTERVAL ? MICROSECOND WHERE owner = ? AND lease_until >= ${NOW}`,
      [this.leaseMs * 1000, owner],
    );
    let renewed = result.affectedRows;
    // A connection without CLIENT_FOUND_ROWS counts only the rows whose value changed.
    if (renewed < held) {
      const [rows] = await this.pool.query<mysql.RowDataPacket[]>(
        `SELECT count(*) AS n FROM keiyaku_outbox_lanes WHERE owner = ? AND lease_until >= ${NOW}`,
        [owner],
      );
      renewed = Number(rows[0]?.['n'] ?? 0);
    }
    if (renewed >= held) return true;
    this.#claimedLanes.delete(owner);
    return false;
  }

  /** A claim of the dispatcher that does one batch at a time: {@link claimNext} with nothing in flight or acknowledged, and no byte cap. */
  claim(owner: string, limit: number, now: number): Promise<readonly OutboxRow[]> {
    return this.claimNext(owner, { limit, maxBytes: Number.POSITIVE_INFINITY, now, inFlight: [], published: [], keep: false });
  }

  /**
   * One transaction (READ COMMITTED): settle the acknowledged rows (delete them, or mark them
   * published), take free lanes with due rows besides those in flight (or keep ours) with
   * `FOR UPDATE SKIP LOCKED`, give back the lanes neither taken again nor in flight, and read the
   * due rows of the lanes taken, oldest first, without the rows in flight or settled, skipping keys
   * whose head waits for a retry; then the first of them within `maxBytes`. An idle dispatcher
   * (nothing held, in flight or acknowledged) first looks for due rows with one plain `SELECT` and
   * opens no transaction when there are none. A deadlock between two claimers is retried.
   */
  async claimNext(owner: string, request: OutboxClaimRequest): Promise<readonly OutboxRow[]> {
    const excluded = seqs(request.inFlight.length === 0 ? request.published : [...request.inFlight, ...request.published]);
    const idle = request.inFlight.length === 0 && request.published.length === 0 && (this.#held.get(owner)?.size ?? 0) === 0;
    let candidates: number[] | undefined;
    if (idle) {
      candidates = await this.#candidates(this.pool, owner, request.now, excluded);
      if (candidates.length === 0) {
        this.#claimedLanes.set(owner, 0);
        return [];
      }
    }
    for (let attempt = 1; ; attempt++) {
      const connection = await this.pool.getConnection();
      try {
        await connection.query('SET TRANSACTION ISOLATION LEVEL READ COMMITTED');
        await connection.query('START TRANSACTION');
        try {
          const rows = await this.#claimIn(connection, owner, request, excluded, candidates);
          await connection.query('COMMIT');
          return capBytes(rows, request.maxBytes);
        } catch (error) {
          await connection.query('ROLLBACK').catch(() => undefined);
          throw error;
        }
      } catch (error) {
        const n = errno(error);
        if (attempt < 3 && (n === ER_LOCK_DEADLOCK || n === ER_LOCK_WAIT_TIMEOUT)) {
          candidates = undefined;
          continue;
        }
        throw error;
      } finally {
        connection.release();
      }
    }
  }

  /**
   * Lanes free to this owner (no live lease of another) with due rows not excluded, in random order,
   * at most `lanesPerClaim`. Each lane is probed by a scalar subquery (the first due row on the
   * pending index), so the server reads a few index entries per lane instead of every pending row.
   */
  async #candidates(db: mysql.Pool | mysql.PoolConnection, owner: string, now: number, excluded: readonly number[]): Promise<number[]> {
    const [rows] = await db
      .query<mysql.RowDataPacket[]>(
        `SELECT l.lane FROM keiyaku_outbox_lanes l
         WHERE (l.lease_until IS NULL OR l.lease_until < ${NOW} OR l.owner = ?)
           AND (SELECT o.seq FROM keiyaku_outbox o FORCE INDEX (keiyaku_outbox_pending)
                WHERE o.state = 'pending' AND o.lane = l.lane AND o.next_attempt_at <= ?${excluded.length === 0 ? '' : ' AND o.seq NOT IN (?)'}
                LIMIT 1) IS NOT NULL
         ORDER BY RAND() LIMIT ?`,
        excluded.length === 0 ? [owner, now, this.#lanesPerClaim] : [owner, now, excluded, this.#lanesPerClaim],
      )
      .catch(notMigrated);
    return rows.map((r) => Number(r['lane']));
  }

  async #claimIn(
    connection: mysql.PoolConnection,
    owner: string,
    request: OutboxClaimRequest,
    excluded: readonly number[],
    known: number[] | undefined,
  ): Promise<OutboxRow[]> {
    if (request.published.length > 0) {
      if (request.keep)
        await connection.query("UPDATE keiyaku_outbox SET state = 'published', finished_at = ? WHERE seq IN (?)", [
          request.now,
          seqs(request.published),
        ]);
      else await connection.query('DELETE FROM keiyaku_outbox WHERE seq IN (?)', [seqs(request.published)]);
    }
    // The lanes of the rows in flight: remembered from the claims that returned them (read when not).
    const lanes = this.#laneOf.get(owner) ?? new Map<string, number>();
    const flyingLanes = new Set<number>();
    const unknown: string[] = [];
    for (const id of request.inFlight) {
      const lane = lanes.get(id);
      if (lane === undefined) unknown.push(id);
      else flyingLanes.add(lane);
    }
    if (unknown.length > 0) {
      const [rows] = await connection.query<mysql.RowDataPacket[]>('SELECT DISTINCT lane FROM keiyaku_outbox WHERE seq IN (?)', [
        seqs(unknown),
      ]);
      for (const r of rows) flyingLanes.add(Number(r['lane']));
    }
    const flying = [...flyingLanes];
    const candidates = known ?? (await this.#candidates(connection, owner, request.now, excluded));
    // Lock the candidates still free (their lease re-read at the latest commit); lanes another claimer holds locked are skipped.
    let taken: number[] = [];
    if (candidates.length > 0) {
      const [rows] = await connection.query<mysql.RowDataPacket[]>(
        `SELECT lane FROM keiyaku_outbox_lanes WHERE lane IN (?) AND (lease_until IS NULL OR lease_until < ${NOW} OR owner = ?)
         FOR UPDATE SKIP LOCKED`,
        [candidates, owner],
      );
      taken = rows.map((r) => Number(r['lane']));
    }
    const kept = [...taken, ...flying.filter((lane) => !taken.includes(lane))];
    // One statement takes the lanes and gives back the ones held before and neither taken again nor in flight (if still ours).
    const given = [...(this.#held.get(owner) ?? [])].filter((lane) => !kept.includes(lane));
    if (taken.length > 0 || given.length > 0)
      await connection.query(
        `UPDATE keiyaku_outbox_lanes
         SET owner = IF(lane IN (?), ?, NULL), lease_until = IF(lane IN (?), ${NOW} + INTERVAL ? MICROSECOND, NULL)
         WHERE lane IN (?) AND (lane IN (?) OR owner = ?)`,
        [
          taken.length === 0 ? [-1] : taken,
          owner,
          taken.length === 0 ? [-1] : taken,
          this.leaseMs * 1000,
          [...taken, ...given],
          taken.length === 0 ? [-1] : taken,
          owner,
        ],
      );
    let claimed: OutboxRow[] = [];
    const next = new Map<string, number>();
    for (const id of request.inFlight) {
      const lane = lanes.get(id);
      if (lane !== undefined) next.set(id, lane);
    }
    if (taken.length > 0) {
      const rows = await this.#dueRows(connection, taken, request, excluded);
      claimed = rows.map((r) => {
        const row = fromRow(r as unknown as Row);
        next.set(row.id, Number(r['lane']));
        return row;
      });
    }
    this.#laneOf.set(owner, next);
    this.#held.set(owner, new Set(kept));
    // A claim that returns no row, with none in flight, counts no lanes: nothing of its can be lost.
    this.#claimedLanes.set(owner, claimed.length === 0 && request.inFlight.length === 0 ? 0 : kept.length);
    return claimed;
  }

  /**
   * The due rows of the lanes `taken`, oldest first, at most `limit`, without the `excluded` ones
   * and skipping keys whose head waits for a retry; with their lane.
   */
  async #dueRows(
    connection: mysql.PoolConnection,
    taken: readonly number[],
    request: OutboxClaimRequest,
    excluded: readonly number[],
  ): Promise<mysql.RowDataPacket[]> {
    // Keys whose head waits for a retry (few, on the retry index): their later rows wait too.
    const [blockedRows] = await connection.query<mysql.RowDataPacket[]>(
      `SELECT DISTINCT partition_key FROM keiyaku_outbox
       WHERE state = 'pending' AND next_attempt_at > 0 AND next_attempt_at > ? AND partition_key IS NOT NULL`,
      [request.now],
    );
    const blocked = blockedRows.map((r) => String(r['partition_key']));
    const conditions = [
      "state = 'pending'",
      'lane IN (?)',
      'next_attempt_at <= ?',
      ...(excluded.length === 0 ? [] : ['seq NOT IN (?)']),
      ...(blocked.length === 0 ? [] : ['(partition_key IS NULL OR partition_key NOT IN (?))']),
    ];
    const values: unknown[] = [taken, request.now];
    if (excluded.length > 0) values.push(excluded);
    if (blocked.length > 0) values.push(blocked);
    values.push(request.limit);
    // The due row ids in order from the pending index alone (it holds next_attempt_at), then those rows by primary key.
    const [rows] = await connection.query<mysql.RowDataPacket[]>(
      `SELECT ${JOINED_COLUMNS}, o.lane FROM (
         SELECT seq FROM keiyaku_outbox FORCE INDEX (keiyaku_outbox_pending) WHERE ${conditions.join(' AND ')} ORDER BY seq LIMIT ?) d
       JOIN keiyaku_outbox o ON o.seq = d.seq ORDER BY o.seq`,
      values,
    );
    return rows;
  }

  async published(ids: readonly string[], now: number, keep: boolean): Promise<void> {
    if (ids.length === 0) return;
    if (keep) await this.pool.query("UPDATE keiyaku_outbox SET state = 'published', finished_at = ? WHERE seq IN (?)", [now, seqs(ids)]);
    else await this.pool.query('DELETE FROM keiyaku_outbox WHERE seq IN (?)', [seqs(ids)]);
  }

  async failed(id: string, failure: OutboxFailure): Promise<void> {
    if (failure.next === 'dead')
      await this.pool.query(
        "UPDATE keiyaku_outbox SET state = 'dead', attempts = ?, last_error = ?, finished_at = ? WHERE seq = ? AND state = 'pending'",
        [failure.attempts, failure.error, failure.now, Number(id)],
      );
    else
      await this.pool.query(
        "UPDATE keiyaku_outbox SET attempts = ?, last_error = ?, next_attempt_at = ? WHERE seq = ? AND state = 'pending'",
        [failure.attempts, failure.error, failure.next, Number(id)],
      );
  }

  async release(owner: string): Promise<void> {
    this.#held.delete(owner);
    this.#claimedLanes.delete(owner);
    this.#laneOf.delete(owner);
    await this.pool.query('UPDATE keiyaku_outbox_lanes SET owner = NULL, lease_until = NULL WHERE owner = ?', [owner]);
  }

  async prune(before: number): Promise<number> {
    const [result] = await this.pool.query<mysql.ResultSetHeader>(
      "DELETE FROM keiyaku_outbox WHERE state = 'published' AND finished_at < ?",
      [before],
    );
    return result.affectedRows;
  }

  /** Sleeps `pollIntervalMs` (or `ms` when shorter), shorter right after an in-process write, unless woken. */
  async wait(ms: number, signal: AbortSignal): Promise<void> {
    const step = this.#eager < EAGER_WAITS.length ? EAGER_WAITS[this.#eager++]! : this.#pollMs;
    await waitForWake(this.waiters, { timeoutMs: Math.min(ms, step), signal });
  }

  async counts(): Promise<OutboxCounts> {
    const [rows] = await this.pool
      .query<mysql.RowDataPacket[]>('SELECT state, count(*) AS n, min(created_at) AS oldest FROM keiyaku_outbox GROUP BY state')
      .catch(notMigrated);
    return outboxCountsFrom(rows as unknown as { state: string; n: number; oldest: number | string | null }[]);
  }

  async list(filter: OutboxFilter = {}): Promise<readonly OutboxRow[]> {
    const channel = filter.channel ?? null;
    const [rows] = await this.pool
      .query<mysql.RowDataPacket[]>(
        `SELECT ${COLUMNS} FROM keiyaku_outbox WHERE state = ? AND (? IS NULL OR channel = ?) ORDER BY seq LIMIT ?`,
        [filter.state ?? 'dead', channel, channel, filter.limit ?? 100],
      )
      .catch(notMigrated);
    return rows.map((r) => fromRow(r as unknown as Row));
  }

  async get(id: string): Promise<OutboxRow | undefined> {
    const seq = parseRowId(id).toString();
    const [rows] = await this.pool
      .query<mysql.RowDataPacket[]>(`SELECT ${COLUMNS} FROM keiyaku_outbox WHERE seq = ?`, [seq])
      .catch(notMigrated);
    return rows[0] === undefined ? undefined : fromRow(rows[0] as unknown as Row);
  }

  async reset(id: string): Promise<boolean> {
    const seq = parseRowId(id).toString();
    const [result] = await this.pool
      .query<mysql.ResultSetHeader>(
        "UPDATE keiyaku_outbox SET state = 'pending', attempts = 0, next_attempt_at = ?, finished_at = NULL WHERE seq = ? AND state = 'dead'",
        [this.clock.now(), seq],
      )
      .catch(notMigrated);
    if (result.affectedRows > 0) this.#wrote();
    return result.affectedRows > 0;
  }

  async remove(id: string): Promise<boolean> {
    const seq = parseRowId(id).toString();
    const [result] = await this.pool.query<mysql.ResultSetHeader>('DELETE FROM keiyaku_outbox WHERE seq = ?', [seq]).catch(notMigrated);
    return result.affectedRows > 0;
  }

  /** Wakes the dispatchers asleep, and ends the pool when the outbox made it from a URL. */
  async close(): Promise<void> {
    this.wakeAll();
    if (this.#ownsPool && !this.#poolEnded) {
      this.#poolEnded = true;
      await this.pool.end();
    }
  }

  #poolEnded = false;
}
