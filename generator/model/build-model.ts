/**
 * From a parsed AsyncAPI document (2.6 or 3.x, as `@asyncapi/parser` presents both, or as
 * generator/load/plain-document.ts presents a contract read without the parser) to the frozen
 * {@link ContractModel}: channels, messages, operations, bindings and the registry of named
 * payload schemas.
 *
 * Each spec object has its own module (`message-object`, `channel-object`, `operation-object`,
 * `bindings/kafka`, `bindings/iggy`, `extensions`), a function of the node and the run's
 * {@link ModelContext} that returns its part and its diagnostics; this one composes them in the
 * order names are handed out: message types first (they own the plain names, `BookBorrowed`),
 * then channels, then the schemas, which get what is left.
 *
 * @see https://www.asyncapi.com/docs/reference/specification/v3.0.0
 */
import type { Diagnostic } from '../diagnostics.js';
import type { ContractDocument } from '../load/document.js';
import type { SourceLocator } from '../load/source-locator.js';
import { channelIdentifier, channelObject, withRoles } from './channel-object.js';
import { createModelContext, type ModelContext, optional, type Part } from './context.js';
import { type ContractModel, deepFreeze, type MessageModel } from './contract-model.js';
import { rootCompatibility } from './extensions.js';
import { contractMessages, discoverMessageSchemas, messageIdentifier, messageObject } from './message-object.js';
import { operationObject } from './operation-object.js';
import { planPayloads } from './payload-format.js';

export type { ContractChannel, ContractDocument, ContractMessage } from '../load/document.js';
export { RESERVED_IDENTIFIERS } from './context.js';

export interface BuiltModel {
  readonly model: ContractModel | undefined;
  readonly diagnostics: readonly Diagnostic[];
}

export function buildModel(document: ContractDocument, locator: SourceLocator, source: string): BuiltModel {
  const context: ModelContext = createModelContext(locator, document.defaultContentType());
  const diagnostics: Diagnostic[] = [];
  const take = <T>(built: Part<T>): T => {
    diagnostics.push(...built.diagnostics);
    return built.part;
  };

  const channelNodes = document.channels().all();
  const { entries, byChannel } = take(contractMessages(channelNodes, context));
  const messageIdentifiers = entries.map((entry) => take(messageIdentifier(entry, context)));
  const channelIdentifiers = channelNodes.map((channel) => take(channelIdentifier(channel, context)));
  const plan = take(planPayloads(entries, document, context));
  for (const [i, entry] of entries.entries()) discoverMessageSchemas(entry, messageIdentifiers[i]!, context, plan);
  const messages: Record<string, MessageModel> = {};
  for (const [i, entry] of entries.entries()) messages[entry.type] = take(messageObject(entry, messageIdentifiers[i]!, context, plan));
  const channelModels = channelNodes.map((channel, i) =>
    take(channelObject(channel, context, { identifier: channelIdentifiers[i]!, messages: byChannel.get(channel.id()) ?? [] })),
  );
  const operations = document
    .operations()
    .all()
    .map((op) => take(operationObject(op, context, channelModels)));
  const channels = channelModels.map((channel) => withRoles(channel, operations));
  const compatibility = take(
    rootCompatibility(document.extensions().get('x-keiyaku')?.value(), (...path) => context.locate('', ['x-keiyaku', ...path])),
  );

  diagnostics.push(...context.registry.diagnostics);
  const schemas = context.registry.entries();
  if (diagnostics.some((d) => d.severity === 'error')) return { model: undefined, diagnostics };
  const info = document.info();
  const model: ContractModel = {
    source,
    asyncapi: document.version(),
    info: { title: info.title(), version: info.version(), ...optional('description', info.description()) },
    channels,
    messages,
    operations,
    schemas,
    ...optional('compatibility', compatibility),
  };
  return { model: deepFreeze(model), diagnostics };
}
