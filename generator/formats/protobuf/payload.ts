/**
 * A Protobuf payload of the contract as a {@link ProtobufPayloadModel}: the `.proto` compiled with
 * buf, the payload message chosen, the descriptors embedded (base64, no source info, so the same
 * input gives the same bytes).
 *
 * Which message is the payload: the AsyncAPI specification leaves it open. keiyaku takes the
 * message named by the contract (a `#Name` fragment of the `$ref`), else follows the AsyncAPI
 * Protobuf schema parser (`@asyncapi/protobuf-schema-parser`): the one message of the file that
 * no other message of the file uses, or among several such, the one whose comment says
 * `@RootNode`. Anything else is an error naming the candidates.
 */
import { createFileRegistry, type DescMessage, fromBinary, toBinary } from '@bufbuild/protobuf';
import { type FileDescriptorSet, FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import { type Diagnostic, didYouMean, type SourceLocation } from '../../diagnostics.js';
import type { ProtobufPayloadModel } from '../../model/contract-model.js';
import { compileProtoFile, compileProtoSource, type ProtoCompileResult } from './compile.js';

export interface CompileProtobufInput {
  /** The `schemaFormat` as written. */
  readonly schemaFormat: string;
  /** The `.proto` text of the payload's file. */
  readonly source: string;
  /**
   * A `$ref`'d file: the directory its imports resolve from, its path relative to that directory,
   * and its path as the model names it (relative like `ContractModel.source`). Absent: inline.
   */
  readonly file?: { readonly root: string; readonly path: string; readonly display: string };
  /** The payload message the contract names (fully qualified, or unique by its short name). */
  readonly message?: string;
  /**
   * Where a position of buf's lands: `file` is buf's name of the file (relative to the root;
   * the inline schema's own name for an inline one), line and column 1-based.
   */
  readonly locate: (file: string, line: number, column: number) => SourceLocation;
  /** The payload in the contract: where errors without a position in a `.proto` are reported. */
  readonly at: SourceLocation;
  /** The name of an inline schema's file (also what imports of other contract files would see). */
  readonly inlineName?: string;
}

export interface ProtobufPayloadResult {
  readonly model?: ProtobufPayloadModel;
  readonly diagnostics: readonly Diagnostic[];
}

const ROOT_NODE = '@RootNode';

/** Compiles and resolves one Protobuf payload; errors are located diagnostics (buf missing throws). */
export function compileProtobufPayload(input: CompileProtobufInput): ProtobufPayloadResult {
  const target = input.file?.path.split('\\').join('/') ?? input.inlineName ?? 'inline.proto';
  const compiled: ProtoCompileResult =
    input.file === undefined
      ? compileProtoSource(input.source, target, { sourceInfo: true })
      : compileProtoFile(input.file.root, input.file.path, { sourceInfo: true });
  if (!compiled.ok) {
    return {
      diagnostics: compiled.errors.map((error) => ({
        severity: 'error' as const,
        code: 'protobuf_invalid',
        message: `the Protobuf schema does not compile: ${error.message}`,
        hint: 'fix the .proto (buf compiles it as protoc would)',
        location: error.line === 0 ? input.at : input.locate(error.file || target, error.line, error.column),
      })),
    };
  }
  const set = fromBinary(FileDescriptorSetSchema, compiled.descriptorSet);
  const registry = createFileRegistry(set);
  const file = registry.getFile(target);
  if (file === undefined) return { diagnostics: [error(`buf gave no descriptors of ${target}`, 'report this as a keiyaku bug', input.at)] };
  const declared = allMessages(file.messages).filter((desc) => desc.proto.options?.mapEntry !== true);
  const chosen = input.message === undefined ? rootMessage(declared, set, target) : namedMessage(declared, input.message);
  if (typeof chosen === 'string') return { diagnostics: [error(chosen, hintFor(input), input.at)] };
  return {
    model: {
      kind: 'protobuf',
      message: chosen.typeName,
      source: input.source,
      descriptorSet: withoutSourceInfo(set),
      schemaFormat: input.schemaFormat,
      ...(input.file === undefined ? {} : { file: input.file.display }),
    },
    diagnostics: [],
  };
}

function error(message: string, hint: string, location: SourceLocation): Diagnostic {
  return { severity: 'error', code: 'protobuf_payload_message', message, hint, location };
}

function hintFor(input: CompileProtobufInput): string {
  return input.file === undefined
    ? 'mark the payload message with a `// @RootNode` comment'
    : `name the payload message in the $ref (\`${input.file.display}#Name\`) or mark it with a \`// @RootNode\` comment`;
}

function allMessages(messages: readonly DescMessage[]): DescMessage[] {
  return messages.flatMap((desc) => [desc, ...allMessages(desc.nestedMessages)]);
}

/** The message `name` (fully qualified, or its name in the package, or a unique short name), or why not. */
function namedMessage(declared: readonly DescMessage[], name: string): DescMessage | string {
  const bare = name.startsWith('.') ? name.slice(1) : name;
  const exact = declared.find((desc) => desc.typeName === bare || desc.typeName === `${desc.file.proto.package}.${bare}`);
  if (exact !== undefined) return exact;
  const byName = declared.filter((desc) => desc.name === bare);
  if (byName.length === 1 && byName[0] !== undefined) return byName[0];
  const names = declared.map((desc) => desc.typeName);
  if (byName.length > 1)
    return `the Protobuf message ${name} is ambiguous: ${byName.map((desc) => desc.typeName).join(', ')}; name it fully qualified`;
  const shortName = didYouMean(bare, new Set(declared.map((desc) => desc.name)));
  const suggestion = shortName === undefined ? didYouMean(bare, names) : declared.find((desc) => desc.name === shortName)?.typeName;
  return `the .proto declares no message ${name}${suggestion === undefined ? '' : ` (did you mean ${suggestion}?)`}; it declares ${names.join(', ') || 'no messages'}`;
}

/** The payload message by the AsyncAPI Protobuf parser's rule (see the module comment), or why none. */
function rootMessage(declared: readonly DescMessage[], set: FileDescriptorSet, target: string): DescMessage | string {
  if (declared.length === 0) return 'the .proto declares no message to be the payload';
  const usedByOthers = new Set<string>();
  for (const desc of declared) {
    for (const field of desc.fields) {
      if (field.message !== undefined && field.message !== desc) usedByOthers.add(field.message.typeName);
      // A map's values are fields of its entry message, which is no candidate itself.
      if (field.fieldKind === 'map' && field.mapKind === 'message') usedByOthers.add(field.message.typeName);
    }
  }
  const roots = declared.filter((desc) => !usedByOthers.has(desc.typeName));
  if (roots.length === 1 && roots[0] !== undefined) return roots[0];
  const candidates = roots.length === 0 ? declared : roots;
  const marked = candidates.filter((desc) => commentsOf(desc, set, target).includes(ROOT_NODE));
  if (marked.length === 1 && marked[0] !== undefined) return marked[0];
  const names = candidates.map((desc) => desc.typeName).join(', ');
  return marked.length > 1
    ? `several Protobuf messages are marked @RootNode: ${marked.map((desc) => desc.typeName).join(', ')}`
    : `the .proto declares several messages that could be the payload (no other message uses them): ${names}`;
}

/** The leading and trailing comments of `desc` in its file's source info. */
function commentsOf(desc: DescMessage, set: FileDescriptorSet, target: string): string {
  const file = set.file.find((candidate) => candidate.name === target);
  const path: number[] = [];
  let current: DescMessage = desc;
  while (current.parent !== undefined) {
    path.unshift(3, current.parent.nestedMessages.indexOf(current));
    current = current.parent;
  }
  path.unshift(4, current.file.messages.indexOf(current));
  const location = file?.sourceCodeInfo?.location.find(
    (candidate) => candidate.path.length === path.length && candidate.path.every((step, index) => step === path[index]),
  );
  return `${location?.leadingComments ?? ''}\n${location?.trailingComments ?? ''}`;
}

/** The set as base64 of its binary encoding, without source info (locations are no part of the schema). */
function withoutSourceInfo(set: FileDescriptorSet): string {
  for (const file of set.file) file.sourceCodeInfo = undefined;
  return Buffer.from(toBinary(FileDescriptorSetSchema, set)).toString('base64');
}
