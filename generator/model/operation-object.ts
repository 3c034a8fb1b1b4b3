/**
 * Operation objects: what this application does on a channel (send or receive), with which
 * messages. AsyncAPI 3.x says send/receive; 2.x speaks from the client's side: `subscribe` means
 * clients subscribe to what this application sends, `publish` that clients publish to it (it
 * receives). Both arrive here through the parser's `isSend()`.
 *
 * @see https://www.asyncapi.com/docs/reference/specification/v3.0.0#operationObject
 */
import type { ContractOperation } from '../load/document.js';
import { kafkaOperationBinding } from './bindings/kafka.js';
import { type ModelContext, optional, type Part } from './context.js';
import type { OperationModel } from './contract-model.js';

export function operationObject(op: ContractOperation, context: ModelContext): Part<OperationModel> {
  const part: OperationModel = {
    id: op.id() ?? '',
    action: op.isSend() ? 'send' : 'receive',
    channel: op.channels().all()[0]?.id() ?? '',
    messages: op
      .messages()
      .all()
      .map((m) => m.name() ?? m.id()),
    ...optional('summary', op.summary()),
  };
  return { part, diagnostics: kafkaOperationBinding(op, context).diagnostics };
}
