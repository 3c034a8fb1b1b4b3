/**
 * Operation objects: what this application does on a channel (send or receive), with which
 * messages, and how a request is answered (its `reply`, AsyncAPI 3.x). AsyncAPI 3.x says
 * send/receive; 2.x speaks from the client's side: `subscribe` means clients subscribe to what
 * this application sends, `publish` that clients publish to it (it receives). Both arrive here
 * through the parser's `isSend()`. 2.x has no reply object.
 *
 * @see https://www.asyncapi.com/docs/reference/specification/v3.0.0#operationObject
 * @see https://www.asyncapi.com/docs/reference/specification/v3.0.0#operationReplyObject
 */
import type { Diagnostic } from '../diagnostics.js';
import type { ContractOperation, ContractReply } from '../load/document.js';
import { unescapeToken } from '../pointer.js';
import { kafkaOperationBinding } from './bindings/kafka.js';
import { allocateIdentifier, type ModelContext, optional, type Part, pointerOf } from './context.js';
import type { ChannelModel, OperationModel, ReplyModel } from './contract-model.js';
import { pascalCase, safeIdentifier } from './identifiers.js';

/** Names generated code declares for each request-reply besides its base identifier: `<Base><suffix>`. */
const REPLY_FAMILY = { suffixes: ['', 'Request', 'Reply', 'Responder', 'Requester'], prefixes: [] } as const;

/** The one runtime expression of a reply address keiyaku carries: a header of the request. */
const HEADER_LOCATION = /^\$message\.header#\/([^/]+)$/;

export function operationObject(
  op: ContractOperation,
  context: ModelContext,
  channels: readonly ChannelModel[] = [],
): Part<OperationModel> {
  const id = op.id() ?? '';
  const diagnostics: Diagnostic[] = [...kafkaOperationBinding(op, context).diagnostics];
  const node = op.reply?.();
  const reply = node === undefined ? undefined : replyObject(node, id, `${pointerOf(op) ?? `/operations/${id}`}/reply`, context, channels);
  if (reply !== undefined) diagnostics.push(...reply.diagnostics);
  const part: OperationModel = {
    id,
    action: op.isSend() ? 'send' : 'receive',
    channel: op.channels().all()[0]?.id() ?? '',
    messages: op
      .messages()
      .all()
      .map((m) => m.name() ?? m.id()),
    ...optional('summary', op.summary()),
    ...optional('reply', reply?.part),
  };
  return { part, diagnostics };
}

/**
 * The reply of operation `id`, or undefined with a warning when keiyaku cannot carry it: a reply
 * without a channel (keiyaku needs its messages), an address that is not a header of the request
 * (`$message.payload#/…`, a nested pointer), or no address while the reply channel's own address
 * is dynamic (`address: null`) or has parameters (the responder could not tell where to answer).
 * Nothing is generated for such an operation; the rest of the contract is.
 */
function replyObject(
  reply: ContractReply,
  id: string,
  fallbackPointer: string,
  context: ModelContext,
  channels: readonly ChannelModel[],
): Part<ReplyModel | undefined> {
  const pointer = pointerOf(reply) ?? fallbackPointer;
  const unsupported = (why: string, hint: string, at: readonly string[] = []): Part<undefined> => ({
    part: undefined,
    diagnostics: [
      {
        severity: 'warning',
        code: 'reply_unsupported',
        message: `operation "${id}": ${why}, so keiyaku generates no request-reply for it`,
        hint,
        location: context.locate(pointer, at),
      },
    ],
  });
  const location = reply.address()?.location();
  let addressHeader: string | undefined;
  if (location !== undefined) {
    const header = HEADER_LOCATION.exec(location.trim());
    if (header === null)
      return unsupported(
        `its reply address ${JSON.stringify(location)} is not a header of the request`,
        'name a header of the request message: `location: $message.header#/replyTo`',
        ['address', 'location'],
      );
    addressHeader = unescapeToken(header[1]!);
  }
  const channelNode = reply.channel();
  if (channelNode === undefined)
    return unsupported(
      'its reply names no channel (keiyaku needs the reply channel for its messages)',
      'add `channel: { $ref: … }` to the reply',
    );
  const channel = channels.find((c) => c.id === channelNode.id());
  if (addressHeader === undefined && (channelNode.address() === null || (channel?.parameters.length ?? 0) > 0))
    return unsupported(
      `its reply channel "${channelNode.id()}" has ${channelNode.address() === null ? 'no fixed address' : 'parameters in its address'} and the reply gives no address`,
      'give the reply an address from the request: `address: { location: $message.header#/replyTo }`',
    );
  const named = reply
    .messages()
    .all()
    .map((m) => m.name() ?? m.id() ?? '');
  const messages = named.length > 0 ? named : (channel?.messages ?? []);
  const wanted = safeIdentifier(pascalCase(id), 'RequestReply');
  const identifier = allocateIdentifier(context, `operation "${id}"`, wanted, REPLY_FAMILY, () => context.locate(pointer));
  return {
    part: {
      identifier: identifier.part,
      channel: channelNode.id(),
      messages,
      ...optional('addressHeader', addressHeader),
      ...optional('location', location),
    },
    diagnostics: identifier.diagnostics,
  };
}
