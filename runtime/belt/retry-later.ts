/**
 * The retry-later policy (opt-in, `retryLater` of a subscription): a record whose handler still
 * fails after the immediate attempts is published to the retry address of the next delay tier,
 * and the original is acknowledged, so the records behind it on its partition keep moving
 * (NServiceBus delayed retries, Karafka retry topics). The subscription runs one more belt per
 * tier, in the same consumer group: each holds a record until it is due (its partition paused,
 * the lane waiting on the clock: no polling in between), then hands it to the handler; one that
 * fails again moves to the next tier, and after the last one it is parked as a dead-letter
 * policy parks it, at its original address, partition and offset.
 *
 * - Names: the retry address of tier n is `<address>.retry.<groupId>.<delay>` (delay as `200ms`,
 *   `30s`, `5m`, `1h`), and a binding `topic` (Kafka, Iggy) gets the same suffix; the Iggy
 *   stream, the partitions and the replicas are the channel's (topic configs are not copied).
 * - Headers ({@link RETRY_HEADERS}): the attempts so far, the first failure, the last error, the
 *   original address, partition and offset, the tier and the due time. The envelope, the key and
 *   every other header travel unchanged.
 * - Moving on is publish, then acknowledge: a crash between the two sends the record to the tier
 *   twice, never loses it. A publish that fails stalls the lane at the record (health, log) and
 *   is tried again on the blocking retry's backoff, as a dead-letter store that fails to park.
 * - Order per key is not kept under this policy: a record waiting on a tier is overtaken by the
 *   records behind it.
 */
import type { Backoff } from '../core/backoff.js';
import type { Clock } from '../core/clock.js';
import type { AnyChannel, AnyContractMessage } from '../core/contract.js';
import { failureText } from '../core/failure-text.js';
import { retry } from '../core/retry.js';
import type { IncomingRecord, OutgoingRecord, TransportProducer } from '../core/transport.js';
import type { Belt, BeltStep, Delivery } from './belt.js';
import { isPromise } from './compose.js';
import type { RetryTierHealth, SubscriptionHealth, SubscriptionOptions } from './options.js';
import { parkStep } from './park.js';
import { GaveUp, type RetryPolicy } from './retry.js';
import { delayLabel, MAX_ERROR_BYTES, RETRY_HEADERS, RetryLaterError, type RetryTier, retryTiers } from './retry-tiers.js';

/** The channel as a tier's belt reads it: the tier's address and bindings, everything else the channel's. */
function tierChannel<M extends AnyContractMessage>(channel: AnyChannel<M>, tier: RetryTier): AnyChannel<M> {
  return Object.create(channel, {
    address: { value: tier.address },
    addressTemplate: { value: tier.address },
    parameters: { value: [] },
    bindings: { value: tier.bindings },
  }) as AnyChannel<M>;
}

/** What a tier's belt knows of its place: set on the options it is made with (not a public option). */
const TIER_ROLE = Symbol('keiyaku.retryTier');
interface TierRole {
  readonly tier: RetryTier;
  readonly next: RetryTier | undefined;
  /** The subscription's own channel and address (where a record is parked). */
  readonly channel: AnyChannel;
  readonly address: string;
  readonly immediateRetries: number;
}

/** A tier's belt, as the subscription that runs it sees it (a `Subscription`). */
export interface TierBelt {
  readonly address: string;
  readonly topic: string;
  start(): Promise<void>;
  stop(deadline?: AbortSignal): Promise<void>;
  health(): SubscriptionHealth;
}

/** Makes the belt of a tier: a subscription of the same handler and group on `channel`. */
export type MakeTierBelt<M extends AnyContractMessage> = (channel: AnyChannel<M>, options: SubscriptionOptions<M, unknown>) => TierBelt;

/**
 * The retry-later part of one belt: the subscription's (moves failures to tier 1, runs the
 * tiers' belts) or a tier's (holds records until due, moves failures on or parks them).
 */
