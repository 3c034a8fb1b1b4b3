/**
 * The log lines of a stalled lane, rate-limited: a stalled lane retries for as long as it takes,
 * and its log must not say so on every attempt. Here too what health shows of a stall (this
 * module imports no OpenTelemetry type: the public types of a subscription reach it).
 */
import type { Logger } from '../core/logger.js';

/** Where a lane is stuck, since when and why. */
export interface Stall {
  readonly partition: number;
  readonly offset: string;
  readonly messageId: string;
  readonly type: string;
  readonly since: Date;
  readonly reason: string;
  readonly attempts: number;
}

/** What the log keeps of a lane: since when it is stalled, and its warnings so far. */
export interface StallLogState {
  readonly stall: { readonly since: Date } | undefined;
  /** When the last stall warning was written, and how many attempts failed since. */
  warnedAt: number | undefined;
  quietFailures: number;
}

/** The first line of a stall, and the line of every later warning while it lasts. */
export type StallLines = readonly [first: string, again: string];

export class StallLog {
  readonly #logger: Logger;
  readonly #intervalMs: number;

  constructor(logger: Logger, intervalMs: number) {
    this.#logger = logger;
    this.#intervalMs = intervalMs;
  }

  /**
   * Logs a failure of a stalled lane: a warning on the first failure, then at most one per
   * interval (with the count of failures in between); debug lines otherwise.
   */
  warn(lane: StallLogState, now: number, [first, again]: StallLines, fields: Readonly<Record<string, unknown>>): void {
    const logger = this.#logger;
    if (lane.warnedAt === undefined || now - lane.warnedAt >= this.#intervalMs) {
      const isFirst = lane.warnedAt === undefined;
      logger.warn(
        isFirst ? first : again,
        isFirst
          ? fields
          : { ...fields, stalledMs: now - (lane.stall?.since.getTime() ?? now), failuresSinceLastWarning: lane.quietFailures },
      );
      lane.warnedAt = now;
      lane.quietFailures = 0;
    } else {
      lane.quietFailures++;
      logger.debug(`${again} (the belt stays blocked)`, fields);
    }
  }

  /** Forgets the warnings of `lane` (its stall ended); whether one was written. */
  reset(lane: StallLogState): boolean {
    const warned = lane.warnedAt !== undefined;
    lane.warnedAt = undefined;
    lane.quietFailures = 0;
    return warned;
  }
}
