/**
 * Dead-letter stores: where a subscription under a {@link DeadLetterPolicy} parks a message
 * whose retries ran out, with everything needed to understand and redrive it.
 * Redrive is a human decision: fix the cause, `remove` the record, republish or rewind.
 */
import { randomUUID } from 'node:crypto';
import { checkLease, pageLimit, parkedFromRequest, summaryOf } from './records.js';

import type { DeadLetterFilter, DeadLetterPage, DeadLetterStore, ParkedError, ParkedMessage, ParkedSummary, ParkRequest } from './types.js';

export type { PayloadView, PayloadViewKind, PayloadViewOptions } from './payload-view.js';
export { payloadText, payloadView } from './payload-view.js';
export type {
  DeadLetterFilter,
  DeadLetterPage,
  DeadLetterStore,
  ParkedError,
  ParkedMessage,
  ParkedSummary,
  ParkRequest,
} from './types.js';

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
