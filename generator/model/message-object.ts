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
import type { MessageModel, PayloadFormatModel } from './contract-model.js';
import { ownCompatibility } from './extensions.js';
import { pascalCase, safeIdentifier } from './identifiers.js';
import { avroPayloadModel, keyView, type PayloadPlan } from './payload-format.js';
import { protobufPayloadNames } from './protobuf-names.js';

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
  return allocateIdentifier(context, `message "${entry.type}"`, wanted, { suffixes: [''], prefixes: [] }, () =>
    context.locate(entry.pointer),
  );
}

/** Shows the registry a message's payload and header schemas (pass 1), before any schema is named. */
export function discoverMessageSchemas(entry: MessageEntry, identifier: string, context: ModelContext, plan?: PayloadPlan): void {
  const { message, pointer, type } = entry;
  if (!plan?.notJsonSchema.has(type)) {
    const source = plan?.sources.get(type);
    context.registry.discover({
      schema: (source === undefined ? message.payload()?.json() : source.schema) ?? true,
      tokens: [...tokensFromPointer(pointer), ...(source?.tokens ?? ['payload'])],
      fallbackName: `${identifier}Payload`,
    });
  }
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
 * The content type of an Avro or Protobuf payload: the message's own when it is not JSON, else
 * the format's (`application/avro`); a JSON one written on the message is a warning (the
 * document's `defaultContentType` speaks of its JSON payloads). Undefined for JSON Schema payloads.
 */
function binaryContentType(entry: MessageEntry, format: PayloadFormatModel | undefined, context: ModelContext, diagnostics: Diagnostic[]) {
  if (format === undefined) return undefined;
  const fallback = format.kind === 'avro' ? 'application/avro' : 'application/x-protobuf';
  const written = (entry.message.json() as Record<string, unknown>)['contentType'];
  if (typeof written !== 'string') return fallback;
  if (!JSON_CONTENT_TYPE.test(written)) return written;
  diagnostics.push({
    severity: 'warning',
    code: 'content_type_json_for_binary',
    message: `message "${entry.type}" has content type "${written}" but its payload is ${format.kind === 'avro' ? 'Avro' : 'Protobuf'}; keiyaku writes "${fallback}"`,
    hint: `set \`contentType: ${fallback}\` (or leave it out)`,
    location: context.locate(entry.pointer, ['contentType']),
  });
  return fallback;
}

/** What a message's payload gives its model: the payload's name, its format, and what the Kafka key and content type read. */
interface PayloadPart {
  readonly payload: string;
  readonly boxed: boolean;
  readonly format?: PayloadFormatModel;
  /** The payload as a JSON Schema (a view of an Avro record's fields), for matching the Kafka key. */
  readonly keySchema: unknown;
  /** The content type when the message declares none. */
  readonly defaultContentType: string;
}

/** The payload of a message: a named JSON Schema (pass 2 of the registry), or an Avro or Protobuf model from the plan. */
function payloadPart(entry: MessageEntry, identifier: string, context: ModelContext, plan: PayloadPlan | undefined): Part<PayloadPart> {
  const { message, type, pointer } = entry;
  const fallbackContentType = context.defaultContentType ?? 'application/json';
  if (plan?.notJsonSchema.has(type)) {
    const avro = plan.avro.get(type);
    if (avro !== undefined) {
      const at = context.locate(pointer, plan.sources.get(type)?.tokens ?? ['payload']);
      const file = at.file === context.locate('').file ? undefined : at.file;
      const built = avroPayloadModel(avro, identifier, context, file);
      const jsonDefault = JSON_CONTENT_TYPE.test(fallbackContentType);
      return {
        part: {
          payload: built.part.payload,
          boxed: false,
          format: built.part.model,
          keySchema: keyView(avro.type),
          defaultContentType: jsonDefault ? 'application/avro' : fallbackContentType,
        },
        diagnostics: built.diagnostics,
      };
    }
    const protobuf = plan.protobuf.get(type);
    // The plan reported why a payload has no model (or the Protobuf path gave one).
    const at = context.locate(pointer, plan.sources.get(type)?.tokens ?? ['payload']);
    const named = protobuf?.kind === 'protobuf' ? protobufPayloadNames(protobuf, identifier, context, at) : undefined;
    return {
      part: {
        payload: named?.part.payload ?? `${identifier}Payload`,
        boxed: false,
        ...(named === undefined ? {} : { format: named.part.model }),
        keySchema: undefined,
        defaultContentType: JSON_CONTENT_TYPE.test(fallbackContentType) ? 'application/x-protobuf' : fallbackContentType,
      },
      diagnostics: named?.diagnostics ?? [],
    };
  }
  const diagnostics: Diagnostic[] = [];
  const source = plan?.sources.get(type);
  const payloadSchema = source === undefined ? message.payload()?.json() : source.schema;
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
    tokens: [...tokensFromPointer(pointer), ...(source?.tokens ?? ['payload'])],
    fallbackName: `${identifier}Payload`,
  });
  return {
    part: { payload, boxed: isPrimitiveRoot(payloadSchema), keySchema: payloadSchema, defaultContentType: fallbackContentType },
    diagnostics,
  };
}

/**
 * The model of one message type (its schemas named in the registry, pass 2). A message without
 * a payload accepts any JSON object (a warning); a content type other than JSON is a warning
 * for a JSON Schema payload.
 */
export function messageObject(entry: MessageEntry, identifier: string, context: ModelContext, plan?: PayloadPlan): Part<MessageModel> {
  const { message, type, pointer } = entry;
  const diagnostics: Diagnostic[] = [];
  const payloadOf = payloadPart(entry, identifier, context, plan);
  diagnostics.push(...payloadOf.diagnostics);
  const { payload, boxed, format, keySchema } = payloadOf.part;
  const headersSchema = message.headers()?.json();
  const headers =
    headersSchema === undefined
      ? undefined
      : context.registry.named({
          schema: headersSchema,
          tokens: tokensFromPointer(`${pointer}/headers`),
          fallbackName: `${identifier}Headers`,
        });
  const kafka = kafkaMessageBinding(message, { type, pointer, payload: keySchema }, context);
  diagnostics.push(...kafka.diagnostics);
  const compatibility = ownCompatibility(message.extensions().get('x-keiyaku')?.value(), `message "${type}"`, (...path) =>
    context.locate(pointer, ['x-keiyaku', ...path]),
  );
  diagnostics.push(...compatibility.diagnostics);
  const contentType = binaryContentType(entry, format, context, diagnostics) ?? message.contentType() ?? payloadOf.part.defaultContentType;
  if (format === undefined && !plan?.notJsonSchema.has(type) && !JSON_CONTENT_TYPE.test(contentType)) {
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
    ...(format === undefined ? {} : { format }),
    boxed,
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
