/**
 * From a parsed AsyncAPI document (2.6 or 3.x, as `@asyncapi/parser` presents both, or as
 * generator/load/plain-document.ts presents a contract read without the parser) to the frozen
 * {@link ContractModel}: channels, messages, operations, bindings and the registry of named
 * payload schemas.
 *
 * @see https://www.asyncapi.com/docs/reference/specification/v3.0.0#channelObject
 * @see https://www.asyncapi.com/docs/reference/specification/v3.0.0#messageObject
 */
import type { Diagnostic, SourceLocation } from '../diagnostics.js';
import type { ContractChannel, ContractDocument, ContractMessage, ContractOperation } from '../load/document.js';
import type { SourceLocator } from '../load/source-locator.js';

export type { ContractChannel, ContractDocument, ContractMessage } from '../load/document.js';

import { tokensFromPointer } from '../pointer.js';
import {
  type ChannelBindings,
  type ChannelModel,
  type ChannelParameter,
  type ContractModel,
  deepFreeze,
  type MessageModel,
  type OperationModel,
} from './contract-model.js';
import { NameAllocator, pascalCase, safeIdentifier } from './identifiers.js';
import { SchemaRegistry } from './schema-object.js';
import { MODES, type Mode, POLICIES } from './vocabulary.js';

export interface BuiltModel {
  readonly model: ContractModel | undefined;
  readonly diagnostics: readonly Diagnostic[];
}

