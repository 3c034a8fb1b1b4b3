/**
 * An operation's `reply` (AsyncAPI 3.x) as the plain contract reader presents it: the same part of
 * the parser's `OperationReply` the model builder reads (its address, channel and messages).
 * The reader's own channel and message objects are made by `make`.
 */
import type { ContractChannel, ContractMessage, ContractReply } from './document.js';

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

export function plainReply(
  reply: Json,
  pointer: string,
  make: { channel(json: Json): ContractChannel; message(json: Json, pointer: string): ContractMessage },
): ContractReply {
  const { address, channel, messages } = reply;
  const listed = Array.isArray(messages) ? (messages as Json[]).map((m, i) => make.message(m, `${pointer}/messages/${i}`)) : [];
  return {
    meta: () => ({ pointer }),
    address: () => (isObject(address) ? { location: () => address['location'] as string | undefined } : undefined),
    channel: () => (isObject(channel) ? make.channel(channel) : undefined),
    messages: () => ({ all: () => listed, length: listed.length }),
  };
}
