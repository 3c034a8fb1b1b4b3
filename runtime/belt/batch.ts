/**
 * The lanes of a batch subscription (`messaging.subscribeBatch`): each lane gathers its
 * partition's records in order into batches and hands each batch to the handler in one call.
 *
 * - A lane takes records from its queue through routing and decoding (the belt's own steps) until
 *   it holds `maxSize` messages, or waits for more (letting the belt poll again) until `maxWaitMs`
 *   after the first message of the batch; then it calls `handleBatch` once. Records routing skips
 *   travel with the batch and are acknowledged with it, in order.
 * - The batch is acknowledged as a whole when the handler returns. A throw fails the batch: the lane
 *   stalls at its first record and retries the batch on the policy's backoff (the blocking retry by
 *   default, forever). Under a dead-letter policy, once the batch's retries are spent the batch is
 *   split: each of its messages is handled alone (a batch of one) through the belt's record path,
 *   with the same policy, so the messages that succeed are handled, the one at fault is parked after
 *   its own retries, and the lane moves on. A batch of one message is parked after its retries, without a second round.
 * - A record that does not decode is a failure of its own, not of a batch: the batch gathered before
 *   it is handled first, then the record goes the belt's record path alone (parked at once under a
 *   dead-letter policy; without one it blocks the lane, as on a per-message subscription).
 * - In a transactional subscription each attempt runs in a capture scope, and a succeeded batch's
 *   outputs go into the transaction with the acknowledgment of its last record (offsets are
 *   cumulative: the batch commits whole or not at all).
 * - Stopping ends the wait for more messages; a gathered batch not yet handled stays unacknowledged.
 * - With tracing on, each attempt at a batch has one `process` span linked to the trace context of
 *   every message in it.
 */
import type { Link, Span } from '@opentelemetry/api';
import type { Clock } from '../core/clock.js';
import type { AnyContractMessage, BatchContext, BatchItem } from '../core/contract.js';
import type { OpenedEnvelope } from '../core/envelope.js';
import { failureText } from '../core/failure-text.js';
import { otelApi, SPAN_KIND } from '../core/otel-api.js';
import { retry } from '../core/retry.js';
import { ATTR, extractTraceContext, failSpan, tracer, tracingEnabled, withSpan } from '../core/tracing.js';
import type { IncomingRecord } from '../core/transport.js';
import { type Batching, batchingOf } from './batch-options.js';
import { type Belt, type BeltNext, type BeltStep, type Delivery, delivery } from './belt.js';
import { compose, isPromise } from './compose.js';
import { messageContext } from './handle.js';
import type { Lane } from './lanes.js';
import { GaveUp, type RetryPolicy } from './retry.js';
import type { StallLines } from './stall.js';

/** What a batch lane needs of its subscription. */
export interface BatchLaneParts<M extends AnyContractMessage> {
  /** The belt's routing and decoding steps (routing remembers the unknown types it logged). */
  readonly route: BeltStep<M>;
  readonly decode: BeltStep<M>;
  /** The retry policy of the subscription: the blocking retry, or a dead-letter policy's schedule and retries. */
  readonly retry: RetryPolicy;
  /** The park policy under a dead-letter policy. */
  readonly park: BeltStep<M> | undefined;
  /** The capture policy of a transactional subscription: each attempt at a batch buffers what it publishes. */
  readonly capture: BeltStep<M> | undefined;
  /**
   * Acknowledges `record`, handing what the delivery captured (a transactional attempt's outputs) to the
   * subscription's transaction with it; false when the belt restarts first (nothing is acknowledged).
   */
  handOff(record: IncomingRecord, delivery: Delivery<M>): boolean | Promise<boolean>;
}

/** One record a batch covers: a message (`opened`), or a record routing skipped. */
interface Covered<M extends AnyContractMessage> {
  readonly record: IncomingRecord;
  readonly opened: OpenedEnvelope<M> | undefined;
}

type Outcome = 'done' | 'stopped' | 'split';

/** Why the deadline of a batch ends early (a constant: an abort without a reason builds a DOMException, stack and all). */
const WAIT_OVER = Object.freeze({ name: 'WaitOver' });

const BATCH_FAILED: StallLines = [
  'belt blocked: a batch handler failed; the belt is stopped at this batch and retries it',
  'belt still blocked: the batch handler keeps failing at this batch',
];

/** The batch lanes of `belt`, when its handler is a batch subscription's; undefined otherwise. */
export function batchLanes<M extends AnyContractMessage>(belt: Belt<M>, parts: BatchLaneParts<M>): BatchLanes<M> | undefined {
  const batching = batchingOf(belt.handler);
  return batching === undefined ? undefined : new BatchLanes(belt, batching, parts);
}