/** Identifiers that generated files import or declare themselves. */
export const RESERVED_IDENTIFIERS = [
  'ContractMessage',
  'MessageDescriptor',
  'ChannelDescriptor',
  'MessageContext',
  'MessageHandler',
  'DispatchCases',
  'DecodeResult',
  'defineMessage',
  'defineChannel',
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

function meta(model: { meta(): unknown }): { pointer?: string } {
  return (model.meta() ?? {}) as { pointer?: string };
}

function anonymous(id: string | undefined): boolean {
  return id === undefined || id.startsWith('<') || id.length === 0;
}

function optional<K extends string, V>(key: K, value: V | undefined | null): { [P in K]?: V } {
  return value === undefined || value === null || value === '' ? {} : ({ [key]: value } as { [P in K]: V });
}

function positiveInt(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
}

export function buildModel(document: ContractDocument, locator: SourceLocator, source: string): BuiltModel {
  const diagnostics: Diagnostic[] = [];
  const locate = (pointer: string | undefined, extra: readonly (string | number)[] = []): SourceLocation =>
    locator.locate([...tokensFromPointer(pointer ?? ''), ...extra]);
  const allocator = new NameAllocator(RESERVED_IDENTIFIERS);
  const registry = new SchemaRegistry(allocator, locator);

  // Message types first: they own the plain names (`BookBorrowed`); schemas get what is left.
  interface PendingMessage {
    readonly message: ContractMessage;
    readonly type: string;
    readonly pointer: string;
  }
  const pending = new Map<string, PendingMessage>();
  const channelMessages = new Map<string, string[]>();
  for (const channel of document.channels().all()) {
    const types: string[] = [];
    for (const message of channel.messages().all()) {
      const pointer = meta(message).pointer ?? '';
      const named = message.name() ?? (anonymous(message.id()) ? undefined : message.id());
      const type = named ?? `${pascalCase(channel.id())}Message${types.length + 1}`;
      if (named === undefined) {
        diagnostics.push({
          severity: 'warning',
          code: 'message_unnamed',
          message: `a message of channel "${channel.id()}" has no name; its type is "${type}"`,
          hint: 'give the message a `name` (it becomes the CloudEvents type on the wire)',
          location: locate(pointer),
        });
      }
      const previous = pending.get(type);
      if (
        previous !== undefined &&
        previous.message.json() !== message.json() &&
        previous.message.payload()?.json() !== message.payload()?.json()
      ) {
        const other = locate(previous.pointer);
        diagnostics.push({
          severity: 'error',
          code: 'message_name_conflict',
          message: `two different messages are named "${type}"`,
          hint: `rename one of them; the other is at ${other.file}:${other.line}`,
          location: locate(pointer),
        });
        continue;
      }
      if (previous === undefined) pending.set(type, { message, type, pointer });
      if (!types.includes(type)) types.push(type);
    }
    channelMessages.set(channel.id(), types);
  }

  const identifiers = new Map<string, string>();
  const clash = (what: string, wanted: string, given: string, location: SourceLocation): void => {
    if (given === wanted) return;
    diagnostics.push({
      severity: 'warning',
      code: 'name_clash',
      message: `${what} is named ${given} in generated code: ${wanted} is taken by ${allocator.ownerOf(wanted)}`,
      hint: `rename one of them in the contract to choose the names`,
      location,
    });
  };
  for (const [type, { pointer }] of pending) {
    const wanted = safeIdentifier(pascalCase(type), 'Message');
    const given = allocateFamily(allocator, wanted, [''], [], `message "${type}"`);
    identifiers.set(type, given);
    clash(`message "${type}"`, wanted, given, locate(pointer));
  }
  const channelIdentifiers = new Map<string, string>();
  for (const channel of document.channels().all()) {
    const wanted = safeIdentifier(pascalCase(channel.id()), 'Channel');
    const given = allocateFamily(
      allocator,
      wanted,
      ['', 'Message', 'MessageType', 'Handler', 'Parameters', 'Cases', 'Iggy'],
      ['dispatch'],
      `channel "${channel.id()}"`,
    );
    channelIdentifiers.set(channel.id(), given);
    clash(`channel "${channel.id()}"`, wanted, given, locate(meta(channel).pointer ?? `/channels/${channel.id()}`));
  }

  for (const { message, type, pointer } of pending.values()) {
    const base = identifiers.get(type)!;
    const payload = message.payload();
    registry.discover({ schema: payload?.json() ?? true, tokens: tokensFromPointer(`${pointer}/payload`), fallbackName: `${base}Payload` });
    const headers = message.headers();
    if (headers)
      registry.discover({ schema: headers.json(), tokens: tokensFromPointer(`${pointer}/headers`), fallbackName: `${base}Headers` });
  }

  const messages: Record<string, MessageModel> = {};
  for (const { message, type, pointer } of pending.values()) {
    const base = identifiers.get(type)!;
    const payloadSchema = message.payload()?.json();
    if (payloadSchema === undefined) {
      diagnostics.push({
        severity: 'warning',
        code: 'message_without_payload',
        message: `message "${type}" declares no payload; any JSON object is accepted`,
        hint: 'add a `payload` schema so consumers know what they receive',
        location: locate(pointer),
      });
    }
    const payload = registry.named({
      schema: payloadSchema ?? { type: 'object' },
      tokens: tokensFromPointer(`${pointer}/payload`),
      fallbackName: `${base}Payload`,
    });
    const headersSchema = message.headers()?.json();
    const headers =
      headersSchema === undefined
        ? undefined
        : registry.named({ schema: headersSchema, tokens: tokensFromPointer(`${pointer}/headers`), fallbackName: `${base}Headers` });
    const json = message.json() as Record<string, unknown>;
    const kafkaKey = (message.bindings().get('kafka')?.value() as { key?: unknown } | undefined)?.key;
    const kafkaKeyProperty = kafkaKey === undefined ? undefined : keyProperty(kafkaKey, payloadSchema);
    if (kafkaKey !== undefined && kafkaKeyProperty === undefined) {
      diagnostics.push({
        severity: 'warning',
        code: 'kafka_key_not_derived',
        message: `message "${type}": its Kafka binding's key schema matches no single required payload property, so generated code has no default key for it`,
        hint: 'give the publisher a `key` option (or each publish a `key`); a key schema of the same type and format as exactly one required property makes that property the default key',
        location: locate(pointer, ['bindings', 'kafka', 'key']),
      });
    }
    messages[type] = {
      type,
      id: anonymous(message.id()) ? type : (message.id() as string),
      identifier: base,
      ...optional('title', message.title()),
      ...optional('summary', message.summary()),
      ...optional('description', message.description()),
      contentType: message.contentType() ?? document.defaultContentType() ?? 'application/json',
      payload,
      boxed: isPrimitiveRoot(payloadSchema),
      ...optional('headers', headers),
      ...optional('correlationId', message.correlationId()?.location()),
      examples: message
        .examples()
        .all()
        .map((e) => ({ ...optional('name', e.name()), ...optional('payload', e.payload()), ...optional('headers', e.headers()) })),
      ...optional('kafkaKey', kafkaKey === undefined ? undefined : stripParserKeys(kafkaKey)),
      ...optional('kafkaKeyProperty', kafkaKeyProperty),
      deprecated: json['deprecated'] === true,
      ...optional(
        'compatibility',
        ownCompatibility(message.extensions().get('x-keiyaku')?.value(), `message "${type}"`, diagnostics, (...path) =>
          locate(pointer, ['x-keiyaku', ...path]),
        ),
      ),
      ...optional('documentPointer', pointer),
      location: locate(pointer),
    } as MessageModel;
    if (!/^application\/([\w.+-]+\+)?json(;.*)?$/.test(messages[type]!.contentType)) {
      diagnostics.push({
        severity: 'warning',
        code: 'content_type_not_json',
        message: `message "${type}" has content type "${messages[type]!.contentType}"; keiyaku encodes JSON`,
        hint: 'set `contentType: application/json` (or leave it out)',
        location: locate(pointer, ['contentType']),
      });
    }
  }

  const channels: ChannelModel[] = document
    .channels()
    .all()
    .map((channel) => {
      const pointer = meta(channel).pointer ?? `/channels/${channel.id()}`;
      const address = channel.address() ?? channel.id();
      const parameters = channel
        .parameters()
        .all()
        .map((p): ChannelParameter => {
          const json = p.json() as Record<string, unknown>;
          const schema = p.hasSchema() ? (p.schema()?.json() as Record<string, unknown> | undefined) : undefined;
          const values = (json['enum'] ?? schema?.['enum']) as unknown[] | undefined;
          const fallback = json['default'] ?? schema?.['default'];
          return {
            name: p.id(),
            ...optional('description', p.description()),
            ...optional('enum', Array.isArray(values) ? values.map(String) : undefined),
            ...optional('default', fallback === undefined ? undefined : String(fallback)),
            ...optional('pattern', typeof schema?.['pattern'] === 'string' ? schema['pattern'] : undefined),
            ...optional('location', p.location()),
          };
        });
      for (const placeholder of address.matchAll(/\{([^}]*)\}/g)) {
        if (!parameters.some((p) => p.name === placeholder[1])) {
          diagnostics.push({
            severity: 'error',
            code: 'parameter_undeclared',
            message: `channel "${channel.id()}" address "${address}" uses {${placeholder[1]}} but declares no such parameter`,
            hint: `add \`parameters: { ${placeholder[1]}: {} }\` to the channel`,
            location: locate(pointer, ['address']),
          });
        }
      }
      return {
        id: channel.id(),
        identifier: channelIdentifiers.get(channel.id())!,
        address,
        ...optional('title', (channel.json() as { title?: string }).title),
        ...optional('description', channel.description()),
        parameters,
        messages: channelMessages.get(channel.id()) ?? [],
        bindings: channelBindings(channel, diagnostics, locate(pointer), locate(pointer, ['bindings', 'kafka', 'topic'])),
        ...optional(
          'compatibility',
          ownCompatibility(channel.extensions().get('x-keiyaku')?.value(), `channel "${channel.id()}"`, diagnostics, (...path) =>
            locate(pointer, ['x-keiyaku', ...path]),
          ),
        ),
        location: locate(pointer),
      } as ChannelModel;
    });

  const operations: OperationModel[] = document
    .operations()
    .all()
    .map((op) => ({
      id: op.id() ?? '',
      // 3.x says send/receive. 2.x speaks from the client's side: `subscribe` means clients
      // subscribe to what this application sends, `publish` that clients publish to it (it receives).
      action: op.isSend() ? 'send' : 'receive',
      channel: op.channels().all()[0]?.id() ?? '',
      messages: op
        .messages()
        .all()
        .map((m) => m.name() ?? m.id()),
      ...optional('summary', op.summary()),
    }));

  for (const op of document.operations().all()) kafkaGroupIdIgnored(op, diagnostics, locate);

  for (const [index, channel] of channels.entries()) {
    const roles = operations
      .filter((op) => op.channel === channel.id)
      .map((op) => ({ action: op.action, operation: op.id || `${op.action} operation` }));
    channels[index] = { ...channel, roles };
  }

  const compatibility = rootCompatibility(document.extensions().get('x-keiyaku')?.value(), diagnostics, (...path) =>
    locate('', ['x-keiyaku', ...path]),
  );
  diagnostics.push(...registry.diagnostics);
  const schemas = registry.entries();
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

/**
 * A Kafka operation binding's `groupId` is not used: keiyaku takes a subscription's consumer group
 * from its handler (`groupId` on the handler, one group per capability), so one receive operation
 * can serve several handlers, each in its own group. A located warning says so, with the group to
 * declare on the handler when the binding names one value.
 */
function kafkaGroupIdIgnored(
  op: ContractOperation,
  diagnostics: Diagnostic[],
  locate: (pointer: string | undefined, extra?: readonly (string | number)[]) => SourceLocation,
): void {
  const kafka = op.bindings().get('kafka')?.value();
  if (typeof kafka !== 'object' || kafka === null || !('groupId' in kafka)) return;
  const groupId = (kafka as { groupId?: unknown }).groupId;
  const schema = typeof groupId === 'object' && groupId !== null ? (groupId as { const?: unknown; enum?: unknown }) : {};
  const values = 'const' in schema ? [schema.const] : Array.isArray(schema.enum) ? schema.enum : [];
  const named = values.length === 1 && typeof values[0] === 'string' ? values[0] : undefined;
  const name = op.id() ? `operation "${op.id()}"` : 'an operation';
  diagnostics.push({
    severity: 'warning',
    code: 'kafka_group_id_ignored',
    message: `${name} sets a Kafka binding groupId${named === undefined ? '' : ` (${JSON.stringify(named)})`}, which keiyaku does not use: each handler declares its consumer group (\`groupId\` on the handler)`,
    hint:
      named === undefined
        ? 'remove `groupId` from the binding and declare the group on the handler that receives these messages'
        : `declare \`groupId: ${JSON.stringify(named)}\` on the handler that receives these messages, and remove \`groupId\` from the binding`,
    location: locate(meta(op).pointer, ['bindings', 'kafka', 'groupId']),
  });
}

/** Allocates `base` such that every `base + suffix` and `prefix + base` is free, and reserves them all. */
function allocateFamily(
  allocator: NameAllocator,
  base: string,
  suffixes: readonly string[],
  prefixes: readonly string[],
  owner: string,
): string {
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? base : `${base}${n}`;
    const names = [...suffixes.map((s) => candidate + s), ...prefixes.map((p) => p + candidate)];
    if (names.every((name) => !allocator.isTaken(name))) {
      for (const name of names) allocator.reserve(name, owner);
      return candidate;
    }
  }
}

