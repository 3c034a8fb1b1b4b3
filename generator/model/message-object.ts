/**
 * Message objects: their contract types (the `name`, else the id) and the conflicts between them,
 * their identifiers in generated code, and each message's model — payload and header schemas,
 * the Kafka key, the content type, examples and its own `x-keiyaku` mode.
 *
 * @see https://www.asyncapi.com/docs/reference/specification/v3.0.0#messageObject
 */
import type { Diagnostic } from '../diagnostics.js';
import type { ContractChannel, ContractMessage } from '../load/document.js';
import { tokensFromPointer } from '../pointer.js';
import { kafkaMessageBinding } from './bindings/kafka.js';
import { allocateIdentifier, anonymous, type ModelContext, optional, type Part, pointerOf } from './context.js';
import type { MessageModel } from './contract-model.js';
import { ownCompatibility } from './extensions.js';
import { pascalCase, safeIdentifier } from './identifiers.js';

/** A message of the contract with its type (unique over the contract) and its pointer. */
export interface MessageEntry {
  readonly message: ContractMessage;
  readonly type: string;
  readonly pointer: string;
}

export interface ContractMessages {
  /** One entry per message type, in document order. */
  readonly entries: readonly MessageEntry[];
  /** The types each channel carries (by channel id), in document order. */
  readonly byChannel: ReadonlyMap<string, readonly string[]>;
}

/**
 * The messages of `channels` by type. A message without a name is typed after its channel (a
 * warning); two different messages of one type are an error at the second. The same message in
 * several channels (or the same payload under one name) is one type.
 */
export function contractMessages(channels: readonly ContractChannel[], context: ModelContext): Part<ContractMessages> {
  const diagnostics: Diagnostic[] = [];
  const entries = new Map<string, MessageEntry>();
  const byChannel = new Map<string, string[]>();
  for (const channel of channels) {
    const types: string[] = [];
    for (const message of channel.messages().all()) {
      const pointer = pointerOf(message) ?? '';
      const named = message.name() ?? (anonymous(message.id()) ? undefined : message.id());
      const type = named ?? `${pascalCase(channel.id())}Message${types.length + 1}`;
      if (named === undefined) {
        diagnostics.push({
          severity: 'warning',
          code: 'message_unnamed',
          message: `a message of channel "${channel.id()}" has no name; its type is "${type}"`,
          hint: 'give the message a `name` (it becomes the CloudEvents type on the wire)',
          location: context.locate(pointer),
        });
      }
      const previous = entries.get(type);
      if (
        previous !== undefined &&
        previous.message.json() !== message.json() &&
        previous.message.payload()?.json() !== message.payload()?.json()
      ) {
        const other = context.locate(previous.pointer);
        diagnostics.push({
          severity: 'error',
          code: 'message_name_conflict',
          message: `two different messages are named "${type}"`,
          hint: `rename one of them; the other is at ${other.file}:${other.line}`,
          location: context.locate(pointer),
        });
        continue;
      }
      if (previous === undefined) entries.set(type, { message, type, pointer });
      if (!types.includes(type)) types.push(type);
    }
    byChannel.set(channel.id(), types);
  }
  return { part: { entries: [...entries.values()], byChannel }, diagnostics };
}

/** The identifier of a message type in generated code (`BookBorrowed`); message types take theirs before channels and schemas. */
export function messageIdentifier(entry: MessageEntry, context: ModelContext): Part<string> {
  const wanted = safeIdentifier(pascalCase(entry.type), 'Message');
  return allocateIdentifier(context, `message "${entry.type}"`, wanted, { suffixes: [''], prefixes: [] }, context.locate(entry.pointer));
}

/** Shows the registry a message's payload and header schemas (pass 1), before any schema is named. */
export function discoverMessageSchemas(entry: MessageEntry, identifier: string, context: ModelContext): void {
  const { message, pointer } = entry;
  context.registry.discover({
    schema: message.payload()?.json() ?? true,
    tokens: tokensFromPointer(`${pointer}/payload`),
    fallbackName: `${identifier}Payload`,
  });
  const headers = message.headers();
  if (headers)
    context.registry.discover({
      schema: headers.json(),
      tokens: tokensFromPointer(`${pointer}/headers`),
      fallbackName: `${identifier}Headers`,
    });
}