export class BatchLanes<M extends AnyContractMessage> {
  readonly #belt: Belt<M>;
  readonly #batching: Batching<M>;
  readonly #parts: BatchLaneParts<M>;
  /** Routing and decoding of one record; the record's envelope is left on the delivery (none when it was skipped). */
  readonly #gather: BeltNext<M>;
  /** The waits between attempts end when the belt stops. */
  readonly #waits: Clock;

  constructor(belt: Belt<M>, batching: Batching<M>, parts: BatchLaneParts<M>) {
    this.#belt = belt;
    this.#batching = batching;
    this.#parts = parts;
    this.#gather = compose([parts.route, parts.decode], () => true);
    this.#waits = { now: () => belt.clock.now(), sleep: (ms) => belt.clock.sleep(ms, belt.stop) };
  }

  /**
   * Takes the queued records of `lane` in batches until its queue is empty or the belt stops.
   * `chain` is the belt's record path, for records taken alone.
   */
  async run(lane: Lane, chain: BeltNext<M>): Promise<void> {
    const belt = this.#belt;
    const { maxSize, maxWaitMs } = this.#batching;
    const queue = lane.queue;
    const current = delivery<M>(lane);
    /** A delivery that captured nothing: a plain acknowledgment. */
    const bare = delivery<M>(lane);
    let head = 0;
    let covered: Covered<M>[] = [];
    let messages = 0;
    let firstAt = 0;
    // The deadline of the batch being gathered: one timer per batch however often more records come, ended early
    // when the batch is handed over (full) or the belt stops.
    let deadline: AbortController | undefined;
    let due: Promise<void> | undefined;
    const stop = belt.stop;
    const stopped = (): void => lane.wake?.();
    stop.addEventListener('abort', stopped, { once: true });
    try {
      while (!stop.aborted) {
        let undecodable = false;
        while (messages < maxSize && head + covered.length < queue.length) {
          const record = queue[head + covered.length]!;
          current.type = undefined;
          current.opened = undefined as unknown as OpenedEnvelope<M>;
          const result = this.#gather(record, current);
          if (!(typeof result === 'boolean' ? result : await result)) return;
          const opened = current.opened as OpenedEnvelope<M> | undefined;
          if (opened !== undefined && !opened.decoded.ok) {
            undecodable = true;
            break;
          }
          covered.push({ record, opened });
          if (opened !== undefined && messages++ === 0) firstAt = belt.clock.now();
        }
        if (messages === 0) {
          // Only records routing skipped: acknowledged in order; then the undecodable one alone, if any.
          if (!(await this.#ackAll(covered, bare))) return;
          head += covered.length;
          covered = [];
          if (!undecodable) return;
          if (!(await this.#alone(queue[head]!, lane, chain))) return;
          head++;
          continue;
        }
        if (messages < maxSize && !undecodable) {
          const left = firstAt + maxWaitMs - belt.clock.now();
          if (left > 0) {
            if (due === undefined) {
              deadline = new AbortController();
              due = belt.clock.sleep(left, deadline.signal).catch(() => undefined);
            }
            await this.#more(lane, due);
            continue;
          }
        }
        deadline?.abort(WAIT_OVER);
        deadline = undefined;
        due = undefined;
        const handled = this.#handle(lane, covered, messages, current);
        const outcome = typeof handled === 'string' ? handled : await handled;
        if (outcome === 'stopped') return;
        if (outcome === 'split')
          for (const c of covered) {
            // Each message alone, in order (acknowledged when done); a record routing skipped is acknowledged in its place
            // (the path of a failure: a promise per record is fine here).
            if (c.opened === undefined ? !(await this.#ack(c.record, bare)) : !(await this.#alone(c.record, lane, chain))) return;
            head++;
          }
        else {
          // Acknowledged as a whole: in a transaction, by its last record with the batch's outputs (offsets are cumulative).
          const acked =
            this.#parts.capture === undefined ? this.#ackAll(covered, bare) : this.#ack(covered[covered.length - 1]!.record, current);
          if (!(typeof acked === 'boolean' ? acked : await acked)) return;
          head += covered.length;
        }
        covered = [];
        messages = 0;
      }
    } finally {
      stop.removeEventListener('abort', stopped);
      deadline?.abort(WAIT_OVER);
      if (head === queue.length) queue.length = 0;
      else if (head > 0) queue.splice(0, head);
    }
  }

  /** Takes `record` alone through the belt's record path, and acknowledges it when done; false when the belt stopped first. */
  async #alone(record: IncomingRecord, lane: Lane, chain: BeltNext<M>): Promise<boolean> {
    const one = delivery<M>(lane);
    const result = chain(record, one);
    if (!(typeof result === 'boolean' ? result : await result)) return false;
    return this.#ack(record, one);
  }

  /** Acknowledges each of `covered` in order (no promise when the acknowledgments answer at once); false when the belt restarts first. */
  #ackAll(covered: readonly Covered<M>[], carrier: Delivery<M>): boolean | Promise<boolean> {
    for (let i = 0; i < covered.length; i++) {
      const acked = this.#ack(covered[i]!.record, carrier);
      if (typeof acked === 'boolean') {
        if (!acked) return false;
        continue;
      }
      return acked.then(async (done) => done && this.#ackAll(covered.slice(i + 1), carrier));
    }
    return true;
  }

  /** Acknowledges `record` with what `carrier` captured; false when the belt restarts first. */
  #ack(record: IncomingRecord, carrier: Delivery<M>): boolean | Promise<boolean> {
    return this.#parts.handOff(record, carrier);
  }

  /** Waits for more records on `lane` (the belt may poll meanwhile) until `due` (the batch's deadline), or until the belt stops. */
  async #more(lane: Lane, due: Promise<void>): Promise<void> {
    const more = new Promise<void>((resolve) => {
      lane.wake = resolve;
    });
    this.#belt.lanes.gathering(lane);
    try {
      await Promise.race([more, due]);
    } finally {
      lane.wake = undefined;
      lane.gathering = false;
    }
  }

  /**
   * The batch's attempts under the retry policy: `done` when one succeeded, `split` when a
   * dead-letter policy's retries are spent (a batch of one message is parked here, and is `done`),
   * `stopped` when the belt stopped first (the batch stays unacknowledged).
   */
  #handle(lane: Lane, covered: readonly Covered<M>[], count: number, carrier: Delivery<M>): Outcome | Promise<Outcome> {
    // The first attempt is a plain call (no promise when the handler answers at once); a failure goes on to the retry loop.
    let result: void | Promise<void>;
    try {
      result = this.#attempt(lane, covered, count, 1, carrier);
    } catch (error) {
      return this.#again(lane, covered, count, carrier, error);
    }
    if (!isPromise(result)) return this.#done(lane, count, 1);
    return result.then(
      () => this.#done(lane, count, 1),
      (error: unknown) => this.#again(lane, covered, count, carrier, error),
    );
  }

  /** A batch handled at `attempt`: counted, and the lane's stall (if any) ends; `stopped` when it was abandoned meanwhile. */
  #done(lane: Lane, count: number, attempt: number): Outcome {
    const { lanes, abandoned } = this.#belt;
    if (abandoned.aborted) return 'stopped';
    lanes.recover(lane, attempt);
    lanes.processed += count;
    lane.counters.handled += count;
    return 'done';
  }

  /** Goes on from a failed first attempt: retries the batch on the policy's backoff, or gives up on it. */
  async #again(lane: Lane, covered: readonly Covered<M>[], count: number, carrier: Delivery<M>, failure: unknown): Promise<Outcome> {
    const belt = this.#belt;
    const { lanes, clock } = belt;
    const policy = this.#parts.retry;
    const first = covered.find((c) => c.opened !== undefined)!;
    const opened = first.opened!;
    let verdict = 'trying' as 'trying' | 'waiting' | 'interrupted' | 'split';
    let attempt = 1;
    let firstFailure: number | undefined;
    let lastFailure = 0;
    let reason = '';
    try {
      await retry(
        async (n) => {
          if (n === 1) throw failure;
          verdict = 'trying';
          attempt = n;
          return this.#attempt(lane, covered, count, n, carrier);
        },
        {
          maxAttempts: 0,
          backoff: policy.backoff,
          clock: this.#waits,
          retriable: (error) => {
            lane.counters.failed++;
            if (belt.abandoned.aborted) {
              verdict = 'interrupted';
              return false;
            }
            const now = clock.now();
            firstFailure ??= now;
            lastFailure = now;
            if (policy.maxRetries !== undefined && attempt > policy.maxRetries) {
              verdict = 'split';
              reason = failureText(error);
              return false;
            }
            reason = `a batch of ${count} message${count === 1 ? '' : 's'} failed: ${failureText(error)}`;
            lanes.stall(lane, first.record, opened.id, opened.type, now, reason, attempt);
            return true;
          },
          onRetry: (_error, n, delay) => {
            lane.counters.retried++;
            belt.stallLog.warn(lane, lastFailure, BATCH_FAILED, {
              channel: belt.channel.id,
              groupId: belt.groupId,
              partition: lane.partition,
              offset: first.record.offset,
              messages: count,
              attempt: n,
              retryInMs: delay,
              error: reason,
            });
            verdict = 'waiting';
          },
        },
      );
    } catch (error) {
      if (verdict === 'trying') throw error; // an error of the policy itself fails the lane
      if (verdict !== 'split') return 'stopped';
      if (count > 1) {
        belt.logger.warn('a batch failed after its retries; its messages are handled one at a time to find the one at fault', {
          channel: belt.channel.id,
          groupId: belt.groupId,
          partition: lane.partition,
          offset: first.record.offset,
          messages: count,
          attempts: attempt,
          error: reason,
        });
        return 'split';
      }
      return (await this.#park(lane, first, new GaveUp(error, attempt, firstFailure!, lastFailure))) ? 'done' : 'stopped';
    }
    return this.#done(lane, count, attempt);
  }

  /** Parks the one message of a batch that failed after its retries (the park policy's own path). */
  async #park(lane: Lane, entry: Covered<M>, gaveUp: GaveUp): Promise<boolean> {
    const one = delivery<M>(lane);
    one.opened = entry.opened!;
    const result = this.#parts.park!(entry.record, one, () => Promise.reject(gaveUp));
    return typeof result === 'boolean' ? result : await result;
  }

