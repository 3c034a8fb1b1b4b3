/**
 * Time, injected: production uses the system clock, tests a {@link ManualClock}, and the
 * runtime runs the same code under both (no test-mode switches).
 */
export interface Clock {
  now(): number;
  /** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('aborted', 'AbortError');
}

export const systemClock: Clock = Object.freeze({
  now: () => Date.now(),
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(abortReason(signal));
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      const onAbort = (): void => {
        clearTimeout(timer);
        reject(abortReason(signal!));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  },
});

interface Sleeper {
  readonly until: number;
  readonly resolve: () => void;
}

/**
 * A clock that moves only when told. `advance(ms)` wakes every sleeper whose time has come,
 * in order, letting the work they start run before the next one wakes.
 */
export class ManualClock implements Clock {
  #now: number;
  #sleepers: Sleeper[] = [];

  constructor(start = Date.UTC(2026, 0, 1)) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  /** How many sleeps are pending (useful to wait until the code under test is parked). */
  get pending(): number {
    return this.#sleepers.length;
  }

  /** The earliest pending wake-up time, if any. */
  get nextWake(): number | undefined {
    return this.#sleepers.reduce<number | undefined>((min, s) => (min === undefined || s.until < min ? s.until : min), undefined);
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(abortReason(signal));
      const sleeper: Sleeper = {
        until: this.#now + Math.max(0, ms),
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = (): void => {
        this.#sleepers = this.#sleepers.filter((s) => s !== sleeper);
        reject(abortReason(signal!));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#sleepers.push(sleeper);
    });
  }

  /** Moves time forward by `ms`, waking sleepers due on the way. */
  async advance(ms: number): Promise<void> {
    const target = this.#now + ms;
    while (true) {
      await settle();
      const due = this.#sleepers.filter((s) => s.until <= target).sort((a, b) => a.until - b.until)[0];
      if (due === undefined) break;
      this.#now = Math.max(this.#now, due.until);
      this.#sleepers = this.#sleepers.filter((s) => s !== due);
      due.resolve();
    }
    this.#now = target;
    await settle();
  }
}

/** Lets pending promise callbacks and immediate timers run. */
export async function settle(rounds = 5): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}
