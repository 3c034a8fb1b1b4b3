/**
 * The responder side of a request-reply (`messaging.respond(GetBook, responder)`): a subscription
 * of the request channel whose handler's return value is published as the reply, with the
 * request's correlation id (`ce_correlationid`) and the request's id as causation. The reply goes
 * to the address in the request's reply header when the contract says so
 * (`$message.header#/replyTo`), else to the reply channel's own address.
 *
 * A responder that throws (or a reply that cannot be sent) fails the handler: the subscription's
 * policy applies (block and retry, or park), and the requester sees a timeout unless a retry
 * answers in time. A request without a reply address cannot be answered: it is logged, counted
 * (`unanswerable`) and acknowledged, so it does not block the partition.
 */
import type { Clock } from '../core/clock.js';
import type { RequestReplyDescriptor, Responder } from '../core/contract/request-reply.js';
import type { AnyChannel, AnyContractMessage, MessageContext, MessageHandler, MessageTypeOf } from '../core/contract.js';
import { encodeEnvelope } from '../core/envelope.js';
import { KeiyakuError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { TransportProducer } from '../core/transport.js';

export interface ResponderDeps {
  readonly producer: TransportProducer;
  readonly clock: Clock;
  readonly logger: Logger;
  /** CloudEvents `ce_source` of the replies. */
  readonly source: string;
  /** The reply channel as the host uses it (framed for a Schema Registry where the contract says so); default the descriptor's. */
  readonly reply?: AnyChannel;
}

/** What a responder has done, beside its subscription's own figures. */
export interface ResponderStats {
  readonly operation: string;
  /** Replies sent. */
  readonly replies: number;
  /** Requests that named no reply address, acknowledged without a reply. */
  readonly unanswerable: number;
}

/** The handler of a responder's subscription, with its figures. */
export interface ResponderHandler<Req extends AnyContractMessage> extends MessageHandler<Req> {
  stats(): ResponderStats;
}

/** The subscription handler that answers `descriptor`'s requests with `responder`. */
export function responderHandler<Req extends AnyContractMessage, Rep extends AnyContractMessage>(
  descriptor: RequestReplyDescriptor<Req, Rep>,
  responder: Responder<Req, Rep>,
  deps: ResponderDeps,
): ResponderHandler<Req> {
  const rule = descriptor.replyAddress;
  const channel = deps.reply ?? descriptor.reply;
  let replies = 0;
  let unanswerable = 0;
  return {
    groupId: responder.groupId,
    accepts: descriptor.requestTypes,
    async handle(request: Req, context: MessageContext<MessageTypeOf<Req>>): Promise<void> {
      const address = 'header' in rule ? context.headers[rule.header] : (channel.address as string);
      if (address === undefined || address === '') {
        unanswerable++;
        deps.logger.warn('responder: the request names no reply address; it is not answered', {
          operation: descriptor.id,
          header: 'header' in rule ? rule.header : undefined,
          messageId: context.messageId,
        });
        return;
      }
      const reply = await responder.respond(request, context);
      const type = channel.typeOf(reply);
      if (!(descriptor.replyTypes as readonly string[]).includes(type))
        throw new KeiyakuError('reply_invalid', `responder of ${descriptor.id} returned a ${type}, which is not a reply of the contract`);
      await channel.prepare?.(address, type);
      const record = encodeEnvelope(
        channel,
        reply,
        address,
        deps.source,
        { correlationId: context.correlationId ?? context.messageId, causationId: context.messageId },
        deps.clock.now(),
      );
      await deps.producer.send([record]);
      replies++;
    },
    stats: () => ({ operation: descriptor.id, replies, unanswerable }),
  };
}