/** Where a key of an `x-keiyaku` extension was written (no path: the extension itself). */
type ExtensionLocator = (...path: string[]) => SourceLocation;

/** `value` when it is one of `allowed`; else an error diagnostic at `location` (absent: undefined, no diagnostic). */
function choice<T extends string>(
  value: unknown,
  allowed: readonly T[],
  what: string,
  diagnostics: Diagnostic[],
  location: SourceLocation,
): T | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T;
  diagnostics.push({
    severity: 'error',
    code: 'keiyaku_extension_invalid',
    message: `${what} is ${JSON.stringify(value)}, which is not one of ${allowed.join(', ')}`,
    hint: `write one of ${allowed.join(', ')}`,
    location,
  });
  return undefined;
}

/** `x-keiyaku` of a channel or message: its own compatibility mode. */
function ownCompatibility(value: unknown, owner: string, diagnostics: Diagnostic[], at: ExtensionLocator): Mode | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    diagnostics.push({
      severity: 'error',
      code: 'keiyaku_extension_invalid',
      message: `x-keiyaku of ${owner} must be an object`,
      hint: 'write `x-keiyaku: { compatibility: <mode> }`',
      location: at(),
    });
    return undefined;
  }
  const mode = (value as { compatibility?: unknown }).compatibility;
  return choice(mode, MODES, `x-keiyaku.compatibility of ${owner}`, diagnostics, at('compatibility'));
}

