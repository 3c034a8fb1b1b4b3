/**
 * What every SQL outbox store shares, whatever its engine: option defaults, the schema version
 * check, the registry of channels written (so the dispatcher provisions them), the channel
 * encoders, the dispatcher, waking sleeping dispatchers, and turning stored rows into
 * {@link OutboxRow}s and counts. An engine adapter (`@keiyaku/sqlite`, `@keiyaku/postgres`)
 * extends {@link OutboxStoreBase} and keeps only what differs: its SQL, how rows are claimed,
 * how the dispatcher's lease is held, and how a commit wakes it.
 */
import type { Clock } from '../core/clock.js';
import { systemClock } from '../core/clock.js';
import type { AnyChannel, AnyContractMessage } from '../core/contract.js';
import type { Logger } from '../core/logger.js';
import type { Waiter } from '../core/wake-up.js';
import { OutboxDispatcher, type OutboxDispatcherDeps, type OutboxDispatcherOptions } from './dispatcher.js';

export { capOutboxBatch } from './dispatcher-parts.js';

import {
  OUTBOX_SCHEMA_VERSION,
  type OutboxChannelOptions,
  type OutboxClaimRequest,
  type OutboxCounts,
  type OutboxDispatchStore,
  OutboxEncoder,
  OutboxError,
  type OutboxFailure,
  type OutboxFilter,
  type OutboxRow,
  type OutboxRowState,
} from './outbox.js';

/** The options every outbox store takes. */
export interface OutboxStoreOptions {
  readonly clock?: Clock;
  /** CloudEvents `ce_source` of written messages (default `keiyaku`). */
  readonly source?: string;
  /** How long a dispatcher's lease (lock or lanes) holds without renewal (default 30 s). */
  readonly leaseMs?: number;
}

/** What a store's dispatcher needs besides the store and its clock. */
export type OutboxStoreDispatcherDeps = Omit<OutboxDispatcherDeps, 'store' | 'clock'>;

/** The dispatcher's lease when none is given. */
export const DEFAULT_OUTBOX_LEASE_MS = 30_000;

/**
 * The shared shell of an outbox store. `logger` (when the adapter has one) is handed to the
 * dispatcher unless the caller passes its own.
 */
export abstract class OutboxStoreBase implements OutboxDispatchStore {
  /** Names the database in errors and logs (`sqlite:<file>`, `postgres:<host>`). */
  abstract readonly description: string;
  protected readonly clock: Clock;
  protected readonly leaseMs: number;
  /** Dispatchers asleep in {@link wait}; {@link wakeAll} wakes them. */
  protected readonly waiters = new Set<Waiter>();
  readonly #source: string | undefined;
  readonly #logger: Logger | undefined;
  readonly #channels: AnyChannel[] = [];

  protected constructor(options: OutboxStoreOptions, logger?: Logger) {
    this.clock = options.clock ?? systemClock;
    this.#source = options.source;
    this.leaseMs = options.leaseMs ?? DEFAULT_OUTBOX_LEASE_MS;
    this.#logger = logger;
  }

  /** Throws the typed error for a database without the outbox tables or with another schema version. */
  protected assertSchemaVersion(version: number | undefined): void {
    if (version === undefined)
      throw new OutboxError('outbox_not_migrated', `the outbox tables do not exist in ${this.description}: run outbox.migrate() first`);
    if (version !== OUTBOX_SCHEMA_VERSION)
      throw new OutboxError(
        'outbox_schema_version',
        `${this.description} holds outbox schema version ${version}; this keiyaku reads version ${OUTBOX_SCHEMA_VERSION}`,
      );
  }

