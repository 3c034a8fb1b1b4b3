/**
 * The transactional outbox, engine-independent part: turning contract messages (or domain
 * events through a mapper) into outbox records at write time, the stored row, the store
 * interface the dispatcher and operators use, and the outbox's typed errors.
 *
 * A record carries everything the publisher would put on the wire (address, key, payload and
 * the CloudEvents headers: id, type, source, time, correlation and causation), computed and
 * validated inside the user's transaction, so the dispatcher only copies bytes to the broker.
 */
import { randomUUID } from 'node:crypto';
import { resolveAddress } from '../core/address.js';
import { type Clock, systemClock } from '../core/clock.js';
import type { AnyChannel, AnyContractMessage, HeadersOf } from '../core/contract.js';
import { ContractValidationError } from '../core/contract.js';
import { CE_HEADERS, type EnvelopeOptions, envelopeRecord } from '../core/envelope.js';
import { KeiyakuError } from '../core/errors.js';
import { type EventMapper, type EventMapperContext, unwrapMapped } from '../stores/event-store/mapper.js';

/** Version of the outbox tables this runtime reads and writes (`keiyaku_outbox_schema`). */
export const OUTBOX_SCHEMA_VERSION = 1;

/** The outbox was used in a way it does not support (not in a transaction, locked, missing tables, unknown row). */
export class OutboxError extends KeiyakuError {
  override readonly name: string = 'OutboxError';
}

/** A second dispatcher on one SQLite database file: only one may run per file. */
export class OutboxLockedError extends OutboxError {
  override readonly name = 'OutboxLockedError';
  /** Who holds the lock (`host:pid:random`). */
  readonly holder: string;
  /** When the holder's lease runs out unless it renews it. */
  readonly leaseUntil: Date;

  constructor(database: string, holder: string, leaseUntil: Date) {
    super(
      'outbox_locked',
      `another outbox dispatcher (${holder}) holds ${database} until ${leaseUntil.toISOString()}; run one dispatcher per SQLite file (stop the other one, or wait for its lease to expire)`,
    );
    this.holder = holder;
    this.leaseUntil = leaseUntil;
  }
}

/** What one outbox row holds before it is written: a wire record plus its message type and channel. */
export interface OutboxRecord {
  /** `ce_id`: the message id consumers deduplicate on. */
  readonly messageId: string;
  readonly channel: string;
  readonly address: string;
  /** Partition key; rows of one key are published in the order they were written. */
  readonly key?: string;
  readonly type: string;
  readonly payload: Uint8Array;
  /** Every wire header (CloudEvents `ce_*` and extra ones). */
  readonly headers: Readonly<Record<string, string>>;
  /** When the row was written (ms since the epoch). */
  readonly createdAt: number;
}

export type OutboxRowState = 'pending' | 'published' | 'dead';

/** A stored outbox row. */
export interface OutboxRow extends OutboxRecord {
  /** Row id: the outbox's sequence number, as a decimal string (rows of one key go out in this order). */
  readonly id: string;
  readonly state: OutboxRowState;
  /** Failed publish attempts so far. */
  readonly attempts: number;
  /** Earliest time of the next attempt (ms since the epoch). */
  readonly nextAttemptAt: number;
  readonly lastError?: string;
  /** When the row was published or went dead (ms since the epoch). */
  readonly finishedAt?: number;
}

/** Filter of {@link OutboxAdmin.list}. */
export interface OutboxFilter {
  /** Default `dead`. */
  readonly state?: OutboxRowState;
  readonly channel?: string;
  /** Most rows returned (default 100). */
  readonly limit?: number;
}

/** Operations on stored rows, for operators (the `keiyaku dead-letters` command) and tests. */
export interface OutboxAdmin {
  /** Rows in `state` (dead by default), oldest first. */
  list(filter?: OutboxFilter): Promise<readonly OutboxRow[]>;
  /** One row by id, or undefined. */
  get(id: string): Promise<OutboxRow | undefined>;
  /** Puts a dead row back to pending with zero attempts, due now. False when no dead row has this id. */
  reset(id: string): Promise<boolean>;
  /** Deletes a row (any state). False when there is none with this id. */
  remove(id: string): Promise<boolean>;
  /** Pending, dead and published (kept for retention) row counts, and the oldest pending row's creation time. */
  counts(): Promise<OutboxCounts>;
}