export class RetryLater<M extends AnyContractMessage> {
  /** The immediate attempts before moving on. */
  readonly policy: RetryPolicy;
  /** In the park slot of the chain: takes what the retry policy gave up on. */
  readonly step: BeltStep<M>;
  /** First in a tier's chain: holds a record until it is due. */
  readonly due: BeltStep<M> | undefined;
  /**
   * The consumer group a tier's belt reads in: `<groupId>.retry.<delay>`, a group of its own (kafkajs'
   * round-robin assigner hands every topic of a group to every member, whatever each subscribed to).
   */
  readonly group: string | undefined;
  /** Records moved to the next tier by this belt. */
  movedOn = 0;
  readonly #belt: Belt<M>;
  readonly #tiers: readonly { readonly tier: RetryTier; readonly belt: TierBelt; readonly later: () => RetryLater<M> | undefined }[];
  #producer: TransportProducer | undefined;

  private constructor(
    belt: Belt<M>,
    role: TierRole | undefined,
    tiers: readonly RetryTier[],
    immediateRetries: number,
    blocking: Backoff,
    make: MakeTierBelt<M>,
  ) {
    this.#belt = belt;
    this.group = role === undefined ? undefined : `${belt.groupId}.retry.${delayLabel(role.tier.delayMs)}`;
    this.policy = { backoff: blocking, maxRetries: immediateRetries };
    const origin = role === undefined ? { channel: belt.channel as AnyChannel, address: belt.address } : role;
    // A tier parks at the original address: the park policy reads the subscription's channel.
    const parkBelt = role === undefined ? belt : (Object.create(belt, { channel: { value: origin.channel } }) as Belt<M>);
    const park = parkStep(parkBelt, blocking);
    const next = role === undefined ? tiers[0] : role.next;
    this.step = moveOnStep(belt, { role, origin, next, park, blocking, producer: () => this.#producerOf(), moved: () => this.movedOn++ });
    this.due = role === undefined ? undefined : dueStep(belt, role.tier);
    this.#tiers = (role === undefined ? tiers : []).map((tier, i) => {
      const options: Record<string | symbol, unknown> = {};
      const roleOf: TierRole = { tier, next: tiers[i + 1], channel: origin.channel, address: origin.address, immediateRetries };
      options[TIER_ROLE] = roleOf;
      let later: RetryLater<M> | undefined;
      options[LATER_OUT] = (made: RetryLater<M>) => {
        later = made;
      };
      return {
        tier,
        belt: make(tierChannel(belt.channel, tier), options as unknown as SubscriptionOptions<M, unknown>),
        later: () => later,
      };
    });
  }

  /**
   * The retry-later part of a belt made with `options`: undefined without `retryLater` (and for
   * a belt that is not a tier's). Checks the option against the others.
   */
  static of<M extends AnyContractMessage>(
    belt: Belt<M>,
    options: SubscriptionOptions<M, unknown>,
    blocking: Backoff,
    make: MakeTierBelt<M>,
  ): RetryLater<M> | undefined {
    const internal = options as unknown as Record<symbol, unknown>;
    const role = internal[TIER_ROLE] as TierRole | undefined;
    if (role !== undefined) {
      const made = new RetryLater(belt, role, [], role.immediateRetries, blocking, make);
      (internal[LATER_OUT] as ((later: RetryLater<M>) => void) | undefined)?.(made);
      return made;
    }
    const later = options.retryLater;
    if (later === undefined) return undefined;
    if (options.deadLetter !== undefined)
      throw new RetryLaterError(
        'retry_later_conflict',
        'retryLater and deadLetter are two policies for the same failures: give one (retryLater parks after its last tier)',
      );
    if (options.transactional !== undefined && options.transactional !== false)
      throw new RetryLaterError(
        'retry_later_conflict',
        'retryLater cannot run in a transactional subscription (the move to a tier is not part of the transaction)',
      );
    const tiers = retryTiers(belt.address, belt.channel.bindings, belt.groupId, later);
    return new RetryLater(belt, undefined, tiers, later.immediateRetries ?? 0, blocking, (channel, tierOptions) =>
      make(channel, { ...withoutAddress(options), ...tierOptions }),
    );
  }

