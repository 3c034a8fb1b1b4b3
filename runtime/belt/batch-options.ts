/**
 * The options of a batch subscription (`messaging.subscribeBatch`), its error, and the adapter
 * that lets the belt treat a {@link BatchHandler} as a handler of one message at a time: a record
 * taken alone (one that does not decode, or one of a failed batch split under a dead-letter
 * policy) goes to `handleBatch` as a batch of one, through the belt's own record path.
 */
import type { AnyContractMessage, BatchHandler, BatchItem, MessageHandler } from '../core/contract.js';
import { KeiyakuError } from '../core/errors.js';
import type { SubscriptionOptions } from './options.js';

/** How a lane gathers a batch: up to `maxSize` messages, waiting at most `maxWaitMs` after the first. */
export interface BatchOptions {
  /** Most messages per batch (default 100). */
  readonly maxSize?: number;
  /** How long a lane waits for more messages after the first of a batch before handling what it has (default 100 ms). */
  readonly maxWaitMs?: number;
}

export const DEFAULT_BATCH = Object.freeze({ maxSize: 100, maxWaitMs: 100 });

/**
 * The options of a batch subscription: those of a subscription without an `inbox` (refused: see
 * {@link BatchSubscriptionError}), and how to gather batches.
 */
export interface BatchSubscriptionOptions<M extends AnyContractMessage, P = never>
  extends Omit<SubscriptionOptions<M, P>, 'inbox' | 'retryLater'> {
  readonly batch?: BatchOptions;
}

/**
 * A batch subscription that cannot be made: `batch_invalid` (a size below 1, a negative wait),
 * `batch_with_inbox` (the inbox records one message per transaction), `batch_with_retry_later`
 * (retry tiers move one message at a time).
 */
export class BatchSubscriptionError extends KeiyakuError {
  override readonly name = 'BatchSubscriptionError';
}

/** What the belt keeps of a batch handler on its adapter. */
export interface Batching<M extends AnyContractMessage> {
  readonly handler: BatchHandler<M>;
  readonly maxSize: number;
  readonly maxWaitMs: number;
}

const BATCHING: unique symbol = Symbol('keiyaku.batching');

/** The batch handler and sizes behind `handler`, when it is the adapter of a batch subscription. */
export function batchingOf<M extends AnyContractMessage>(handler: MessageHandler<M>): Batching<M> | undefined {
  return (handler as { [BATCHING]?: Batching<M> })[BATCHING];
}

/**
 * The handler and options the belt runs a batch subscription with: `handler` as a handler of
 * one message (a batch of one), carrying its batching; the options without `batch`. Refuses
 * what a batch subscription does not run (with the fix in the message).
 */
export function batchSubscription<M extends AnyContractMessage, P>(
  channel: string,
  handler: BatchHandler<M>,
  options: BatchSubscriptionOptions<M, P>,
): { readonly handler: MessageHandler<M>; readonly options: SubscriptionOptions<M, P> } {
  const { batch, ...rest } = options;
  const maxSize = batch?.maxSize ?? DEFAULT_BATCH.maxSize;
  const maxWaitMs = batch?.maxWaitMs ?? DEFAULT_BATCH.maxWaitMs;
  const where = `the batch subscription of ${handler.groupId} to ${channel}`;
  if (!Number.isInteger(maxSize) || maxSize < 1)
    throw new BatchSubscriptionError('batch_invalid', `${where}: batch.maxSize must be an integer of 1 or more, not ${maxSize}`);
  if (!Number.isFinite(maxWaitMs) || maxWaitMs < 0)
    throw new BatchSubscriptionError('batch_invalid', `${where}: batch.maxWaitMs must be a number of 0 or more, not ${maxWaitMs}`);
  const unchecked = rest as SubscriptionOptions<M, P>;
  if (unchecked.inbox !== undefined)
    throw new BatchSubscriptionError(
      'batch_with_inbox',
      `${where} has an \`inbox\`: the inbox records one message per transaction, and a batch is handled in one call. Subscribe a per-message handler (\`subscribe\`) with the inbox, or keep the batch handler and make it idempotent (record the message ids it handled in its own transaction)`,
    );
  if (unchecked.retryLater !== undefined)
    throw new BatchSubscriptionError(
      'batch_with_retry_later',
      `${where} has \`retryLater\`: retry tiers move one failed message at a time, and a batch subscription does not run them yet. Use a \`deadLetter\` policy (a failed batch is split and only the poison message is parked), or subscribe a per-message handler (\`subscribe\`) with \`retryLater\``,
    );
  const batching: Batching<M> = { handler, maxSize, maxWaitMs };
  const one: MessageHandler<M> & { readonly [BATCHING]: Batching<M> } = {
    groupId: handler.groupId,
    ...(handler.accepts === undefined ? {} : { accepts: handler.accepts }),
    handle: (message, context) =>
      handler.handleBatch([{ type: context.type, message, context } as unknown as BatchItem<M>], {
        channel: context.channel,
        address: context.address,
        partition: context.partition ?? 0,
        attempt: context.attempt,
        signal: context.signal,
      }),
    [BATCHING]: batching,
  };
  return { handler: one, options: rest };
}