export interface OutboxCounts {
  readonly pending: number;
  readonly dead: number;
  readonly published: number;
  /** Creation time of the oldest pending row (ms since the epoch), if any. */
  readonly oldestPendingAt?: number;
}

/** The part of a store a dispatcher drives. Implemented for SQLite and PostgreSQL. */
export interface OutboxDispatchStore extends OutboxAdmin {
  /** Human-readable name of the database for logs and errors. */
  readonly description: string;
  /** Takes what one dispatcher needs (the SQLite lock; PostgreSQL notifications). Throws {@link OutboxLockedError} on SQLite when another holds it. */
  open(owner: string): Promise<void>;
  /** Keeps the dispatcher's lease alive; false when it was lost (another dispatcher took over). */
  renew(owner: string): Promise<boolean>;
  /**
   * Due pending rows, oldest first, at most `limit`, whose key is not blocked by an earlier row
   * waiting for a retry, and that no other live dispatcher holds. Rows of one key come in order.
   */
  claim(owner: string, limit: number, now: number): Promise<readonly OutboxRow[]>;
  /**
   * A claim that lets the dispatcher overlap its steps: like {@link claim}, but never returns the
   * rows `inFlight` (claimed earlier, being sent) and keeps their lanes held, caps the batch at
   * `maxBytes` (payload and headers; never fewer than one row), and first settles the rows
   * `published` (acknowledged by the transport) as {@link published} would, in the same statement
   * or transaction. Optional: without it the dispatcher claims, sends and marks one batch at a time.
   */
  claimNext?(owner: string, request: OutboxClaimRequest): Promise<readonly OutboxRow[]>;
  /** The rows were acknowledged by the transport: delete them, or (`keep`) mark them published for the retention period. */
  published(ids: readonly string[], now: number, keep: boolean): Promise<void>;
  /** A publish attempt failed: record it, and either schedule the next attempt or mark the row dead. */
  failed(id: string, failure: OutboxFailure): Promise<void>;
  /** Ends the dispatcher's claims (releases leases and locks). */
  release(owner: string): Promise<void>;
  /** Deletes published rows finished before `before`. Returns how many. */
  prune(before: number): Promise<number>;
  /** Resolves on a wake-up (new rows committed) or after `ms`, or when `signal` aborts. */
  wait(ms: number, signal: AbortSignal): Promise<void>;
  /** Closes what the store opened itself (never the user's connection or pool). */
  close(): Promise<void>;
}

/** What {@link OutboxDispatchStore.claimNext} is asked for. */
export interface OutboxClaimRequest {
  /** Most rows. */
  readonly limit: number;
  /** Most bytes of payload and headers (the first row is returned whatever its size). */
  readonly maxBytes: number;
  /** Rows are due when their next attempt is at or before this time (ms since the epoch). */
  readonly now: number;
  /** Rows claimed earlier and still being sent: not returned, their lanes kept. */
  readonly inFlight: readonly string[];
  /** Rows the transport acknowledged: deleted, or (`keep`) marked published at `now`, before the claim. */
  readonly published: readonly string[];
  readonly keep: boolean;
}

export interface OutboxFailure {
  readonly attempts: number;
  readonly error: string;
  /** The next attempt's time, or `dead` to give up. */
  readonly next: number | 'dead';
  readonly now: number;
}

/** Options of one channel of the outbox (like the publisher's). */
export interface OutboxChannelOptions<M extends AnyContractMessage> {
  /** Partition key of a message written without one (the aggregate id), as the publisher's `key`. */
  readonly key?: (message: M) => string | undefined;
  /** The concrete address, required when the channel has parameters (or given per write). */
  readonly address?: string;
  /** CloudEvents `ce_source` (default: the outbox's `source`, else `keiyaku`). */
  readonly source?: string;
}

/**
 * Options of one written message: the publisher's envelope options (`headers` are the message's
 * contract headers where the contract declares them, `H`), and the address of a parameterized channel.
 */
export interface OutboxWriteOptions<H = Readonly<Record<string, string>>> extends EnvelopeOptions<H> {
  readonly address?: string;
}