  /** The encoder of a channel writer; remembers the channel so {@link dispatcher} provisions it. */
  protected encoderFor<M extends AnyContractMessage>(channel: AnyChannel<M>, options: OutboxChannelOptions<M>): OutboxEncoder<M> {
    if (!this.#channels.includes(channel as AnyChannel)) this.#channels.push(channel as AnyChannel);
    return new OutboxEncoder(channel, options, { clock: this.clock, ...(this.#source === undefined ? {} : { source: this.#source }) });
  }

  /** The dispatcher of this outbox, to host with `messaging.host(...)`. Channels written through `channel()` are provisioned. */
  dispatcher(deps: OutboxStoreDispatcherDeps, options: OutboxDispatcherOptions = {}): OutboxDispatcher {
    return new OutboxDispatcher(
      { store: this, clock: this.clock, ...(this.#logger === undefined ? {} : { logger: this.#logger }), ...deps },
      { ...options, channels: [...this.#channels, ...(options.channels ?? [])] },
    );
  }

  /** Wakes every dispatcher asleep in {@link wait}. */
  protected wakeAll(): void {
    for (const wake of [...this.waiters]) wake();
  }

  abstract open(owner: string): Promise<void>;
  abstract renew(owner: string): Promise<boolean>;
  abstract release(owner: string): Promise<void>;
  abstract claim(owner: string, limit: number, now: number): Promise<readonly OutboxRow[]>;
  abstract claimNext(owner: string, request: OutboxClaimRequest): Promise<readonly OutboxRow[]>;
  abstract published(ids: readonly string[], now: number, keep: boolean): Promise<void>;
  abstract failed(id: string, failure: OutboxFailure): Promise<void>;
  abstract prune(before: number): Promise<number>;
  abstract wait(ms: number, signal: AbortSignal): Promise<void>;
  abstract counts(): Promise<OutboxCounts>;
  abstract list(filter?: OutboxFilter): Promise<readonly OutboxRow[]>;
  abstract get(id: string): Promise<OutboxRow | undefined>;
  abstract reset(id: string): Promise<boolean>;
  abstract remove(id: string): Promise<boolean>;
  abstract close(): Promise<void>;
}

/**
 * An outbox row as both engines store it (snake_case columns). Numbers may come back as
 * strings (PostgreSQL `bigint`), headers as JSON text (SQLite) or an object (`jsonb`).
 */
export interface OutboxTableRow {
  readonly seq: number | string;
  readonly message_id: string;
  readonly channel: string;
  readonly address: string;
  readonly partition_key: string | null;
  readonly type: string;
  readonly payload: Uint8Array;
  readonly headers: string | Record<string, string>;
  readonly created_at: number | string;
  readonly state: OutboxRowState;
  readonly attempts: number;
  readonly next_attempt_at: number | string;
  readonly last_error: string | null;
  readonly finished_at: number | string | null;
}

/** The columns of {@link OutboxTableRow}, in table order, for `SELECT` lists. */
export const OUTBOX_COLUMNS =
  'seq, message_id, channel, address, partition_key, type, payload, headers, created_at, state, attempts, next_attempt_at, last_error, finished_at';

/** A stored row as the dispatcher and operators see it (frozen; the payload a view of the driver's buffer). */
export function outboxRowFrom(row: OutboxTableRow): OutboxRow {
  return Object.freeze({
    id: String(row.seq),
    messageId: row.message_id,
    channel: row.channel,
    address: row.address,
    ...(row.partition_key === null ? {} : { key: row.partition_key }),
    type: row.type,
    payload: new Uint8Array(row.payload.buffer, row.payload.byteOffset, row.payload.byteLength),
    headers: typeof row.headers === 'string' ? (JSON.parse(row.headers) as Record<string, string>) : row.headers,
    createdAt: Number(row.created_at),
    state: row.state,
    attempts: row.attempts,
    nextAttemptAt: Number(row.next_attempt_at),
    ...(row.last_error === null ? {} : { lastError: row.last_error }),
    ...(row.finished_at === null ? {} : { finishedAt: Number(row.finished_at) }),
  });
}

/** The counts of `SELECT state, count(*) AS n, min(created_at) AS oldest … GROUP BY state`. */
export function outboxCountsFrom(
  rows: Iterable<{ readonly state: string; readonly n: number | string; readonly oldest: number | string | null }>,
): OutboxCounts {
  let counts: { pending: number; dead: number; published: number; oldestPendingAt?: number } = { pending: 0, dead: 0, published: 0 };
  for (const row of rows) {
    const n = Number(row.n);
    if (row.state === 'pending')
      counts = { ...counts, pending: n, ...(row.oldest === null ? {} : { oldestPendingAt: Number(row.oldest) }) };
    else if (row.state === 'dead') counts.dead = n;
    else if (row.state === 'published') counts.published = n;
  }
  return counts;
}

/** The typed error for a write or read on a database without the outbox tables; `fix` names what creates them. */
export function outboxNotMigrated(fix: string, cause: unknown): OutboxError {
  return new OutboxError('outbox_not_migrated', `the outbox tables do not exist in this database: run ${fix}`, { cause });
}
