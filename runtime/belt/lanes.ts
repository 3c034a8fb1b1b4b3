/**
 * The lanes of a belt, one per partition: each takes its partition's records one at a time, in
 * order, and is stopped at a record while that record fails (a stall). Here: the lanes, their
 * stalls and counters, and the totals of the subscription.
 */
import type { Attributes } from '@opentelemetry/api';
import type { Clock } from '../core/clock.js';
import { type MutablePartitionCounters, type PartitionCounters, partitionCounters } from '../core/counters.js';
import type { Logger } from '../core/logger.js';
import { binaryRecord } from '../core/structured.js';
import { ATTR } from '../core/tracing.js';
import type { IncomingRecord } from '../core/transport.js';
import type { Stall, StallLog, StallLogState } from './stall.js';

export type { Stall } from './stall.js';

export interface Lane extends StallLogState {
  readonly partition: number;
  readonly queue: IncomingRecord[];
  running: boolean;
  stall: Stall | undefined;
  /** A retry tier's lane waiting for its record to be due: when that record was moved to the tier. */
  held: { readonly movedAt: number } | undefined;
  /** A batch lane waiting for more records (the belt polls meanwhile), and how the next record wakes it. */
  gathering: boolean;
  wake: (() => void) | undefined;
  readonly counters: MutablePartitionCounters;
  /** Metric attributes of this lane (OpenTelemetry semantic conventions). */
  readonly attributes: Attributes;
}

/** What the lanes need of their subscription. */
export interface LanesOptions {
  readonly system: string;
  readonly channel: string;
  readonly address: string;
  readonly groupId: string;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly stallLog: StallLog;
  /** Stops fetching a partition while its lane is stalled, and fetches it again. */
  pause(partition: number): void;
  resume(partition: number): void;
  /** Tells the poll loop that a lane changed (stalled, or ran empty). */
  changed(): void;
}

export class Lanes {
  /** Records handled, skipped by routing, parked, and skipped by the inbox as duplicates, over all lanes. */
  processed = 0;
  skipped = 0;
  parked = 0;
  /** Records the inbox skipped as already processed. */
  duplicates = 0;
  readonly #lanes = new Map<number, Lane>();
  readonly #options: LanesOptions;

  constructor(options: LanesOptions) {
    this.#options = options;
  }

  values(): IterableIterator<Lane> {
    return this.#lanes.values();
  }

  /**
   * Puts each of `records` (a poll) at the end of its partition's lane, in order. A poll comes in
   * runs of one partition: a run looks its lane up once.
   */
  takeAll(records: readonly IncomingRecord[]): void {
    let lane: Lane | undefined;
    for (const record of records) {
      if (lane === undefined || lane.partition !== record.partition) lane = this.#lane(record.partition);
      this.#put(lane, record);
    }
  }

  #put(lane: Lane, record: IncomingRecord): void {
    lane.counters.consumed++;
    // Structured CloudEvents are read in binary-mode shape (routing, tracing, parking and redrive read headers).
    lane.queue.push(binaryRecord(record));
    const wake = lane.wake;
    if (wake !== undefined) {
      lane.wake = undefined;
      lane.gathering = false;
      wake();
    }
  }

  /** The lane of `partition` (a new one for a new partition). */
  #lane(partition: number): Lane {
    let lane = this.#lanes.get(partition);
    if (lane === undefined) {
      const options = this.#options;
      lane = {
        partition,
        queue: [],
        running: false,
        stall: undefined,
        held: undefined,
        gathering: false,
        wake: undefined,
        warnedAt: undefined,
        quietFailures: 0,
        counters: partitionCounters(partition),
        attributes: {
          [ATTR.system]: options.system,
          [ATTR.destination]: options.address,
          [ATTR.consumerGroup]: options.groupId,
          [ATTR.partition]: String(partition),
        },
      };
      this.#lanes.set(partition, lane);
    }
    return lane;
  }

  /** Whether a lane is still taking records. */
  anyRunning(): boolean {
    for (const lane of this.#lanes.values()) if (lane.running) return true;
    return false;
  }

  /**
   * Whether a lane that is neither stalled nor held still has records to take (the next poll waits
   * for it; not for a lane gathering a batch).
   */
  anyFlowing(): boolean {
    for (const lane of this.#lanes.values())
      if (lane.running && lane.stall === undefined && lane.held === undefined && !lane.gathering) return true;
    return false;
  }

  /** `lane` waits for its record (moved to the tier at `movedAt`) to be due: its partition is paused, and the belt polls the others. */
  hold(lane: Lane, movedAt: number): void {
    lane.held = { movedAt };
    this.#options.pause(lane.partition);
    this.#options.changed();
  }

  /** The wait of `lane` ended: its partition is fetched again (unless a stall keeps it paused). */
  release(lane: Lane): void {
    if (lane.held === undefined) return;
    lane.held = undefined;
    if (lane.stall === undefined) this.#options.resume(lane.partition);
  }

  /** `lane` waits for more records to fill a batch: the belt may poll. */
  gathering(lane: Lane): void {
    lane.gathering = true;
    this.#options.changed();
  }

  stalls(): Stall[] {
    return [...this.#lanes.values()].flatMap((l) => (l.stall ? [l.stall] : []));
  }

  counters(): PartitionCounters[] {
    return [...this.#lanes.values()].map((l) => ({ ...l.counters })).sort((a, b) => a.partition - b.partition);
  }

  /** Marks `lane` stopped at `record` (pausing its partition the first time) with the reason health shows. */
  stall(
    lane: Lane,
    record: Pick<IncomingRecord, 'partition' | 'offset'>,
    messageId: string,
    type: string,
    now: number,
    reason: string,
    attempts: number,
  ): void {
    const first = lane.stall === undefined;
    lane.stall = {
      partition: record.partition,
      offset: record.offset,
      messageId,
      type,
      since: lane.stall?.since ?? new Date(now),
      reason,
      attempts,
    };
    if (first) {
      this.#options.pause(record.partition);
      this.#options.changed();
    }
  }

  /**
   * Empties every lane and forgets their stalls, for a restart from the committed offsets (the
   * lanes have ended their runs; the new consumer fetches every partition again).
   */
  reset(): void {
    for (const lane of this.#lanes.values()) {
      lane.queue.length = 0;
      lane.held = undefined;
      if (lane.stall !== undefined) {
        lane.stall = undefined;
        this.#options.stallLog.reset(lane);
      }
    }
    this.#options.changed();
  }

  /** Ends the stall of `lane`, if any: its partition is fetched again, and the log says so. */
  recover(lane: Lane, attempts: number): void {
    if (lane.stall === undefined) return;
    const { clock, logger, stallLog, channel, groupId } = this.#options;
    const stall = lane.stall;
    lane.stall = undefined;
    const warned = stallLog.reset(lane);
    this.#options.resume(lane.partition);
    // Said at the level its stall was: whoever saw "blocked" also sees it end.
    (warned ? logger.warn : logger.info).call(logger, 'the belt moves again', {
      stalledMs: clock.now() - stall.since.getTime(),
      channel,
      groupId,
      partition: lane.partition,
      attempts,
    });
  }
}