/** Domain events of one aggregate written through a mapper. */
export interface OutboxEventsOptions {
  /** The aggregate the events belong to: the partition key and the mapper's `aggregateId`. */
  readonly aggregateId: string;
  readonly correlationId?: string;
  /** Causation id when the events carry no ids of their own. */
  readonly causationId?: string;
  readonly metadata?: Readonly<Record<string, string>>;
  /** When the events happened (default: now). */
  readonly time?: Date;
  /** Ids of the events (become the causation ids of the messages); random UUIDs by default. */
  readonly eventIds?: readonly string[];
  /** Global positions of the events (default: 1, 2, … within this write). */
  readonly positions?: readonly number[];
  /** Partition key (default: `aggregateId`). */
  readonly key?: string;
  /** Address of a parameterized channel. */
  readonly address?: string;
}

/**
 * Encodes and validates contract messages of one channel into outbox records. Each storage
 * engine wraps one in a writer that inserts the records with the user's transaction handle.
 */
export class OutboxEncoder<M extends AnyContractMessage> {
  readonly channel: AnyChannel<M>;
  readonly #options: OutboxChannelOptions<M>;
  readonly #clock: Clock;
  readonly #source: string;
  readonly #address: string | undefined;

  constructor(channel: AnyChannel<M>, options: OutboxChannelOptions<M> = {}, deps: { clock?: Clock; source?: string } = {}) {
    this.channel = channel;
    this.#options = options;
    this.#clock = deps.clock ?? systemClock;
    this.#source = options.source ?? deps.source ?? 'keiyaku';
    // A parameterized channel without a default address resolves per write.
    this.#address = options.address ?? (typeof channel.address === 'string' ? channel.address : undefined);
  }

