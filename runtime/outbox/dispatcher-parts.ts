/**
 * The outbox dispatcher's options, status and the small parts of its work that need none of its
 * state: batches, byte caps, transaction notes and the failures that stop a batch.
 */
import type { BackoffOptions } from '../core/backoff.js';
import type { Clock } from '../core/clock.js';
import type { AnyChannel, ChannelBindings } from '../core/contract.js';
import type { Logger } from '../core/logger.js';
import type { Transport } from '../core/transport.js';
import type { OutboxDispatchStore, OutboxRow } from './outbox.js';

export interface OutboxDispatcherOptions {
  /** Name in health and logs (default `outbox`); unique per host. */
  readonly name?: string;
  /** Most rows per batch (default 500). */
  readonly batchSize?: number;
  /** Most bytes (payloads and headers) per batch (default 1 MiB); a batch always has at least one row. */
  readonly batchBytes?: number;
  /** How long the dispatcher sleeps when there is nothing to do, unless woken (default 1000 ms). */
  readonly pollIntervalMs?: number;
  /** Failed attempts after which a row goes dead (default 10). */
  readonly maxAttempts?: number;
  /** Delays between attempts of a row (default 1 s doubling up to 60 s, 20 % jitter). */
  readonly retry?: BackoffOptions;
  /** How long to keep published rows (default 0: deleted once published). */
  readonly retentionMs?: number;
  /** How often the dispatcher renews its lease (default 5 s); the lease itself is the store's. */
  readonly renewIntervalMs?: number;
  /** How often health figures are refreshed from the database (default 1000 ms). */
  readonly healthIntervalMs?: number;
  /** Channels whose addresses are provisioned (from their bindings) before the first send to them. */
  readonly channels?: readonly AnyChannel[];
  /**
   * Publish each claimed batch in one transaction of the transport (Kafka; needs
   * `Transport.transactionalProducer`): committed only while the dispatcher still holds its lease,
   * rows marked published after the commit, nothing of an aborted or killed batch read by
   * `read_committed` readers. The transactional id defaults to `keiyaku-outbox.<name>.<store hash>`
   * (stable per dispatcher name and store). Every concurrently running dispatcher needs its own
   * stable id — one per instance, e.g. from the pod ordinal — so a restarted instance fences and
   * aborts what its killed predecessor left open; two live ones sharing an id fence each other.
   */
  readonly transactional?: boolean | { readonly transactionalId?: string };
}

export interface OutboxDispatcherDeps {
  readonly store: OutboxDispatchStore;
  readonly transport: Transport;
  readonly clock?: Clock;
  readonly logger?: Logger;
  readonly random?: () => number;
}

export interface OutboxDispatcherStatus {
  readonly running: boolean;
  readonly published: number;
  readonly failedAttempts: number;
  readonly dead: number;
  readonly backlog: number;
  readonly oldestPendingAgeMs: number;
  readonly lastError?: string;
}

/** The default of {@link OutboxDispatcherOptions.batchBytes}. */
export const DEFAULT_OUTBOX_BATCH_BYTES = 1024 * 1024;

export const DEFAULT_RETRY: BackoffOptions = { initialMs: 1_000, multiplier: 2, maxMs: 60_000, jitter: 0.2 };
/** A claimed batch, with the lease losses counted before its claim (it commits only if none followed). */
export interface Batch {
  readonly rows: readonly OutboxRow[];
  readonly losses: number;
}

export const NO_KEYS: ReadonlySet<string> = new Set();

/** The keys of `rows`. */
export function keysOf(rows: readonly OutboxRow[]): ReadonlySet<string> {
  const keys = new Set<string>();
  for (const row of rows) if (row.key !== undefined) keys.add(row.key);
  return keys;
}

/** The row ids of a note (a JSON array of ids); a note of another shape names none. */
export function noteIds(note: string): readonly string[] {
  try {
    const ids: unknown = JSON.parse(note);
    return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : [];
  } catch {
    return [];
  }
}

/**
 * The rows of the last committed transaction may not be marked published: the loop marks them from
 * its note before anything else. No transaction begins meanwhile, as its note would replace that one.
 */
export class SettleFirst extends Error {
  constructor(message = 'the rows of the last committed transaction are to be marked from its note first', cause?: unknown) {
    super(message, cause === undefined ? {} : { cause });
  }
}

/** A commit failed without saying whether it committed. */
export class CommitUnknown extends SettleFirst {
  constructor(cause: unknown) {
    super(`the transaction's commit failed, and may have committed: ${String(cause)}`, cause);
  }
}

/** The dispatcher's lease was found lost before a transaction's commit. */
export class LeaseLost extends Error {
  constructor() {
    super('the outbox lease was lost before the commit');
  }
}

/** Provisions the addresses rows go to (from their channels' bindings), once each, before the first send to them. */
export class Provisioner {
  readonly #transport: Transport;
  readonly #bindings = new Map<string, ChannelBindings>();
  readonly #provisioned = new Map<string, Promise<void>>();

  constructor(transport: Transport, channels: readonly AnyChannel[]) {
    this.#transport = transport;
    for (const channel of channels) {
      // What a publisher of the channel would be refused (structured mode for Avro/Protobuf) is refused here too.
      transport.checkChannel?.(channel, typeof channel.address === 'string' ? channel.address : channel.addressTemplate);
      if (typeof channel.address === 'string') this.#bindings.set(channel.address, channel.bindings);
      this.#bindings.set(`channel:${channel.id}`, channel.bindings);
    }
  }

  async provision(rows: readonly OutboxRow[]): Promise<void> {
    const provision = this.#transport.provision?.bind(this.#transport);
    if (!provision) return;
    for (const row of rows) {
      if (this.#provisioned.has(row.address)) continue;
      const bindings = this.#bindings.get(row.address) ?? this.#bindings.get(`channel:${row.channel}`);
      if (bindings === undefined) continue;
      const pending = provision(row.address, bindings).catch((error: unknown) => {
        this.#provisioned.delete(row.address);
        throw error;
      });
      this.#provisioned.set(row.address, pending);
    }
    await Promise.all(rows.map((row) => this.#provisioned.get(row.address)));
  }
}

/** The first rows of `rows` within `maxBytes` of payloads and headers, at least one. */
export function capOutboxBatch(rows: readonly OutboxRow[], maxBytes: number): readonly OutboxRow[] {
  let bytes = 0;
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    bytes += row.payload.byteLength;
    for (const name in row.headers) bytes += name.length + row.headers[name]!.length;
    if (bytes > maxBytes && i > 0) return rows.slice(0, i);
  }
  return rows;
}
