/**
 * Names in generated code for the messages and enums a Protobuf payload reaches, allocated with
 * every other name of the contract: the payload message by its own name (or `<Message>Payload`
 * when that is taken), the others by protobuf-es's names (`BookBorrowed_Item`). A message also
 * declares `<Name>Init`, so both are reserved. A type two payloads reach keeps one name.
 */
import type { Diagnostic } from '../diagnostics.js';
import { reachedTypes } from '../formats/protobuf/types.js';
import type { ModelContext, Part } from './context.js';
import type { ProtobufPayloadModel } from './contract-model.js';
import { allocateFamily, safeIdentifier } from './identifiers.js';

const namesByContext = new WeakMap<object, Map<string, string>>();

/** The payload's name and the model with the names of every type it reaches. */
export function protobufPayloadNames(
  model: ProtobufPayloadModel,
  identifier: string,
  context: ModelContext,
): Part<{ model: ProtobufPayloadModel; payload: string }> {
  const diagnostics: Diagnostic[] = [];
  let shared = namesByContext.get(context);
  if (shared === undefined) {
    shared = new Map();
    namesByContext.set(context, shared);
  }
  const typeNames: Record<string, string> = {};
  for (const [i, reached] of reachedTypes(model.descriptorSet, model.message).entries()) {
    let name = shared.get(reached.typeName);
    if (name === undefined) {
      const local = safeIdentifier(reached.local, 'Protobuf');
      const wanted =
        i === 0 && (context.allocator.isTaken(local) || context.allocator.isTaken(`${local}Init`)) ? `${identifier}Payload` : local;
      const owner = `the Protobuf ${reached.kind} ${reached.typeName}`;
      name =
        reached.kind === 'message'
          ? allocateFamily(context.allocator, wanted, ['', 'Init'], [], owner)
          : context.allocator.allocate(wanted, owner);
      if (name !== wanted) {
        diagnostics.push({
          severity: 'warning',
          code: 'name_clash',
          message: `the Protobuf ${reached.kind} ${reached.typeName} is named ${name} in generated code: ${wanted} is taken by ${context.allocator.ownerOf(wanted)}`,
          hint: 'rename one of them to choose the names',
        });
      }
      shared.set(reached.typeName, name);
    }
    typeNames[reached.typeName] = name;
  }
  return { part: { model: { ...model, typeNames }, payload: typeNames[model.message]! }, diagnostics };
}