  /**
   * The record of `message`: validated against its schema and its contract headers against the
   * headers schema (a {@link ContractValidationError} naming the field or header otherwise),
   * encoded, with the CloudEvents and contract headers the publisher would write.
   */
  encode<T extends M>(message: T, options: OutboxWriteOptions<HeadersOf<T>> = {}): OutboxRecord {
    const type = this.channel.typeOf(message);
    const descriptor = this.channel.message(type);
    if (descriptor === undefined)
      throw new KeiyakuError('unknown_message_type', `channel ${this.channel.id} does not carry message type ${JSON.stringify(type)}`);
    const issues = descriptor.validate(descriptor.boxed ? (message as unknown as { value: unknown }).value : message);
    if (issues.length > 0) throw new ContractValidationError(type, issues);
    const address = resolveAddress(this.channel, options.address ?? this.#address);
    const pending = this.channel.prepare?.(address, type);
    if (pending !== undefined) {
      pending.catch(() => undefined); // asked again by prepare(); not an unhandled rejection meanwhile
      throw new OutboxError(
        'outbox_not_prepared',
        `channel ${this.channel.id} must read the schema id of ${type} on ${address} from its Schema Registry before a message is written in a synchronous transaction: await the outbox channel's prepare() first`,
      );
    }
    const key = options.key ?? this.#options.key?.(message);
    const now = this.#clock.now();
    // The publisher's envelope, the key given apart (no copy of the options per message); the
    // message id is the envelope's `ce_id` (options.id, else a random UUID).
    const record = envelopeRecord(this.channel, message, address, this.#source, options, key, now);
    const headers = record.headers;
    const messageId = headers[CE_HEADERS.id]!;
    // One literal per shape, so records of a channel share one hidden class.
    return key === undefined
      ? { messageId, channel: this.channel.id, address, type, payload: record.value, headers, createdAt: now }
      : { messageId, channel: this.channel.id, address, key, type, payload: record.value, headers, createdAt: now };
  }

  /**
   * {@link prepare} for one message (at `options.address`); undefined at once for a channel that
   * needs nothing looked up (JSON), without building an item list.
   */
  prepareOne(message: M, options?: OutboxWriteOptions<HeadersOf<M>>): Promise<void> | undefined {
    if (this.channel.prepare === undefined) return undefined;
    return this.prepare(options?.address, [this.channel.typeOf(message)]);
  }

  /**
   * Readies the encoding of `types` (default every type of the channel) on `address` (default the
   * encoder's), for a channel that must look something up first (a Schema Registry's schema id);
   * undefined when there is nothing to wait for. A synchronous transaction (SQLite) cannot wait
   * inside it: await this before it. Rejects with a retriable error while the registry is unavailable.
   */
  prepare(address?: string, types: readonly string[] = this.channel.messageTypes): Promise<void> | undefined {
    if (this.channel.prepare === undefined) return undefined;
    const at = resolveAddress(this.channel, address ?? this.#address);
    const pending: Promise<void>[] = [];
    for (const type of types) {
      const prepared = this.channel.prepare(at, type);
      if (prepared !== undefined) pending.push(prepared);
    }
    return pending.length === 0 ? undefined : Promise.all(pending).then(() => undefined);
  }

  /** {@link prepare} for the messages of `items` (each a message or `[message, options]`) at their addresses. */
  prepareItems(items: readonly (M | readonly [M, OutboxWriteOptions<HeadersOf<M>>])[]): Promise<void> | undefined {
    if (this.channel.prepare === undefined) return undefined;
    const pending: Promise<void>[] = [];
    for (const item of items) {
      const [message, options] = Array.isArray(item) ? (item as readonly [M, OutboxWriteOptions<HeadersOf<M>>]) : [item as M, undefined];
      const prepared = this.prepare(options?.address, [this.channel.typeOf(message)]);
      if (prepared !== undefined) pending.push(prepared);
    }
    return pending.length === 0 ? undefined : Promise.all(pending).then(() => undefined);
  }

  /** Records of `messages` (each a message or `[message, options]`), in order. */
  encodeMany(items: Iterable<M | readonly [M, OutboxWriteOptions<HeadersOf<M>>]>): OutboxRecord[] {
    const records: OutboxRecord[] = [];
    for (const item of items) {
      if (Array.isArray(item)) records.push(this.encode(item[0] as M, item[1] as OutboxWriteOptions<HeadersOf<M>>));
      else records.push(this.encode(item as M));
    }
    return records;
  }

  /**
   * Maps domain events of one aggregate through `mapper` and encodes the contract messages;
   * events the mapper turns into `null` stay internal. Key = the aggregate id, causation id =
   * the event's id, as the event relay publishes them. A mapper that returns
   * `withHeaders(message, headers)` gives the message its contract headers, validated with it.
   */
  encodeEvents<D>(mapper: EventMapper<D, M>, events: readonly D[], options: OutboxEventsOptions): OutboxRecord[] {
    const time = options.time ?? new Date(this.#clock.now());
    const records: OutboxRecord[] = [];
    events.forEach((event, index) => {
      const eventId = options.eventIds?.[index] ?? randomUUID();
      const context: EventMapperContext = {
        aggregateId: options.aggregateId,
        position: options.positions?.[index] ?? index + 1,
        timestamp: time,
        eventId,
        ...(options.correlationId === undefined ? {} : { correlationId: options.correlationId }),
        ...(options.causationId === undefined ? {} : { causationId: options.causationId }),
        metadata: options.metadata ?? {},
      };
      const mapped = unwrapMapped(mapper.map(event, context));
      if (mapped === null) return;
      records.push(
        this.encode(mapped.message, {
          ...(mapped.headers === undefined ? {} : { headers: mapped.headers }),
          key: options.key ?? options.aggregateId,
          causationId: eventId,
          time,
          ...(options.correlationId === undefined ? {} : { correlationId: options.correlationId }),
          ...(options.address === undefined ? {} : { address: options.address }),
        }),
      );
    });
    return records;
  }
}

/** Parses a row id given by a user (`list`, `show`, `reset`, `remove`); a typed error when it is not one. */
export function parseRowId(id: string): bigint {
  if (!/^[1-9]\d{0,18}$/.test(id))
    throw new OutboxError('outbox_bad_id', `${JSON.stringify(id)} is not an outbox row id (a positive integer)`);
  return BigInt(id);
}

/** The owner name of a dispatcher: host, process id and a random part. */
export function dispatcherOwner(hostname: string, pid: number): string {
  return `${hostname}:${pid}:${randomUUID().slice(0, 8)}`;
}
