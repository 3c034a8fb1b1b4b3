/**
 * What a conveyor belt counts per partition, and the handler-duration histogram: plain
 * numbers bumped on the hot path, read by `/metrics`, the operations page and the
 * OpenTelemetry observable instruments.
 */

/** Upper bounds (seconds) of the handler-duration buckets: 1 ms … 10 s. */
export const DURATION_BUCKETS: readonly number[] = Object.freeze([0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]);

/** Counts of one partition's lane since the subscription started. */
export interface PartitionCounters {
  readonly partition: number;
  /** Records the belt took from the transport. */
  readonly consumed: number;
  /** Records the handler finished without throwing. */
  readonly handled: number;
  /** Handler attempts that threw (or records that did not decode). */
  readonly failed: number;
  /** Retries scheduled after a failure. */
  readonly retried: number;
  /** Records parked in the dead-letter store. */
  readonly parked: number;
  /** Records skipped by routing (a type this subscription does not handle). */
  readonly skipped: number;
  /** Records the inbox found recorded for the group: acknowledged without calling the handler. */
  readonly duplicates: number;
}

export type MutablePartitionCounters = { -readonly [K in keyof PartitionCounters]: PartitionCounters[K] };

export function partitionCounters(partition: number): MutablePartitionCounters {
  return { partition, consumed: 0, handled: 0, failed: 0, retried: 0, parked: 0, skipped: 0, duplicates: 0 };
}

/** A cumulative histogram: `counts[i]` observations ≤ `bounds[i]` (non-cumulative per bucket, plus one overflow bucket). */
export interface HistogramSnapshot {
  readonly bounds: readonly number[];
  /** Per bucket (not cumulative); one more entry than `bounds` for the overflow. */
  readonly counts: readonly number[];
  readonly sum: number;
  readonly count: number;
}

export class DurationHistogram {
  readonly #counts: number[] = new Array<number>(DURATION_BUCKETS.length + 1).fill(0);
  #sum = 0;
  #count = 0;

  observe(seconds: number): void {
    let i = 0;
    while (i < DURATION_BUCKETS.length && seconds > DURATION_BUCKETS[i]!) i++;
    this.#counts[i]!++;
    this.#sum += seconds;
    this.#count++;
  }

  snapshot(): HistogramSnapshot {
    return { bounds: DURATION_BUCKETS, counts: [...this.#counts], sum: this.#sum, count: this.#count };
  }
}
