/**
 * What every spec-object module of the model builder shares: where a node of the resolved
 * document was written, the run's name allocator and named-schema registry, and the document's
 * defaults. {@link buildModel} creates one per run; nothing lives at module level.
 *
 * Each spec-object module is a function `(node, context) → Part`: its part of the model and the
 * diagnostics it found on the way, in the order it found them.
 */
import { resolve } from 'node:path';
import type { Diagnostic, SourceLocation } from '../diagnostics.js';
import { tokensFromPointer } from '../pointer.js';
import { allocateFamily, NameAllocator } from './identifiers.js';
import { type SchemaLocator, SchemaRegistry } from './schema-object.js';

/** Where a node was written: its pointer in the resolved document, then tokens below it. */
export type Locate = (pointer: string | undefined, extra?: readonly (string | number)[]) => SourceLocation;

export interface ModelContext {
  readonly locate: Locate;
  /** Every identifier generated code declares, handed out once per run. */
  readonly allocator: NameAllocator;
  /** The named payload and header schemas of the run. */
  readonly registry: SchemaRegistry;
  /** The document's `defaultContentType`, when it declares one. */
  readonly defaultContentType: string | undefined;
  /** The absolute path of a file as locations name it (a `$ref`'d `.proto` file, the contract). */
  readonly resolveFile: (file: string) => string;
}

/** What a spec-object module returns: its part of the model and the diagnostics it found. */
export interface Part<T> {
  readonly part: T;
  readonly diagnostics: readonly Diagnostic[];
}

/** Identifiers that generated files import or declare themselves. */
export const RESERVED_IDENTIFIERS = [
  'ContractMessage',
  'MessageDescriptor',
  'ChannelDescriptor',
  'MessageContext',
  'MessageHandler',
  'BatchHandler',
  'DispatchCases',
  'DecodeResult',
  'defineMessage',
  'defineChannel',
  'defineRequestReply',
  'RequestReplyDescriptor',
  'Responder',
  'dispatch',
  'messageType',
  'validators',
  'ajvRuntime',
  'iggyChannel',
  'channels',
  'messages',
  'manifest',
  'contract',
];

/** A fresh context over `locator` (a SourceLocator of one load), with keiyaku's reserved identifiers taken. */
export function createModelContext(locator: SchemaLocator, defaultContentType?: string): ModelContext {
  const allocator = new NameAllocator(RESERVED_IDENTIFIERS);
  return {
    locate: (pointer, extra = []) => locator.locate([...tokensFromPointer(pointer ?? ''), ...extra]),
    allocator,
    registry: new SchemaRegistry(allocator, locator),
    defaultContentType,
    resolveFile: (file) => locator.resolvePath?.(file) ?? resolve(file),
  };
}

/** The pointer the parser (or the plain reader) recorded for a node, when it did. */
export function pointerOf(node: { meta(): unknown }): string | undefined {
  return ((node.meta() ?? {}) as { pointer?: string }).pointer;
}

/** An id the parser made up (`<anonymous-message-1>`) or none: the node has no name of its own. */
export function anonymous(id: string | undefined): boolean {
  return id === undefined || id.startsWith('<') || id.length === 0;
}

/** `{ key: value }`, or nothing when the value is absent, null or empty text. */
export function optional<K extends string, V>(key: K, value: V | undefined | null): { [P in K]?: V } {
  return value === undefined || value === null || value === '' ? {} : ({ [key]: value } as { [P in K]: V });
}

export function positiveInt(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
}

/**
 * The identifier of a message or channel (`what`) in generated code: `wanted`, or the first
 * numbered variant whose whole family (`wanted + suffix`, `prefix + wanted`) is free. A warning
 * at `location` (worked out only then) says so when `wanted` was taken.
 */
export function allocateIdentifier(
  context: ModelContext,
  what: string,
  wanted: string,
  family: { readonly suffixes: readonly string[]; readonly prefixes: readonly string[] },
  location: () => SourceLocation,
): Part<string> {
  const given = allocateFamily(context.allocator, wanted, family.suffixes, family.prefixes, what);
  if (given === wanted) return { part: given, diagnostics: [] };
  return {
    part: given,
    diagnostics: [
      {
        severity: 'warning',
        code: 'name_clash',
        message: `${what} is named ${given} in generated code: ${wanted} is taken by ${context.allocator.ownerOf(wanted)}`,
        hint: `rename one of them in the contract to choose the names`,
        location: location(),
      },
    ],
  };
}
