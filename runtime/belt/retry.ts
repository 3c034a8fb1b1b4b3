/**
 * The retry policy around the handler. A failed record stops its lane: its partition is paused
 * and it is tried again on a backoff (the blocking retry's, or a dead-letter policy's schedule)
 * until it succeeds, with the stall in health and a rate-limited log. Under a dead-letter policy
 * the policy gives up after its retries, and at once on a record that does not decode (it fails
 * the same way every time): it rejects with {@link GaveUp}, which the park policy around it takes.
 *
 * The first attempt is the chain's own call (synchronous when the handler is); only a failure
 * goes on to the runtime's one retry loop (`core/retry.ts`), from that failure.
 */
import type { Backoff } from '../core/backoff.js';
import type { Clock } from '../core/clock.js';
import type { AnyContractMessage } from '../core/contract.js';
import { failureText } from '../core/failure-text.js';
import { retry } from '../core/retry.js';
import type { IncomingRecord } from '../core/transport.js';
import type { Belt, BeltNext, BeltStep, Delivery } from './belt.js';
import { isPromise } from './compose.js';
import type { StallLines } from './stall.js';

export interface RetryPolicy {
  /** The wait before attempt n + 1 is `backoff.delay(n)`. */
  readonly backoff: Backoff;
  /** Retries before giving up (a dead-letter policy's); undefined = until it succeeds. */
  readonly maxRetries: number | undefined;
}

/** The retry policy gave up on a record: what the park policy needs to park it. */
export class GaveUp {
  constructor(
    readonly error: unknown,
    readonly attempts: number,
    readonly firstFailure: number,
    readonly lastFailure: number,
  ) {}
}

const HANDLER_FAILED: StallLines = [
  'belt blocked: handler failed; the belt is stopped at this record and retries it',
  'belt still blocked: handler keeps failing at this record',
];
const UNDECODABLE: StallLines = [
  'belt blocked: the record does not decode; the belt is stopped at this record and retries it',
  'belt still blocked: the record still does not decode',
];

export function retryStep<M extends AnyContractMessage>(belt: Belt<M>, policy: RetryPolicy): BeltStep<M> {
  const { lanes, clock } = belt;
  // The waits between attempts end when the belt stops.
  const waits: Clock = { now: () => clock.now(), sleep: (ms) => clock.sleep(ms, belt.stop) };

  const succeeded = (delivery: Delivery<M>): boolean => {
    if (belt.abandoned.aborted) return false;
    lanes.recover(delivery.lane, delivery.attempt);
    if (delivery.duplicate) {
      lanes.duplicates++;
      delivery.lane.counters.duplicates++;
    } else {
      lanes.processed++;
      delivery.lane.counters.handled++;
    }
    return true;
  };

  /** Goes on from a failed first attempt: retries on the backoff, or gives up. */
  const again = async (record: IncomingRecord, delivery: Delivery<M>, next: BeltNext<M>, failure: unknown): Promise<boolean> => {
    const { lane, opened } = delivery;
    // Where the loop is, to tell its rejections apart: a failure given up on, stopping, or an
    // error of the policy itself (which fails the lane, as any error of the belt's own does).
    let verdict = 'trying' as 'trying' | 'waiting' | 'interrupted' | 'park';
    let firstFailure: number | undefined;
    let lastFailure = 0;
    let reason = '';
    try {
      const done = await retry(
        async (n) => {
          if (n === 1) throw failure;
          verdict = 'trying';
          delivery.attempt = n;
          return next(record, delivery);
        },
        {
          maxAttempts: 0,
          backoff: policy.backoff,
          clock: waits,
          retriable: (error) => {
            lane.counters.failed++;
            if (belt.abandoned.aborted) {
              verdict = 'interrupted';
              return false;
            }
            const now = clock.now();
            firstFailure ??= now;
            lastFailure = now;
            if (policy.maxRetries !== undefined && (!opened.decoded.ok || delivery.attempt > policy.maxRetries)) {
              verdict = 'park';
              return false;
            }
            reason = failureText(error);
            lanes.stall(lane, record, opened.id, opened.type, now, reason, delivery.attempt);
            return true;
          },
          onRetry: (_error, attempt, delay) => {
            lane.counters.retried++;
            belt.stallLog.warn(lane, lastFailure, opened.decoded.ok ? HANDLER_FAILED : UNDECODABLE, {
              channel: belt.channel.id,
              groupId: belt.groupId,
              type: opened.type,
              partition: record.partition,
              offset: record.offset,
              attempt,
              retryInMs: delay,
              error: reason,
            });
            verdict = 'waiting';
          },
        },
      );
      return done && succeeded(delivery);
    } catch (error) {
      if (verdict === 'park') throw new GaveUp(error, delivery.attempt, firstFailure!, lastFailure);
      if (verdict === 'trying') throw error;
      return false; // abandoned, or the wait ended because the belt stops: the record stays unacknowledged
    }
  };

  return (record, delivery, next) => {
    delivery.attempt = 1;
    let result: boolean | Promise<boolean>;
    try {
      result = next(record, delivery);
    } catch (error) {
      return again(record, delivery, next, error);
    }
    if (!isPromise(result)) return result && succeeded(delivery);
    return result.then(
      (done) => done && succeeded(delivery),
      (error: unknown) => again(record, delivery, next, error),
    );
  };
}
