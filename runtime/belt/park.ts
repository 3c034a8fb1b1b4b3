/**
 * The park policy, around the retry policy under a dead-letter policy: a record the retry policy
 * gave up on is parked in the dead-letter store, and the lane moves on. A store that fails to
 * park keeps the lane stalled at the record (the reason in health and the log) and is asked
 * again on the blocking retry's backoff until it parks it or the belt stops: the record is
 * parked once, and the process never ends for it.
 */
import type { Backoff } from '../core/backoff.js';
import type { Clock } from '../core/clock.js';
import type { AnyContractMessage } from '../core/contract.js';
import { failureMessage, failureText } from '../core/failure-text.js';
import { retry } from '../core/retry.js';
import type { IncomingRecord } from '../core/transport.js';
import { errorForParking, type ParkRequest } from '../stores/dead-letter/store.js';
import type { Belt, BeltStep, Delivery } from './belt.js';
import { isPromise } from './compose.js';
import type { Lane } from './lanes.js';
import { GaveUp } from './retry.js';

/** How many parked summaries a retried park searches for the record before parking it again. */
const FIND_PARKED_LIMIT = 100_000;

/** `backoff` spaces the attempts to park when the store fails. */
export function parkStep<M extends AnyContractMessage>(belt: Belt<M>, backoff: Backoff): BeltStep<M> {
  const parker = new Parker(belt, backoff);
  const park = async (record: IncomingRecord, delivery: Delivery<M>, gaveUp: GaveUp): Promise<boolean> => {
    const { lane, opened } = delivery;
    if (!(await parker.park(parkRequest(belt, record, opened.type, gaveUp), lane, opened.id))) return false;
    lane.counters.parked++;
    belt.lanes.recover(lane, gaveUp.attempts);
    return true;
  };
  return (record, delivery, next) => {
    const result = next(record, delivery);
    if (!isPromise(result)) return result;
    return result.then(undefined, (error: unknown) => {
      if (error instanceof GaveUp) return park(record, delivery, error);
      throw error;
    });
  };
}

function parkRequest<M extends AnyContractMessage>(belt: Belt<M>, record: IncomingRecord, type: string, gaveUp: GaveUp): ParkRequest {
  return {
    channel: belt.channel.id,
    address: record.address,
    topic:
      record.address === belt.address
        ? belt.topic
        : (belt.transport.destination?.(record.address, belt.channel.bindings) ?? record.address),
    groupId: belt.groupId,
    type,
    payload: record.value,
    headers: record.headers,
    ...(record.key === undefined ? {} : { key: record.key }),
    partition: record.partition,
    offset: record.offset,
    // Every issue of a decode or validation error, not only the first its message names.
    error: { ...errorForParking(gaveUp.error), message: failureMessage(gaveUp.error) },
    attempts: gaveUp.attempts,
    firstFailureAt: new Date(gaveUp.firstFailure),
    lastFailureAt: new Date(gaveUp.lastFailure),
  };
}

class Parker<M extends AnyContractMessage> {
  readonly #belt: Belt<M>;
  readonly #backoff: Backoff;
  /** The waits between attempts to park end when the belt stops. */
  readonly #waits: Clock;

  constructor(belt: Belt<M>, backoff: Backoff) {
    this.#belt = belt;
    this.#backoff = backoff;
    this.#waits = { now: () => belt.clock.now(), sleep: (ms) => belt.clock.sleep(ms, belt.stop) };
  }

  /**
   * Parks `request`; false when the belt stopped first (the record stays unacknowledged). Before
   * asking again the store is searched for the record, so a park whose answer was lost is not
   * made twice.
   */
  async park(request: ParkRequest, lane: Lane, messageId: string): Promise<boolean> {
    const { clock, deadLetters, logger, abandon } = this.#belt;
    const record = { partition: request.partition ?? lane.partition, offset: request.offset ?? '' };
    // Where the loop is, to tell its rejections apart (see the retry policy).
    let verdict = 'trying' as 'trying' | 'waiting' | 'interrupted';
    let found: string | undefined;
    let id: string;
    try {
      id = await retry(
        async (n) => {
          verdict = 'trying';
          found = n > 1 ? await this.#findParked(request) : undefined;
          return found ?? (await deadLetters.park(request, new Date(clock.now()))).id;
        },
        {
          maxAttempts: 0,
          backoff: this.#backoff,
          clock: this.#waits,
          retriable: () => {
            if (!abandon.aborted) return true;
            verdict = 'interrupted';
            return false;
          },
          onRetry: (parkError, failures, delay) => {
            this.#failed(request, lane, record, messageId, parkError, failures, delay);
            verdict = 'waiting';
          },
        },
      );
    } catch (error) {
      if (verdict === 'trying') throw error;
      return false;
    }
    this.#belt.lanes.parked++;
    logger.warn(
      found === undefined
        ? 'parked a message in the dead-letter store; the belt moves on'
        : 'the message was parked by an earlier attempt whose answer was lost; the belt moves on',
      {
        channel: this.#belt.channel.id,
        groupId: this.#belt.groupId,
        id,
        type: request.type,
        partition: request.partition,
        offset: request.offset,
        attempts: request.attempts,
        error: `${request.error.name}: ${request.error.message}`,
      },
    );
    return true;
  }

  /** The store failed to park for the `failures`-th time: the lane stalls at the record, and the log says so. */
  #failed(
    request: ParkRequest,
    lane: Lane,
    record: Pick<IncomingRecord, 'partition' | 'offset'>,
    messageId: string,
    parkError: unknown,
    failures: number,
    delay: number,
  ): void {
    const belt = this.#belt;
    const now = belt.clock.now();
    const reason = `the dead-letter store failed to park it (${failures} time${failures === 1 ? '' : 's'}; trying again): ${failureText(parkError)}; parking because ${request.error.name}: ${request.error.message}`;
    belt.noteError(reason);
    belt.lanes.stall(lane, record, messageId, request.type, now, reason, request.attempts);
    belt.stallLog.warn(
      lane,
      now,
      [
        'belt blocked: the dead-letter store failed to park the message; the belt is stopped at this record and tries again',
        'belt still blocked: the dead-letter store keeps failing to park the message',
      ],
      {
        channel: belt.channel.id,
        groupId: belt.groupId,
        type: request.type,
        partition: request.partition,
        offset: request.offset,
        parkAttempt: failures,
        retryInMs: delay,
        error: failureText(parkError),
      },
    );
  }

  /** The id of a record already parked for this group at `request`'s partition and offset, if any. */
  async #findParked(request: ParkRequest): Promise<string | undefined> {
    const store = this.#belt.deadLetters;
    const filter = { channel: request.channel, groupId: request.groupId };
    // Summaries carry no payloads; newest records are at the end of the oldest-first order.
    const rows = store.summaries ? await store.summaries({ ...filter, limit: FIND_PARKED_LIMIT }) : await store.list(filter);
    return rows.find((r) => r.address === request.address && r.partition === request.partition && r.offset === request.offset)?.id;
  }
}