function rootCompatibility(value: unknown, diagnostics: Diagnostic[], at: ExtensionLocator): ContractModel['compatibility'] {
  if (value === undefined) return undefined;
  const location = at();
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    diagnostics.push({
      severity: 'error',
      code: 'keiyaku_extension_invalid',
      message: 'x-keiyaku must be an object',
      hint: 'write `x-keiyaku: { compatibility: backward, policy: lenient, acknowledge: [...] }`',
      location,
    });
    return undefined;
  }
  const raw = value as { compatibility?: unknown; policy?: unknown; acknowledge?: unknown };
  const acknowledge: { id: string; reason: string; version: string }[] = [];
  if (raw.acknowledge !== undefined) {
    if (!Array.isArray(raw.acknowledge)) {
      diagnostics.push({
        severity: 'error',
        code: 'keiyaku_extension_invalid',
        message: 'x-keiyaku.acknowledge must be a list',
        hint: 'each entry: { id: <finding id>, reason: <why>, version: <info.version it applies to> }',
        location,
      });
    } else {
      for (const entry of raw.acknowledge as unknown[]) {
        const e = entry as { id?: unknown; reason?: unknown; version?: unknown };
        if (
          typeof e?.id !== 'string' ||
          typeof e.reason !== 'string' ||
          e.reason.trim() === '' ||
          (typeof e.version !== 'string' && typeof e.version !== 'number')
        ) {
          diagnostics.push({
            severity: 'error',
            code: 'keiyaku_acknowledgment_invalid',
            message: `an acknowledgment needs id, a non-empty reason and version: ${JSON.stringify(entry)}`,
            hint: 'copy the id from `keiyaku check` output and say why the break is intended',
            location,
          });
          continue;
        }
        acknowledge.push({ id: e.id, reason: e.reason, version: String(e.version) });
      }
    }
  }
  return {
    ...optional('mode', choice(raw.compatibility, MODES, 'x-keiyaku.compatibility', diagnostics, at('compatibility'))),
    ...optional('policy', choice(raw.policy, POLICIES, 'x-keiyaku.policy', diagnostics, at('policy'))),
    ...(acknowledge.length > 0 ? { acknowledge } : {}),
  };
}

