/**
 * The generated code of Protobuf payloads: their declarations in types.ts (from the compiled
 * descriptors, generator/formats/protobuf/types.ts) and the codec expression of each message in
 * messages.ts (`protobufCodec` of `@keiyaku/protobuf`, the descriptors embedded as base64).
 */
import { protobufDeclarations } from '../formats/protobuf/types.js';
import type { ContractModel, MessageModel, ProtobufPayloadModel } from '../model/contract-model.js';
import { stringLiteral } from './escape.js';

type ProtobufMessage = MessageModel & { readonly format: ProtobufPayloadModel };

function protobufMessages(model: ContractModel): ProtobufMessage[] {
  return Object.values(model.messages).filter((m): m is ProtobufMessage => m.format?.kind === 'protobuf');
}

/**
 * The declarations of every Protobuf payload and the types they reach (each once), clear of the
 * names `taken` by the contract's other declarations. `values` is true when they hold values
 * (the const objects of enums): types.ts is then a module with values, and index.ts re-exports
 * it whole.
 */
export function protobufTypes(
  model: ContractModel,
  taken: ReadonlySet<string>,
): { readonly declarations: string[]; readonly values: boolean } {
  const messages = protobufMessages(model);
  if (messages.length === 0) return { declarations: [], values: false };
  const roots = messages.map((m) => ({ descriptorSet: m.format.descriptorSet, message: m.format.message, name: m.payload }));
  const given = new Map(messages.flatMap((m) => Object.entries(m.format.typeNames ?? {})));
  const written = protobufDeclarations(roots, taken, given);
  const declarations = [written.values, written.types].filter((text) => text !== '');
  return { declarations: declarations.flatMap((text) => text.split('\n\n')), values: written.values !== '' };
}

/** `protobufCodec(…)` of a Protobuf message: its descriptors, its message name, its `.proto` source and content type. */
export function protobufCodecExpression(message: MessageModel): string | undefined {
  if (message.format?.kind !== 'protobuf') return undefined;
  const { descriptorSet, message: name, source } = message.format;
  return `protobufCodec(${stringLiteral(descriptorSet)}, ${stringLiteral(name)}, { source: ${stringLiteral(source)}, contentType: ${stringLiteral(message.contentType)} })`;
}

/** The type a factory of a Protobuf message takes: its `…Init` type (every field optional). */
export function protobufInitType(message: MessageModel): string | undefined {
  return message.format?.kind === 'protobuf' ? `${message.payload}Init` : undefined;
}
