/**
 * The end of the chain: one attempt at the handler. A record that did not decode fails here, as
 * a handler would; the handler's duration is recorded for every attempt, successful or not.
 */
import type { AnyContractMessage, MessageContext, MessageTypeOf } from '../core/contract.js';
import type { OpenedEnvelope } from '../core/envelope.js';
import type { IncomingRecord } from '../core/transport.js';
import type { Belt, BeltNext, Delivery } from './belt.js';
import { isPromise } from './compose.js';

export function handleStep<M extends AnyContractMessage>(belt: Belt<M>): BeltNext<M> {
  const handler = belt.handler;
  return (record, delivery) => {
    const opened = delivery.opened;
    if (!opened.decoded.ok) throw opened.decoded.error;
    const context = messageContext(belt, record, opened, delivery);
    const lane = delivery.lane;
    const started = performance.now();
    let result: Promise<void> | void;
    try {
      result = handler.handle(opened.decoded.value, context);
    } catch (error) {
      belt.observe(lane, started);
      throw error;
    }
    if (!isPromise(result)) {
      belt.observe(lane, started);
      return true;
    }
    return result.then(
      () => {
        belt.observe(lane, started);
        return true;
      },
      (error: unknown) => {
        belt.observe(lane, started);
        throw error;
      },
    );
  };
}

/** What the handler is told of the record besides the message (a batch handler, of each message of the batch). */
export function messageContext<M extends AnyContractMessage>(
  belt: Belt<M>,
  record: IncomingRecord,
  opened: OpenedEnvelope<M>,
  delivery: Delivery<M>,
): MessageContext<MessageTypeOf<M>> {
  const attempt = delivery.attempt;
  const key = record.key;
  // Two literal shapes (with and without a key) rather than a property added afterwards.
  const context: { -readonly [K in keyof MessageContext]: MessageContext[K] } =
    key === undefined
      ? {
          channel: belt.channel.id,
          address: record.address,
          messageId: opened.id,
          type: opened.type,
          time: opened.time,
          partition: record.partition,
          offset: record.offset,
          headers: record.headers,
          attempt,
          signal: belt.abandon,
        }
      : {
          channel: belt.channel.id,
          address: record.address,
          messageId: opened.id,
          type: opened.type,
          time: opened.time,
          partition: record.partition,
          offset: record.offset,
          key,
          headers: record.headers,
          attempt,
          signal: belt.abandon,
        };
  if (delivery.transaction !== undefined) context.transaction = delivery.transaction;
  if (opened.correlationId !== undefined) context.correlationId = opened.correlationId;
  if (opened.causationId !== undefined) context.causationId = opened.causationId;
  return context as MessageContext<MessageTypeOf<M>>;
}
