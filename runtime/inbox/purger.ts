/**
 * Retention of an inbox: a component the `Messaging` host runs beside the subscriptions that use
 * the inbox (kind `inbox`, one per store), deleting rows older than the store's `retentionMs` in
 * batches, so a purge never holds a long transaction. The host adds it on the first subscription
 * with that inbox.
 */
import { type Clock, systemClock } from '../core/clock.js';
import type { HostedComponent, HostedComponentHealth } from '../core/hosted.js';
import { type Logger, silentLogger } from '../core/logger.js';
import type { InboxStore } from './inbox.js';

export interface InboxPurgerOptions {
  /** Name in health and logs (default `inbox:<store description>`). */
  readonly name?: string;
  /** How often a purge runs (default 60 s). */
  readonly intervalMs?: number;
  /** Most rows one delete removes (default 1000); a purge repeats while batches come back full. */
  readonly batchSize?: number;
}

export interface InboxPurgerDeps {
  readonly store: InboxStore;
  readonly clock?: Clock;
  readonly logger?: Logger;
}

export class InboxPurger implements HostedComponent {
  readonly kind = 'inbox';
  readonly name: string;
  readonly store: InboxStore;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #intervalMs: number;
  readonly #batchSize: number;
  readonly #stop = new AbortController();
  #loop: Promise<void> | undefined;
  #purged = 0;
  #lastError: string | undefined;

  constructor(deps: InboxPurgerDeps, options: InboxPurgerOptions = {}) {
    this.store = deps.store;
    this.#clock = deps.clock ?? systemClock;
    this.#logger = deps.logger ?? silentLogger;
    this.name = options.name ?? `inbox:${deps.store.description}`;
    this.#intervalMs = options.intervalMs ?? 60_000;
    this.#batchSize = options.batchSize ?? 1_000;
  }

  async start(): Promise<void> {
    this.#loop ??= this.#run();
  }

  /** Deletes every row older than the retention now, batch by batch; returns how many. */
  async purge(): Promise<number> {
    const before = this.#clock.now() - this.store.retentionMs;
    let total = 0;
    for (;;) {
      const removed = await this.store.purge(before, this.#batchSize);
      total += removed;
      if (removed < this.#batchSize || this.#stop.signal.aborted) break;
    }
    this.#purged += total;
    return total;
  }

  async #run(): Promise<void> {
    const signal = this.#stop.signal;
    while (!signal.aborted) {
      try {
        const removed = await this.purge();
        this.#lastError = undefined;
        if (removed > 0) this.#logger.debug('inbox: purged rows past retention', { name: this.name, rows: removed });
      } catch (error) {
        this.#lastError = String(error);
        this.#logger.warn('inbox: purging old rows failed; will try again', { name: this.name, error: this.#lastError });
      }
      await this.#clock.sleep(this.#intervalMs, signal).catch(() => undefined);
    }
  }

  async stop(): Promise<void> {
    this.#stop.abort();
    await this.#loop;
  }

  health(): HostedComponentHealth {
    const running = this.#loop !== undefined && !this.#stop.signal.aborted;
    return {
      kind: this.kind,
      name: this.name,
      ready: running,
      ...(running ? {} : { reason: this.#loop === undefined ? 'not started' : 'stopped' }),
      details: {
        retentionMs: this.store.retentionMs,
        purged: this.#purged,
        ...(this.#lastError === undefined ? {} : { lastError: this.#lastError }),
      },
    };
  }
}
