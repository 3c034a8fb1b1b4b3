/** Dispatch on a message's type, and the handler of one channel's messages. */
import type { MessageContext } from '../context.js';
import { KeiyakuError } from '../errors.js';
import { type AnyContractMessage, type MessageOfType, type MessageTypeOf, messageType } from './brand.js';

/** One function per message type of union `M`; the compiler requires every case. */
export type DispatchCases<M extends AnyContractMessage, R> = {
  readonly [T in MessageTypeOf<M>]: (message: MessageOfType<M, T>) => R;
};

/** Calls the case for `message`'s type. */
export function dispatch<M extends AnyContractMessage, R>(message: M, cases: DispatchCases<M, R>): R {
  const type = message[messageType] as MessageTypeOf<M>;
  const handler = cases[type] as ((m: M) => R) | undefined;
  if (handler === undefined) {
    throw new KeiyakuError('dispatch_unhandled', `no case for message type ${JSON.stringify(type)}`);
  }
  return handler(message);
}

/** A handler of one channel's messages, with the consumer group it belongs to. */
export interface MessageHandler<M extends AnyContractMessage> {
  /** Consumer group, named after the capability (`inventory.book-availability`). */
  readonly groupId: string;
  /** The message types this handler wants; others are skipped (routing, not failure). Default: all. */
  readonly accepts?: readonly MessageTypeOf<M>[];
  /** Handle one message. Must be idempotent: delivery is at least once. */
  handle(message: M, context: MessageContext<MessageTypeOf<M>>): Promise<void> | void;
}