/** A payload that can never be a JSON object or array (a string heartbeat, a number): carried boxed as `{ value }`. */
function isPrimitiveRoot(schema: unknown): boolean {
  if (typeof schema !== 'object' || schema === null) return false;
  const { type, enum: values, const: constant } = schema as { type?: unknown; enum?: unknown; const?: unknown };
  const primitive = (v: unknown): boolean => v === null || typeof v !== 'object';
  if (typeof type === 'string') return !['object', 'array'].includes(type);
  if (Array.isArray(type)) return type.length > 0 && !type.some((t) => t === 'object' || t === 'array');
  if (Array.isArray(values)) return values.length > 0 && values.every(primitive);
  return constant !== undefined && primitive(constant);
}

function stripParserKeys(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (key, v) => (key.startsWith('x-parser-') ? undefined : v)));
}

/**
 * The payload property a message binding's key schema stands for: the one required, top-level
 * property of the same `type` and `format` (and `pattern`, `enum` when the key has them).
 */
function keyProperty(key: unknown, payload: unknown): string | undefined {
  if (typeof key !== 'object' || key === null || typeof payload !== 'object' || payload === null) return undefined;
  const k = key as Record<string, unknown>;
  const p = payload as { properties?: Record<string, Record<string, unknown>>; required?: unknown };
  if (k['type'] !== 'string' && k['type'] !== 'integer' && k['type'] !== 'number') return undefined;
  const required = Array.isArray(p.required) ? (p.required as unknown[]) : [];
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  const matches = Object.entries(p.properties ?? {}).filter(
    ([name, schema]) =>
      required.includes(name) &&
      typeof schema === 'object' &&
      schema !== null &&
      schema['type'] === k['type'] &&
      schema['format'] === k['format'] &&
      (k['pattern'] === undefined || schema['pattern'] === k['pattern']) &&
      (k['enum'] === undefined || same(schema['enum'], k['enum'])),
  );
  return matches.length === 1 ? matches[0]![0] : undefined;
}