/** A payload that can never be a JSON object or array (a string heartbeat, a number): carried boxed as `{ value }`. */
export function isPrimitiveRoot(schema: unknown): boolean {
  if (typeof schema !== 'object' || schema === null) return false;
  const { type, enum: values, const: constant } = schema as { type?: unknown; enum?: unknown; const?: unknown };
  const primitive = (v: unknown): boolean => v === null || typeof v !== 'object';
  if (typeof type === 'string') return !['object', 'array'].includes(type);
  if (Array.isArray(type)) return type.length > 0 && !type.some((t) => t === 'object' || t === 'array');
  if (Array.isArray(values)) return values.length > 0 && values.every(primitive);
  return constant !== undefined && primitive(constant);
}

/** JSON content types (`application/json`, `application/cloudevents+json; charset=utf-8`): what keiyaku encodes. */
const JSON_CONTENT_TYPE = /^application\/([\w.+-]+\+)?json(;.*)?$/;

/**
 * The model of one message type (its schemas named in the registry, pass 2). A message without
 * a payload accepts any JSON object (a warning); a content type other than JSON is a warning.
 */
export function messageObject(entry: MessageEntry, identifier: string, context: ModelContext): Part<MessageModel> {
  const { message, type, pointer } = entry;
  const diagnostics: Diagnostic[] = [];
  const payloadSchema = message.payload()?.json();
  if (payloadSchema === undefined) {
    diagnostics.push({
      severity: 'warning',
      code: 'message_without_payload',
      message: `message "${type}" declares no payload; any JSON object is accepted`,
      hint: 'add a `payload` schema so consumers know what they receive',
      location: context.locate(pointer),
    });
  }
  const payload = context.registry.named({
    schema: payloadSchema ?? { type: 'object' },
    tokens: tokensFromPointer(`${pointer}/payload`),
    fallbackName: `${identifier}Payload`,
  });
  const headersSchema = message.headers()?.json();
  const headers =
    headersSchema === undefined
      ? undefined
      : context.registry.named({
          schema: headersSchema,
          tokens: tokensFromPointer(`${pointer}/headers`),
          fallbackName: `${identifier}Headers`,
        });
  const kafka = kafkaMessageBinding(message, { type, pointer, payload: payloadSchema }, context);
  diagnostics.push(...kafka.diagnostics);
  const compatibility = ownCompatibility(message.extensions().get('x-keiyaku')?.value(), `message "${type}"`, (...path) =>
    context.locate(pointer, ['x-keiyaku', ...path]),
  );
  diagnostics.push(...compatibility.diagnostics);
  const contentType = message.contentType() ?? context.defaultContentType ?? 'application/json';
  if (!JSON_CONTENT_TYPE.test(contentType)) {
    diagnostics.push({
      severity: 'warning',
      code: 'content_type_not_json',
      message: `message "${type}" has content type "${contentType}"; keiyaku encodes JSON`,
      hint: 'set `contentType: application/json` (or leave it out)',
      location: context.locate(pointer, ['contentType']),
    });
  }
  const part: MessageModel = {
    type,
    id: anonymous(message.id()) ? type : (message.id() as string),
    identifier,
    ...optional('title', message.title()),
    ...optional('summary', message.summary()),
    ...optional('description', message.description()),
    contentType,
    payload,
    boxed: isPrimitiveRoot(payloadSchema),
    ...optional('headers', headers),
    ...optional('correlationId', message.correlationId()?.location()),
    examples: message
      .examples()
      .all()
      .map((e) => ({ ...optional('name', e.name()), ...optional('payload', e.payload()), ...optional('headers', e.headers()) })),
    ...kafka.part,
    deprecated: (message.json() as Record<string, unknown>)['deprecated'] === true,
    ...optional('compatibility', compatibility.part),
    ...optional('documentPointer', pointer),
    location: context.locate(pointer),
  };
  return { part, diagnostics };
}
