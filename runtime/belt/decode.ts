/**
 * Decoding: opens the envelope of a record (contract headers, payload, validation). A record
 * that does not decode goes on all the same: the handle step fails it, so it is retried, parked
 * and logged like a failing handler (under a dead-letter policy it is parked at once).
 *
 * A channel that must look something up before it can decode (a Schema Registry's writer schema,
 * by the id in the record's frame) says so through `prepareRecord`; the step waits for it. A
 * transient failure of the lookup (the registry unavailable) is no fault of the record: the lane
 * stalls at it and asks again on the blocking backoff until it succeeds or the belt stops, and
 * the record is never parked for it.
 *
 * The record's type is the one the route step read (`delivery.type`), and the lanes hold records
 * in binary-mode shape already: neither is worked out again here.
 */
import type { Backoff } from '../core/backoff.js';
import type { Clock } from '../core/clock.js';
import type { AnyContractMessage } from '../core/contract.js';
import { CE_HEADERS, openRecord } from '../core/envelope.js';
import { failureText } from '../core/failure-text.js';
import { retry } from '../core/retry.js';
import type { IncomingRecord } from '../core/transport.js';
import type { Belt, BeltNext, BeltStep, Delivery } from './belt.js';
import type { StallLines } from './stall.js';

const UNPREPARED: StallLines = [
  'belt blocked: the record cannot be decoded yet (its schema is not available); the belt is stopped at this record and retries it',
  'belt still blocked: the schema of the record is still not available',
];

export function decodeStep<M extends AnyContractMessage>(
  belt: Pick<Belt<M>, 'channel' | 'clock' | 'stop' | 'lanes' | 'stallLog' | 'groupId' | 'noteError'>,
  backoff?: Backoff,
): BeltStep<M> {
  const channel = belt.channel;
  if (channel.prepareRecord === undefined || backoff === undefined)
    return (record, delivery, next) => {
      delivery.opened = openRecord(channel, record, delivery.type);
      return next(record, delivery);
    };
  const waits: Clock = { now: () => belt.clock.now(), sleep: (ms) => belt.clock.sleep(ms, belt.stop) };

  const prepared = async (record: IncomingRecord, delivery: Delivery<M>, next: BeltNext<M>, first: Promise<void>, type: string) => {
    const { lane } = delivery;
    const id = record.headers[CE_HEADERS.id] ?? '';
    try {
      await retry(async (n) => (n === 1 ? first : channel.prepareRecord?.(record.value, type)), {
        maxAttempts: 0,
        backoff,
        clock: waits,
        retriable: (error) => {
          if (belt.stop.aborted) return false;
          const reason = failureText(error);
          belt.noteError(reason);
          belt.lanes.stall(lane, record, id, type, belt.clock.now(), reason, 0);
          return true;
        },
        onRetry: (error, attempt, delay) =>
          belt.stallLog.warn(lane, belt.clock.now(), UNPREPARED, {
            channel: channel.id,
            groupId: belt.groupId,
            type,
            partition: record.partition,
            offset: record.offset,
            attempt,
            retryInMs: delay,
            error: failureText(error),
          }),
      });
    } catch (error) {
      if (belt.stop.aborted) return false; // the belt stops: the record stays unacknowledged
      throw error;
    }
    belt.lanes.recover(lane, 0);
    delivery.opened = openRecord(channel, record, type);
    return next(record, delivery);
  };

  return (record, delivery, next) => {
    const type = delivery.type;
    const pending = type === undefined ? undefined : channel.prepareRecord?.(record.value, type);
    if (pending !== undefined) return prepared(record, delivery, next, pending, type!);
    delivery.opened = openRecord(channel, record, type);
    return next(record, delivery);
  };
}
