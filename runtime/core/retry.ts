/**
 * The one retry loop of the runtime and its transports, and the one test of whether an error is
 * worth another attempt.
 */
import type { Backoff } from './backoff.js';
import type { Clock } from './clock.js';

/**
 * Whether trying again can help: an error says it cannot with `retriable: false` (every
 * `KeiyakuError` carries the flag); any other failure may be transient.
 */
export function isRetriable(error: unknown): boolean {
  return (error as { retriable?: unknown } | null | undefined)?.retriable !== false;
}

export interface RetryOptions {
  /** Attempts in all, the first included; 0 = no limit (until it succeeds or fails for good). */
  readonly maxAttempts: number;
  /** The wait before attempt n + 1 is `backoff.delay(n)`. */
  readonly backoff: Backoff;
  readonly clock: Clock;
  /** Stops waiting: the pending wait rejects with the signal's reason. */
  readonly signal?: AbortSignal;
  /** Which errors are worth another attempt (default {@link isRetriable}). */
  readonly retriable?: (error: unknown) => boolean;
  /** Told after a failed attempt, before the wait that precedes the next one. */
  readonly onRetry?: (error: unknown, attempt: number, delayMs: number) => void;
}

/**
 * Runs `attempt(1)`, `attempt(2)`, … until one resolves, an error is not retriable, or
 * `maxAttempts` is reached; then rejects with the last error.
 */
export async function retry<T>(attempt: (n: number) => Promise<T>, options: RetryOptions): Promise<T> {
  const retriable = options.retriable ?? isRetriable;
  for (let n = 1; ; n++) {
    try {
      return await attempt(n);
    } catch (error) {
      if (!retriable(error) || (options.maxAttempts > 0 && n >= options.maxAttempts) || options.signal?.aborted === true) throw error;
      const delayMs = options.backoff.delay(n);
      options.onRetry?.(error, n, delayMs);
      await options.clock.sleep(delayMs, options.signal);
    }
  }
}
