/**
 * The descriptor of one request-reply of the contract: an AsyncAPI 3 operation with a `reply`.
 * The request travels on the operation's channel; the reply on the reply channel, to the address
 * the request names in a header (`$message.header#/replyTo`) or to the reply channel's own address.
 */
import type { MessageContext } from '../context.js';
import { KeiyakuError } from '../errors.js';
import type { AnyContractMessage, MessageTypeOf } from './brand.js';
import type { AnyChannel } from './channel.js';
import type { MessageDescriptor } from './message.js';

/**
 * Where a reply goes: `{ header }` — the address is in that header of the request (the
 * requester sets it, the responder reads it); `{ channel: true }` — the reply channel's own address.
 */
export type ReplyAddressRule = { readonly header: string } | { readonly channel: true };

/** Carries the request and reply types of a descriptor for inference; never set. */
declare const requestReplyTypes: unique symbol;

export interface RequestReplyDescriptor<Req extends AnyContractMessage, Rep extends AnyContractMessage> {
  /** The operation id in the contract (`getBook`). */
  readonly id: string;
  /** The channel requests travel on. */
  readonly request: AnyChannel;
  /** The channel replies travel on (its messages, codec and bindings). */
  readonly reply: AnyChannel;
  /** The message types a request may be. */
  readonly requestTypes: readonly MessageTypeOf<Req>[];
  /** The message types a reply may be. */
  readonly replyTypes: readonly MessageTypeOf<Rep>[];
  readonly replyAddress: ReplyAddressRule;
  readonly [requestReplyTypes]?: { readonly request: Req; readonly reply: Rep };
}

/** The request type of a descriptor. */
export type RequestOf<D> = D extends RequestReplyDescriptor<infer Req, AnyContractMessage> ? Req : never;
/** The reply type of a descriptor. */
export type ReplyOf<D> = D extends RequestReplyDescriptor<AnyContractMessage, infer Rep> ? Rep : never;

/**
 * Answers the requests of one request-reply: what `respond` returns is published as the reply,
 * with the request's correlation id. It runs in a subscription of consumer group `groupId`, so
 * the subscription's policies apply when it throws; it must be idempotent: a request may be
 * delivered more than once.
 */
export interface Responder<Req extends AnyContractMessage, Rep extends AnyContractMessage> {
  readonly groupId: string;
  respond(request: Req, context: MessageContext<MessageTypeOf<Req>>): Promise<Rep> | Rep;
}

export interface RequestReplyDefinition {
  readonly id: string;
  readonly request: AnyChannel;
  // biome-ignore lint/suspicious/noExplicitAny: descriptors of different payload types share one list
  readonly requestMessages: readonly MessageDescriptor<string, any, any>[];
  readonly reply: AnyChannel;
  // biome-ignore lint/suspicious/noExplicitAny: descriptors of different payload types share one list
  readonly replyMessages: readonly MessageDescriptor<string, any, any>[];
  readonly replyAddress: ReplyAddressRule;
}

/** Builds the descriptor of one request-reply. Called by generated code only. */
export function defineRequestReply<Req extends AnyContractMessage, Rep extends AnyContractMessage>(
  definition: RequestReplyDefinition,
): RequestReplyDescriptor<Req, Rep> {
  const requestTypes = definition.requestMessages.map((m) => m.type) as MessageTypeOf<Req>[];
  const replyTypes = definition.replyMessages.map((m) => m.type) as MessageTypeOf<Rep>[];
  for (const [channel, types] of [
    [definition.request, requestTypes],
    [definition.reply, replyTypes],
  ] as const)
    for (const type of types)
      if (channel.message(type) === undefined)
        throw new KeiyakuError('unknown_message_type', `request-reply ${definition.id}: channel ${channel.id} does not carry ${type}`);
  return Object.freeze({
    id: definition.id,
    request: definition.request,
    reply: definition.reply,
    requestTypes: Object.freeze(requestTypes),
    replyTypes: Object.freeze(replyTypes),
    replyAddress: Object.freeze({ ...definition.replyAddress }),
  });
}