/** A Kafka binding's `topicConfiguration` as topic configs: values as strings, lists comma-joined. */
function topicConfigs(value: unknown): Record<string, string> | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([key, v]) => !key.startsWith('x-') && v !== undefined && v !== null)
    .map(([key, v]) => [key, Array.isArray(v) ? v.map(String).join(',') : String(v)] as const)
    .sort(([a], [b]) => a.localeCompare(b));
  return entries.length === 0 ? undefined : Object.fromEntries(entries);
}

function channelBindings(
  channel: ContractChannel,
  diagnostics: Diagnostic[],
  location: SourceLocation,
  topicLocation: SourceLocation,
): ChannelBindings {
  const kafka = channel.bindings().get('kafka')?.value() as Record<string, unknown> | undefined;
  const iggy = channel.extensions().get('x-iggy')?.value() as Record<string, unknown> | undefined;
  if (iggy !== undefined && (typeof iggy !== 'object' || iggy === null)) {
    diagnostics.push({
      severity: 'error',
      code: 'iggy_extension_invalid',
      message: `x-iggy of channel "${channel.id()}" must be an object`,
      hint: 'write `x-iggy: { stream: <name>, topic: <name>, partitions: <n> }`',
      location,
    });
  }
  const result: { -readonly [K in keyof ChannelBindings]: ChannelBindings[K] } = {};
  if (kafka) {
    result.kafka = {
      ...optional('topic', typeof kafka['topic'] === 'string' ? kafka['topic'] : undefined),
      ...optional('partitions', positiveInt(kafka['partitions'])),
      ...optional('replicas', positiveInt(kafka['replicas'])),
      ...optional('configs', topicConfigs(kafka['topicConfiguration'])),
    };
    if (typeof kafka['topic'] === 'string' && channel.parameters().length > 0) {
      diagnostics.push({
        severity: 'warning',
        code: 'kafka_topic_ignored',
        message: `channel "${channel.id()}" has parameters, so its Kafka binding's topic "${kafka['topic']}" is not used: each address is its own topic`,
        hint: 'remove `topic` from the binding, or give the channel a fixed address',
        location: topicLocation,
      });
    }
  }
  if (iggy && typeof iggy === 'object') {
    result.iggy = {
      ...optional('stream', typeof iggy['stream'] === 'string' ? iggy['stream'] : undefined),
      ...optional('topic', typeof iggy['topic'] === 'string' ? iggy['topic'] : undefined),
      ...optional('partitions', positiveInt(iggy['partitions'])),
    };
  }
  return result;
}
