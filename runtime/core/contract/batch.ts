/** The handler of a channel's messages in batches: one call per batch of one partition's messages, in order. */
import type { MessageContext } from '../context.js';
import type { AnyContractMessage, MessageOfType, MessageTypeOf } from './brand.js';

/**
 * One message of a batch with what its handler would be told of it. `type` narrows `message`:
 * `if (item.type === 'BookReturned') item.message.returnedAt`.
 */
export type BatchItem<M extends AnyContractMessage> = {
  readonly [T in MessageTypeOf<M>]: { readonly type: T; readonly message: MessageOfType<M, T>; readonly context: MessageContext<T> };
}[MessageTypeOf<M>];

/** What a batch handler is told of the batch as a whole. */
export interface BatchContext {
  /** Channel id from the contract. */
  readonly channel: string;
  /** Concrete address the batch was read from. */
  readonly address: string;
  /** The partition every message of the batch comes from (0 on transports without partitions). */
  readonly partition: number;
  /** 1 on the first call with this batch, then 2, 3, … while it is retried. */
  readonly attempt: number;
  /** Aborted when the subscription's shutdown budget is spent: the batch stays unacknowledged. */
  readonly signal: AbortSignal;
}

/**
 * A handler of one channel's messages in batches, with the consumer group it belongs to. Its
 * subscription (`messaging.subscribeBatch`) gives it up to `maxSize` messages of one partition,
 * in order, and acknowledges them together when `handleBatch` returns; a throw fails the batch
 * (retried, or under a dead-letter policy split to find the message at fault).
 */
export interface BatchHandler<M extends AnyContractMessage> {
  /** Consumer group, named after the capability (`inventory.book-availability`). */
  readonly groupId: string;
  /** The message types this handler wants; others are skipped (routing, not failure). Default: all. */
  readonly accepts?: readonly MessageTypeOf<M>[];
  /** Handle a batch, in order. Must be idempotent: delivery is at least once, and a batch can come again whole. */
  handleBatch(batch: readonly BatchItem<M>[], context: BatchContext): Promise<void> | void;
}