  /** Starts the tiers' belts (each provisions its retry address first); when one cannot start, stops the others and rejects. */
  async start(): Promise<void> {
    const started = await Promise.allSettled(this.#tiers.map((t) => t.belt.start()));
    const failed = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed === undefined) return;
    await Promise.allSettled(this.#tiers.map((t) => t.belt.stop()));
    throw failed.reason;
  }

  /** Stops the tiers' belts within `deadline`, then closes the producer that moved records on. */
  async stop(deadline?: AbortSignal): Promise<void> {
    await Promise.allSettled(this.#tiers.map((t) => t.belt.stop(deadline)));
    const producer = this.#producer;
    this.#producer = undefined;
    await producer
      ?.close()
      .catch((error: unknown) =>
        this.#belt.logger.warn('closing the retry-later producer failed', { channel: this.#belt.channel.id, error: failureText(error) }),
      );
  }

  /**
   * What health shows of the tiers (nothing for a tier's own belt); a tier that is not ready
   * (stalled at a failing publish or park, failed) makes the subscription not ready.
   */
  health(): { readonly retryTiers?: readonly RetryTierHealth[]; readonly ready?: false } {
    if (this.#tiers.length === 0) return {};
    const now = this.#belt.clock.now();
    const retryTiers = this.#tiers.map(({ tier, belt, later }): RetryTierHealth => {
      const h = belt.health();
      const lag = h.positions.map((p) => p.lag).filter((l): l is number => l !== undefined);
      const held = later()?.held() ?? { count: 0, oldest: undefined };
      return {
        tier: tier.tier,
        delayMs: tier.delayMs,
        address: belt.address,
        topic: h.topic,
        state: h.state,
        ready: h.ready,
        depth: lag.length === 0 ? undefined : lag.reduce((a, b) => a + b, 0),
        waiting: held.count,
        oldestWaitingAgeMs: held.oldest === undefined ? undefined : Math.max(0, now - held.oldest),
        processed: h.processed,
        movedOn: later()?.movedOn ?? 0,
        parked: h.parked,
        stalls: h.stalls,
      };
    });
    return retryTiers.every((t) => t.ready) ? { retryTiers } : { retryTiers, ready: false };
  }

  /** The records this belt's lanes hold until due, and when the oldest of them was moved to the tier. */
  held(): { readonly count: number; readonly oldest: number | undefined } {
    let count = 0;
    let oldest: number | undefined;
    for (const lane of this.#belt.lanes.values())
      if (lane.held !== undefined) {
        count++;
        if (oldest === undefined || lane.held.movedAt < oldest) oldest = lane.held.movedAt;
      }
    return { count, oldest };
  }

  #producerOf(): TransportProducer {
    this.#producer ??= this.#belt.transport.producer();
    return this.#producer;
  }
}

/** Where a tier's belt hands back the retry-later part it made (for health). */
const LATER_OUT = Symbol('keiyaku.retryTier.later');

/** The options of a tier's belt: the subscription's, without what chooses an address or another failure policy. */
function withoutAddress<M extends AnyContractMessage>(options: SubscriptionOptions<M, unknown>): SubscriptionOptions<M, unknown> {
  const { parameters: _p, address: _a, forceAddress: _f, retryLater: _r, deadLetter: _d, ...rest } = options;
  return rest;
}

/** When `record` is due on `tier`: its due header, else when it was written plus the tier's delay. */
export function dueOf(record: Pick<IncomingRecord, 'headers' | 'timestamp'>, tier: Pick<RetryTier, 'delayMs'>): number {
  const raw = record.headers[RETRY_HEADERS.due];
  const due = raw === undefined ? Number.NaN : Date.parse(raw);
  return Number.isNaN(due) ? record.timestamp + tier.delayMs : due;
}

/**
 * Holds a record until it is due: a record due now goes on at once; otherwise its lane waits on
 * the clock (ended by a stop: the record stays unacknowledged) with its partition paused, and the
 * belt polls its other partitions meanwhile.
 */
function dueStep<M extends AnyContractMessage>(belt: Belt<M>, tier: RetryTier): BeltStep<M> {
  const hold = async (delivery: Delivery<M>, movedAt: number, wait: number, next: () => ReturnType<BeltStep<M>>) => {
    const { lane } = delivery;
    belt.lanes.hold(lane, movedAt);
    try {
      await belt.clock.sleep(wait, belt.stop);
    } catch {
      return false; // the belt stops: the record stays unacknowledged and is read again after a restart
    } finally {
      belt.lanes.release(lane);
    }
    return next();
  };
  return (record, delivery, next) => {
    const due = dueOf(record, tier);
    const wait = due - belt.clock.now();
    if (wait <= 0) return next(record, delivery);
    // Moved to the tier a delay before it is due (by the clock that set the due time, not the broker's timestamp).
    return hold(delivery, due - tier.delayMs, wait, () => next(record, delivery));
  };
}

/** Where a record was first read, and what failed on it so far (from its headers on a tier). */
interface History {
  readonly attempts: number;
  readonly firstFailure: number | undefined;
  readonly address: string;
  readonly partition: number;
  readonly offset: string;
}

function historyOf(record: IncomingRecord, onTier: boolean, origin: string): History {
  if (!onTier) return { attempts: 0, firstFailure: undefined, address: record.address, partition: record.partition, offset: record.offset };
  const h = record.headers;
  const attempts = Number(h[RETRY_HEADERS.attempts]);
  const first = Date.parse(h[RETRY_HEADERS.firstFailure] ?? '');
  const partition = Number(h[RETRY_HEADERS.originalPartition]);
  return {
    attempts: Number.isSafeInteger(attempts) && attempts > 0 ? attempts : 0,
    firstFailure: Number.isNaN(first) ? undefined : first,
    address: h[RETRY_HEADERS.originalAddress] ?? origin,
    partition: Number.isSafeInteger(partition) ? partition : record.partition,
    offset: h[RETRY_HEADERS.originalOffset] ?? record.offset,
  };
}

const utf8 = new TextEncoder();

/** `text` cut to at most {@link MAX_ERROR_BYTES} UTF-8 bytes (with `…` when cut). */
export function clipError(text: string): string {
  if (utf8.encode(text).length <= MAX_ERROR_BYTES) return text;
  let cut = text.slice(0, MAX_ERROR_BYTES - 3);
  while (utf8.encode(`${cut}…`).length > MAX_ERROR_BYTES) cut = cut.slice(0, -1);
  return `${cut}…`;
}

interface MoveOn<M extends AnyContractMessage> {
  readonly role: TierRole | undefined;
  readonly origin: { readonly address: string };
  readonly next: RetryTier | undefined;
  readonly park: BeltStep<M>;
  readonly blocking: Backoff;
  producer(): TransportProducer;
  moved(): void;
}

/**
 * Around the retry policy: a record it gave up on moves to the next tier (publish, then the lane
 * acknowledges it); after the last tier, or when it does not decode, it is parked at its
 * original address, partition and offset with every attempt counted.
 */
function moveOnStep<M extends AnyContractMessage>(belt: Belt<M>, how: MoveOn<M>): BeltStep<M> {
  const { clock } = belt;
  const onTier = how.role !== undefined;

  const moveOn = async (record: IncomingRecord, delivery: Delivery<M>, gaveUp: GaveUp): Promise<boolean> => {
    const history = historyOf(record, onTier, how.origin.address);
    const attempts = history.attempts + gaveUp.attempts;
    const firstFailure = history.firstFailure ?? gaveUp.firstFailure;
    const next = how.next;
    if (next === undefined || !delivery.opened.decoded.ok) {
      const original: IncomingRecord = { ...record, address: history.address, partition: history.partition, offset: history.offset };
      const all = new GaveUp(gaveUp.error, attempts, firstFailure, gaveUp.lastFailure);
      return how.park(original, delivery, () => Promise.reject(all));
    }
    const now = clock.now();
    const headers: Record<string, string> = {
      ...record.headers,
      [RETRY_HEADERS.attempts]: String(attempts),
      [RETRY_HEADERS.tier]: String(next.tier),
      [RETRY_HEADERS.firstFailure]: new Date(firstFailure).toISOString(),
      [RETRY_HEADERS.lastError]: clipError(failureText(gaveUp.error)),
      [RETRY_HEADERS.originalAddress]: history.address,
      [RETRY_HEADERS.originalPartition]: String(history.partition),
      [RETRY_HEADERS.originalOffset]: history.offset,
      [RETRY_HEADERS.due]: new Date(now + next.delayMs).toISOString(),
    };
    const out: OutgoingRecord =
      record.key === undefined
        ? { address: next.address, value: record.value, headers }
        : { address: next.address, key: record.key, value: record.value, headers };
    if (!(await send(belt, how, out, record, delivery, attempts))) return false;
    how.moved();
    belt.lanes.recover(delivery.lane, gaveUp.attempts);
    belt.logger.info(`a message failed; it is retried later on tier ${next.tier} (${delayLabel(next.delayMs)}) and the belt moves on`, {
      channel: belt.channel.id,
      groupId: belt.groupId,
      type: delivery.opened.type,
      partition: record.partition,
      offset: record.offset,
      attempts,
      retryAddress: next.address,
      error: clipError(failureText(gaveUp.error)),
    });
    return true;
  };

  return (record, delivery, next) => {
    const result = next(record, delivery);
    if (!isPromise(result)) return result;
    return result.then(undefined, (error: unknown) => {
      if (error instanceof GaveUp) return moveOn(record, delivery, error);
      throw error;
    });
  };
}

/**
 * Publishes `out` to the next tier; a failing publish stalls the lane at `record` and is tried
 * again on the blocking backoff until it is acknowledged or the belt stops (false: the record
 * stays unacknowledged).
 */
async function send<M extends AnyContractMessage>(
  belt: Belt<M>,
  how: MoveOn<M>,
  out: OutgoingRecord,
  record: IncomingRecord,
  delivery: Delivery<M>,
  attempts: number,
): Promise<boolean> {
  const { clock, abandon } = belt;
  const waits: Clock = { now: () => clock.now(), sleep: (ms) => clock.sleep(ms, belt.stop) };
  let verdict = 'trying' as 'trying' | 'waiting' | 'interrupted';
  try {
    await retry(
      async () => {
        verdict = 'trying';
        await how.producer().send([out]);
      },
      {
        maxAttempts: 0,
        backoff: how.blocking,
        clock: waits,
        retriable: () => {
          if (!abandon.aborted) return true;
          verdict = 'interrupted';
          return false;
        },
        onRetry: (error, failures, delay) => {
          const now = clock.now();
          const reason = `publishing it to the retry address ${out.address} failed (${failures} time${failures === 1 ? '' : 's'}; trying again): ${failureText(error)}`;
          belt.noteError(reason);
          belt.lanes.stall(delivery.lane, record, delivery.opened.id, delivery.opened.type, now, reason, attempts);
          belt.stallLog.warn(
            delivery.lane,
            now,
            [
              'belt blocked: publishing a failed message to its retry address failed; the belt is stopped at this record and tries again',
              'belt still blocked: publishing to the retry address keeps failing',
            ],
            {
              channel: belt.channel.id,
              groupId: belt.groupId,
              partition: record.partition,
              offset: record.offset,
              retryAddress: out.address,
              retryInMs: delay,
              error: failureText(error),
            },
          );
          verdict = 'waiting';
        },
      },
    );
  } catch (error) {
    if (verdict === 'trying') throw error;
    return false;
  }
  return true;
}
