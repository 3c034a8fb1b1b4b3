/**
 * Names in generated code for the messages and enums a Protobuf payload reaches, allocated with
 * every other name of the contract: the payload message by its own name (or `<Message>Payload`
 * when that is taken), the others by protobuf-es's names (`BookBorrowed_Item`). A message also
 * declares `<Name>Init`, so both are reserved. A type two payloads reach keeps one name.
 */
import type { Diagnostic, SourceLocation } from '../diagnostics.js';
import { reachedTypes } from '../formats/protobuf/types.js';
import type { ModelContext, Part } from './context.js';
import type { ProtobufPayloadModel } from './contract-model.js';
import { allocateFamily, safeIdentifier } from './identifiers.js';

/** Per run: each Protobuf type's name in generated code and its compiled shape, by fully qualified name. */
const namesByContext = new WeakMap<object, Map<string, { readonly name: string; readonly shape: string }>>();

/** The payload's name and the model with the names of every type it reaches. */
export function protobufPayloadNames(
  model: ProtobufPayloadModel,
  identifier: string,
  context: ModelContext,
  location: SourceLocation,
): Part<{ model: ProtobufPayloadModel; payload: string }> {
  const diagnostics: Diagnostic[] = [];
  let shared = namesByContext.get(context);
  if (shared === undefined) {
    shared = new Map();
    namesByContext.set(context, shared);
  }
  const typeNames: Record<string, string> = {};
  for (const [i, reached] of reachedTypes(model.descriptorSet, model.message).entries()) {
    const known = shared.get(reached.typeName);
    // One name, one declaration: two payloads that define the same type differently cannot share it.
    if (known !== undefined && known.shape !== reached.shape) {
      diagnostics.push({
        severity: 'error',
        code: 'protobuf_type_conflict',
        message: `the Protobuf ${reached.kind} ${reached.typeName} of message "${identifier}" differs from the one of that name another payload of the contract uses`,
        hint: 'give the two definitions different names (or packages), or share one .proto file',
        location,
      });
    }
    let name = known?.name;
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
      shared.set(reached.typeName, { name, shape: reached.shape });
    }
    typeNames[reached.typeName] = name;
  }
  return { part: { model: { ...model, typeNames }, payload: typeNames[model.message]! }, diagnostics };
}
