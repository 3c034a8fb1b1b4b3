/** Retry timing: exponential backoff with a cap and jitter, and the dead-letter schedule. */

export interface BackoffOptions {
  /** First delay in ms (default 200). */
  readonly initialMs?: number;
  /** Growth per attempt (default 2). */
  readonly multiplier?: number;
  /** Largest delay in ms (default 30 000). */
  readonly maxMs?: number;
  /** Fraction of the delay that is randomised, 0..1 (default 0.2). */
  readonly jitter?: number;
}

export interface Backoff {
  /** Delay before retry number `attempt` (1 = the first retry). */
  delay(attempt: number): number;
}

/** Exponential backoff: initial × multiplier^(attempt-1), capped, ± jitter. */
export function exponentialBackoff(options: BackoffOptions = {}, random: () => number = Math.random): Backoff {
  const initial = options.initialMs ?? 200;
  const multiplier = options.multiplier ?? 2;
  const max = options.maxMs ?? 30_000;
  const jitter = Math.min(1, Math.max(0, options.jitter ?? 0.2));
  return {
    delay(attempt: number): number {
      const base = Math.min(max, initial * multiplier ** Math.max(0, attempt - 1));
      const spread = base * jitter;
      return Math.max(0, Math.round(base - spread + random() * 2 * spread));
    },
  };
}

/** A fixed schedule; the last entry repeats. */
export function scheduleBackoff(scheduleMs: readonly number[]): Backoff {
  if (scheduleMs.length === 0) throw new RangeError('a backoff schedule needs at least one entry');
  return { delay: (attempt) => scheduleMs[Math.min(scheduleMs.length, Math.max(1, attempt)) - 1]! };
}

/** Opt-in dead-lettering: retry `maxRetries` times on `backoffSchedule`, then park and move on. */
export interface DeadLetterPolicy {
  readonly maxRetries: number;
  /** Delays between attempts in ms; the last entry repeats. Default {@link DEFAULT_DEAD_LETTER_SCHEDULE}. */
  readonly backoffSchedule?: readonly number[];
}

/** 1 s, 5 s, 30 s, 2 min, 10 min; the last entry repeats. */
export const DEFAULT_DEAD_LETTER_SCHEDULE: readonly number[] = Object.freeze([1_000, 5_000, 30_000, 120_000, 600_000]);
