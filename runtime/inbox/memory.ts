/**
 * The inbox in process memory, for tests and the in-memory demo. It records a message id when
 * the handler succeeded (nothing else to roll back), and a second delivery of an id that is being
 * handled waits for the first to finish. Lost with the process, like the memory transport.
 */
import { type Clock, systemClock } from '../core/clock.js';
import { isThenable } from '../core/thenable.js';
import { DEFAULT_INBOX_RETENTION_MS, type InboxOutcome, type InboxStore } from './inbox.js';

/** The handle a memory inbox gives the handler: which message it runs for. */
export interface MemoryInboxTransaction {
  readonly groupId: string;
  readonly messageId: string;
}

export interface InMemoryInboxOptions {
  readonly clock?: Clock;
  /** How long ids are kept (default 7 days). */
  readonly retentionMs?: number;
}

export class InMemoryInboxStore implements InboxStore<MemoryInboxTransaction> {
  readonly description = 'memory';
  readonly retentionMs: number;
  readonly #clock: Clock;
  /** `group \0 id` → when recorded, in insertion order (oldest first for purging). */
  readonly #rows = new Map<string, number>();
  readonly #inFlight = new Map<string, Promise<unknown>>();

  constructor(options: InMemoryInboxOptions = {}) {
    this.#clock = options.clock ?? systemClock;
    this.retentionMs = options.retentionMs ?? DEFAULT_INBOX_RETENTION_MS;
  }

  process(groupId: string, messageId: string, work: (tx: MemoryInboxTransaction) => unknown): InboxOutcome | Promise<InboxOutcome> {
    const key = `${groupId}\u0000${messageId}`;
    const running = this.#inFlight.get(key);
    if (running !== undefined)
      return running.then(
        () => this.process(groupId, messageId, work),
        () => this.process(groupId, messageId, work),
      );
    if (this.#rows.has(key)) return 'duplicate';
    const result = work({ groupId, messageId });
    if (!isThenable(result)) {
      this.#rows.set(key, this.#clock.now());
      return 'processed';
    }
    const pending = (result as Promise<unknown>).then(() => {
      this.#rows.set(key, this.#clock.now());
      return 'processed' as const;
    });
    this.#inFlight.set(key, pending);
    const forget = (): void => {
      this.#inFlight.delete(key);
    };
    pending.then(forget, forget);
    return pending;
  }

  async has(groupId: string, messageId: string): Promise<boolean> {
    return this.#rows.has(`${groupId}\u0000${messageId}`);
  }

  async purge(before: number, limit: number): Promise<number> {
    let removed = 0;
    for (const [key, at] of this.#rows) {
      if (removed >= limit) break;
      if (at < before) {
        this.#rows.delete(key);
        removed++;
      }
    }
    return removed;
  }

  async count(): Promise<number> {
    return this.#rows.size;
  }
}
