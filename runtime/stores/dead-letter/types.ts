/**
 * The dead-letter store's types, apart from the stores themselves so that the record helpers
 * (records.ts) and the stores (store.ts) both read them without importing each other.
 */
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
