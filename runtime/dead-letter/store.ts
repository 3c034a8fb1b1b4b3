/**
 * Dead-letter stores: where a subscription under a {@link DeadLetterPolicy} parks a message
 * whose retries ran out, with everything needed to understand and redrive it.
 * Redrive is a human decision: fix the cause, `remove` the record, republish or rewind.
 */
import { randomUUID } from 'node:crypto';
import { checkLease, pageLimit, parkedFromRequest, summaryOf } from './records.js';

export interface ParkedError {
  readonly name: string;
  readonly message: string;
  readonly stack?: string;
}

export interface ParkedMessage {
  readonly id: string;
  readonly channel: string;
  /** The contract address the record came from (`bookings.{region}.events` resolved). */
  readonly address: string;
  /**
   * The broker topic the record was read from (Kafka topic, Iggy `stream/topic`) when the
   * transport names one; absent on records parked before stores kept it.
   */
  readonly topic?: string;
  readonly groupId: string;
  /** Contract message type (`ce_type`), empty when the record had none. */
  readonly type: string;
  /** The bytes as received (they may not be valid UTF-8 or JSON). */
  readonly payload: Uint8Array;
  readonly headers: Readonly<Record<string, string>>;
  readonly key?: string;
  readonly partition?: number;
  readonly offset?: string;
  readonly error: ParkedError;
  /** Handler attempts made before parking. */
  readonly attempts: number;
  readonly firstFailureAt: Date;
  readonly lastFailureAt: Date;
  readonly parkedAt: Date;
}

export type ParkRequest = Omit<ParkedMessage, 'id' | 'parkedAt'>;

export interface DeadLetterFilter {
  readonly channel?: string;
  readonly groupId?: string;
}

/** What a list of parked messages shows: everything but the payload, headers and stack. */
export type ParkedSummary = Omit<ParkedMessage, 'payload' | 'headers' | 'error'> & {
  readonly error: Omit<ParkedError, 'stack'>;
  /** Size of the parked payload in bytes. */
  readonly payloadBytes: number;
};

export interface DeadLetterPage extends DeadLetterFilter {
  /** At most this many summaries, oldest first (default 100). */
  readonly limit?: number;
}

export interface DeadLetterStore {
  park(request: ParkRequest, parkedAt: Date): Promise<ParkedMessage>;
  /** Oldest first. */
  list(filter?: DeadLetterFilter): Promise<readonly ParkedMessage[]>;
  get(id: string): Promise<ParkedMessage | undefined>;
  /** True when a record was removed; a claim on it ends with it. */
  remove(id: string): Promise<boolean>;
  count(filter?: DeadLetterFilter): Promise<number>;
  /**
   * Summaries for a list view, bounded in the store's own query (no payloads read).
   * Optional for stores written before it; callers fall back to `list`.
   */
  summaries?(page?: DeadLetterPage): Promise<readonly ParkedSummary[]>;
  /**
   * Claims a record for a redrive: of any number of concurrent callers (in this process or
   * another one on the same store), exactly one gets the record until it calls `release(id)` or
   * `remove(id)`; a claim older than `leaseMs` may be taken again (its redriver died).
   * Undefined when there is no such record or it is claimed. Optional for stores written before
   * it; the redrive then claims in process memory only.
   */
  claim?(id: string, leaseMs: number): Promise<ParkedMessage | undefined>;
  /** Gives up a claim (the redrive failed; the record stays parked). */
  release?(id: string): Promise<void>;
  close?(): Promise<void>;
}

/** The payload as text, or undefined when it is not valid UTF-8. */
export function payloadText(parked: Pick<ParkedMessage, 'payload'>): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(parked.payload);
  } catch {
    return undefined;
  }
}

export function errorForParking(error: unknown): ParkedError {
  if (error instanceof Error)
    return { name: error.name, message: error.message, ...(error.stack === undefined ? {} : { stack: error.stack }) };
  return { name: 'Error', message: String(error) };
}

function matches(parked: ParkedMessage, filter: DeadLetterFilter | undefined): boolean {
  return (
    (filter?.channel === undefined || parked.channel === filter.channel) &&
    (filter?.groupId === undefined || parked.groupId === filter.groupId)
  );
}

/** Parks in process memory: gone when the process ends. Claims are held in the same memory. */
export class InMemoryDeadLetterStore implements DeadLetterStore {
  readonly #records = new Map<string, ParkedMessage>();
  /** Record id → when it was claimed (ms since the epoch). */
  readonly #claims = new Map<string, number>();

  async park(request: ParkRequest, parkedAt: Date): Promise<ParkedMessage> {
    const parked = parkedFromRequest(randomUUID(), request, parkedAt);
    this.#records.set(parked.id, parked);
    return parked;
  }

  async list(filter?: DeadLetterFilter): Promise<readonly ParkedMessage[]> {
    return [...this.#records.values()].filter((p) => matches(p, filter));
  }

  async summaries(page?: DeadLetterPage): Promise<readonly ParkedSummary[]> {
    const limit = pageLimit(page);
    const out: ParkedSummary[] = [];
    for (const parked of this.#records.values()) {
      if (out.length >= limit) break;
      if (matches(parked, page)) out.push(summaryOf(parked));
    }
    return out;
  }

  async get(id: string): Promise<ParkedMessage | undefined> {
    return this.#records.get(id);
  }

  async claim(id: string, leaseMs: number): Promise<ParkedMessage | undefined> {
    checkLease(leaseMs);
    const parked = this.#records.get(id);
    if (parked === undefined) return undefined;
    const now = Date.now();
    const claimedAt = this.#claims.get(id);
    if (claimedAt !== undefined && claimedAt > now - leaseMs) return undefined;
    this.#claims.set(id, now);
    return parked;
  }

  async release(id: string): Promise<void> {
    this.#claims.delete(id);
  }

  async remove(id: string): Promise<boolean> {
    this.#claims.delete(id);
    return this.#records.delete(id);
  }

  async count(filter?: DeadLetterFilter): Promise<number> {
    return (await this.list(filter)).length;
  }
}
