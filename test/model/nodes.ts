// Spec-object nodes from plain JSON, presenting the few parser methods the model modules read
// (generator/load/document.ts), and a ready-made model context over a locator that places every
// node in asyncapi.yaml at line 0: the table-driven tests under test/model/ start from these.
import type { Diagnostic, SourceLocation } from '../../generator/diagnostics.js';
import type {
  ContractChannel,
  ContractDocument,
  ContractMessage,
  ContractOperation,
  ModelList,
  ValueLookup,
} from '../../generator/load/document.js';
import type { SourceCursor, SourceLocator } from '../../generator/load/source-locator.js';
import { createModelContext, type ModelContext } from '../../generator/model/context.js';
import type { SchemaLocator } from '../../generator/model/schema-object.js';
import { pointerFromTokens, tokensFromPointer } from '../../generator/pointer.js';

export type Json = Record<string, unknown>;

/** Where the test locator places a node: asyncapi.yaml, at its pointer, line and column unknown. */
export function at(pointer: string): SourceLocation {
  return { file: 'asyncapi.yaml', line: 0, column: 0, pointer };
}

const locator: SchemaLocator = {
  start: () => ({ file: 'asyncapi.yaml', parsed: null, at: null, parent: null, pointer: '', hops: 0, state: 'open' }) as SourceCursor,
  step: (from, tokens) => ({ ...from, pointer: pointerFromTokens([...tokensFromPointer(from.pointer), ...tokens]) }),
  location: (cursor) => at(cursor.pointer),
  locate: (tokens) => at(pointerFromTokens(tokens)),
};

/** The test locator where buildModel wants a SourceLocator: it reads only what a SchemaLocator offers. */
export const testLocator = locator as unknown as SourceLocator;

/** A fresh context (its own name allocator and schema registry) for one case. */
export function testContext(defaultContentType?: string): ModelContext {
  return createModelContext(locator, defaultContentType);
}

/** The code, message and pointer of each diagnostic: what the tables compare. */
export function found(diagnostics: readonly Diagnostic[]): { code: string; severity: string; message: string; pointer?: string }[] {
  return diagnostics.map((d) => ({
    code: d.code,
    severity: d.severity,
    message: d.message,
    ...(d.location === undefined ? {} : { pointer: d.location.pointer }),
  }));
}

function list<T>(items: T[]): ModelList<T> {
  return { all: () => items, length: items.length };
}

function lookup(values: unknown): ValueLookup {
  const map = (typeof values === 'object' && values !== null ? values : {}) as Json;
  return { get: (name) => (name in map ? { value: () => map[name] } : undefined) };
}

function extensions(json: Json): ValueLookup {
  return lookup(Object.fromEntries(Object.entries(json).filter(([key]) => key.startsWith('x-'))));
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function schema(value: unknown): { json(): unknown } | undefined {
  return value === undefined ? undefined : { json: () => value };
}

/** A message object: `id` as the parser gives it (`<anonymous-message-1>` when made up), `pointer` its place. */
export function messageNode(json: Json, options: { id?: string; pointer?: string } = {}): ContractMessage {
  const correlation = json['correlationId'] as { location?: string } | undefined;
  return {
    meta: () => (options.pointer === undefined ? {} : { pointer: options.pointer }),
    id: () => options.id,
    name: () => text(json['name']),
    json: () => json,
    title: () => text(json['title']),
    summary: () => text(json['summary']),
    description: () => text(json['description']),
    contentType: () => text(json['contentType']),
    payload: () => schema(json['payload']),
    headers: () => schema(json['headers']),
    correlationId: () => (correlation === undefined ? undefined : { location: () => correlation.location }),
    examples: () =>
      list(
        ((json['examples'] ?? []) as Json[]).map((e) => ({
          name: () => text(e['name']),
          payload: () => e['payload'],
          headers: () => e['headers'],
        })),
      ),
    bindings: () => lookup(json['bindings']),
    extensions: () => extensions(json),
  };
}

/** A channel object with id `id`; its messages keyed by id, at `<pointer>/messages/<id>`. */
export function channelNode(id: string, json: Json = {}, options: { pointer?: string } = {}): ContractChannel {
  const pointer = options.pointer ?? `/channels/${id}`;
  const messages = Object.entries((json['messages'] ?? {}) as Record<string, Json>).map(([key, message]) =>
    messageNode(message, { id: key, pointer: `${pointer}/messages/${key}` }),
  );
  return {
    id: () => id,
    meta: () => (options.pointer === undefined ? {} : { pointer: options.pointer }),
    json: () => json,
    address: () => text(json['address']),
    description: () => text(json['description']),
    parameters: () =>
      list(
        Object.entries((json['parameters'] ?? {}) as Record<string, Json>).map(([name, p]) => ({
          id: () => name,
          json: () => p,
          hasSchema: () => p['schema'] !== undefined,
          schema: () => schema(p['schema']),
          description: () => text(p['description']),
          location: () => text(p['location']),
        })),
      ),
    messages: () => list(messages),
    bindings: () => lookup(json['bindings']),
    extensions: () => extensions(json),
  };
}

/**
 * An operation object: `action` send or receive, `channel` a channel id, `messages` names, and a
 * `reply` of `{ address?: { location }, channel?: id, channelAddress?: string | null, messages?: names }`.
 */
export function operationNode(id: string | undefined, json: Json = {}, options: { pointer?: string } = {}): ContractOperation {
  const reply = json['reply'] as
    | { address?: { location?: string }; channel?: string; channelAddress?: string | null; messages?: string[] }
    | undefined;
  return {
    ...(reply === undefined
      ? {}
      : {
          reply: () => ({
            meta: () => (options.pointer === undefined ? {} : { pointer: `${options.pointer}/reply` }),
            address: () => (reply.address === undefined ? undefined : { location: () => reply.address?.location }),
            channel: () =>
              reply.channel === undefined
                ? undefined
                : {
                    id: () => reply.channel as string,
                    address: () => (reply.channelAddress === undefined ? reply.channel : reply.channelAddress),
                  },
            messages: () => list((reply.messages ?? []).map((name) => ({ name: () => name, id: () => name }))),
          }),
        }),
    id: () => id,
    meta: () => (options.pointer === undefined ? {} : { pointer: options.pointer }),
    summary: () => text(json['summary']),
    isSend: () => json['action'] === 'send',
    bindings: () => lookup(json['bindings']),
    channels: () => list(json['channel'] === undefined ? [] : [{ id: () => json['channel'] as string }]),
    messages: () => list(((json['messages'] ?? []) as string[]).map((name) => ({ name: () => name, id: () => name }))),
  };
}

/** A 3.x document: `channels` by id, `operations` by id (each `{ action, channel, messages }`), the rest as written. */
export function documentNode(json: Json): ContractDocument {
  const info = (json['info'] ?? { title: 'Test', version: '1.0.0' }) as Json;
  const channels = Object.entries((json['channels'] ?? {}) as Record<string, Json>).map(([id, channel]) => channelNode(id, channel));
  const operations = Object.entries((json['operations'] ?? {}) as Record<string, Json>).map(([id, op]) =>
    operationNode(id, op, { pointer: `/operations/${id}` }),
  );
  return {
    version: () => text(json['asyncapi']) ?? '3.0.0',
    defaultContentType: () => text(json['defaultContentType']),
    info: () => ({
      title: () => String(info['title']),
      version: () => String(info['version']),
      description: () => text(info['description']),
    }),
    extensions: () => extensions(json),
    channels: () => list(channels),
    operations: () => list(operations),
  };
}
