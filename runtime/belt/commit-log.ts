/**
 * The log of a belt's failing commits. While the broker is cut off every commit fails (one per
 * poll): the first is a warning, then at most one warning per stall-log interval with the failures
 * in between counted; the others are debug lines, so an outage is neither silent nor a flood. The
 * recovery is one info line.
 */
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';

export interface CommitLogOptions {
  readonly logger: Logger;
  readonly clock: Clock;
  /** At most one warning per this many milliseconds while commits keep failing. */
  readonly intervalMs: number;
  /** Fields of every line (channel, group). */
  readonly fields: Readonly<Record<string, unknown>>;
}

export class CommitLog {
  readonly #options: CommitLogOptions;
  #count = 0;
  #since = 0;
  #warnedAt: number | undefined;
  #quiet = 0;

  constructor(options: CommitLogOptions) {
    this.#options = options;
  }

  failed(error: unknown): void {
    const { logger, clock, intervalMs } = this.#options;
    const now = clock.now();
    if (this.#count === 0) this.#since = now;
    this.#count++;
    const fields = { ...this.#options.fields, error: String(error) };
    if (this.#warnedAt === undefined) {
      logger.warn('commit failed; will retry with the next commit', fields);
    } else if (now - this.#warnedAt >= intervalMs) {
      logger.warn('commits still failing; will retry with the next commit', {
        ...fields,
        failingMs: now - this.#since,
        failuresSinceLastWarning: this.#quiet,
      });
    } else {
      this.#quiet++;
      logger.debug('commit failed again; will retry with the next commit', fields);
      return;
    }
    this.#warnedAt = now;
    this.#quiet = 0;
  }

  succeeded(): void {
    if (this.#count === 0) return;
    const { logger, clock } = this.#options;
    logger.info('commits succeed again', { ...this.#options.fields, failedCommits: this.#count, failingMs: clock.now() - this.#since });
    this.#count = 0;
    this.#warnedAt = undefined;
    this.#quiet = 0;
  }
}