  /**
   * One call of the handler with the batch (inside a `process` span linked to every message's trace while tracing is
   * on; in a transactional subscription, in a capture scope whose outputs the succeeded attempt leaves on `carrier`).
   */
  #attempt(lane: Lane, covered: readonly Covered<M>[], count: number, attempt: number, carrier: Delivery<M>): void | Promise<void> {
    const belt = this.#belt;
    carrier.attempt = attempt;
    const items: BatchItem<M>[] = [];
    for (const c of covered) {
      const opened = c.opened;
      if (opened === undefined || !opened.decoded.ok) continue;
      const message = opened.decoded.value;
      items.push({ type: opened.type, message, context: messageContext(belt, c.record, opened, carrier) } as unknown as BatchItem<M>);
    }
    const batch: BatchContext = {
      channel: belt.channel.id,
      address: belt.address,
      partition: lane.partition,
      attempt,
      signal: belt.abandon,
    };
    const handler = this.#batching.handler;
    const span = tracingEnabled() ? this.#span(lane, covered, count, attempt) : undefined;
    const call = (): void | Promise<void> =>
      span === undefined ? handler.handleBatch(items, batch) : withSpan(undefined, span, () => handler.handleBatch(items, batch));
    const capture = this.#parts.capture;
    const started = performance.now();
    const ended = (failed: boolean, error?: unknown): void => {
      belt.observe(lane, started);
      if (span === undefined) return;
      if (failed) failSpan(span, error);
      span.end();
    };
    let result: unknown;
    try {
      result =
        capture === undefined
          ? call()
          : capture(covered[covered.length - 1]!.record, carrier, () => {
              const called = call();
              return isPromise(called) ? called.then(() => true) : true;
            });
    } catch (error) {
      ended(true, error);
      throw error;
    }
    if (!isPromise(result)) return ended(false);
    return result.then(
      () => ended(false),
      (error: unknown) => {
        ended(true, error);
        throw error;
      },
    );
  }

  /** The `process` span of one attempt at a batch, linked to the trace context each message carries. */
  #span(lane: Lane, covered: readonly Covered<M>[], count: number, attempt: number): Span | undefined {
    const api = otelApi();
    const spans = tracer();
    if (api === undefined || spans === undefined) return undefined;
    const belt = this.#belt;
    const links: Link[] = [];
    for (const c of covered) {
      const parent = c.opened === undefined ? undefined : extractTraceContext(c.record.headers);
      const linked = parent === undefined ? undefined : api.trace.getSpanContext(parent);
      if (linked !== undefined) links.push({ context: linked });
    }
    return spans.startSpan(`process ${belt.address}`, {
      kind: SPAN_KIND.CONSUMER,
      links,
      attributes: {
        [ATTR.system]: belt.transport.name,
        [ATTR.destination]: belt.address,
        [ATTR.operationType]: 'process',
        [ATTR.operationName]: 'process',
        [ATTR.consumerGroup]: belt.groupId,
        [ATTR.partition]: String(lane.partition),
        [ATTR.batchCount]: count,
        [ATTR.channel]: belt.channel.id,
        [ATTR.attempt]: attempt,
      },
    });
  }
}
