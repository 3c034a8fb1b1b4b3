/**
 * The payload formats of a contract's messages (AsyncAPI `schemaFormat`), planned before any
 * message is modelled: which messages take the JSON Schema path (and where their schema sits,
 * inside a multi-format schema or not), which are Avro (every Avro schema of the contract
 * checked at once, so names resolve across `.avsc` files), which are Protobuf, and which use a
 * format keiyaku cannot read (an error naming it: read as JSON Schema it would check nothing).
 */
import type avro from 'avsc';
import type { Diagnostic } from '../diagnostics.js';
import { type AvroInput, type BuiltAvro, buildAvroSchemas } from '../formats/avro/build.js';
import { namedTypes } from '../formats/avro/named.js';
import { protobufPayload } from '../formats/protobuf/index.js';
import { classifySchemaFormat, type PayloadSource, payloadSource, SUPPORTED_SCHEMA_FORMATS } from '../formats/schema-format.js';
import type { ContractDocument, ContractMessage } from '../load/document.js';
import { tokensFromPointer } from '../pointer.js';
import type { ModelContext, Part } from './context.js';
import type { AvroPayloadModel, PayloadFormatModel } from './contract-model.js';
import { safeIdentifier } from './identifiers.js';

export interface PayloadPlan {
  /** Where each message's payload schema is (by message type), for the JSON Schema path. */
  readonly sources: ReadonlyMap<string, PayloadSource>;
  /** Avro payloads avsc accepted, by message type. */
  readonly avro: ReadonlyMap<string, BuiltAvro & { readonly schemaFormat: string }>;
  /** Protobuf payloads, by message type. */
  readonly protobuf: ReadonlyMap<string, PayloadFormatModel>;
  /** Messages whose payload is not JSON Schema: they get no entry in the named-schema registry. */
  readonly notJsonSchema: ReadonlySet<string>;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Avro multi-format schemas under `components.schemas` (AsyncAPI 3): named types other payloads may use. */
function componentAvroInputs(document: ContractDocument): AvroInput[] {
  const json = (document as { json?(): unknown }).json?.();
  const schemas = isObject(json) && isObject(json['components']) ? json['components']['schemas'] : undefined;
  if (!isObject(schemas)) return [];
  return Object.entries(schemas).flatMap(([key, node]) =>
    isObject(node) && typeof node['schemaFormat'] === 'string' && classifySchemaFormat(node['schemaFormat']).kind === 'avro'
      ? [{ what: `schema "components/schemas/${key}"`, schema: node['schema'], tokens: ['components', 'schemas', key, 'schema'] }]
      : [],
  );
}

/** A message of the contract with its type and pointer (model/message-object.ts's MessageEntry). */
interface Entry {
  readonly message: ContractMessage;
  readonly type: string;
  readonly pointer: string;
}

export function planPayloads(entries: readonly Entry[], document: ContractDocument, context: ModelContext): Part<PayloadPlan> {
  const diagnostics: Diagnostic[] = [];
  const major = Number.parseInt(document.version(), 10);
  const sources = new Map<string, PayloadSource>();
  const notJsonSchema = new Set<string>();
  const protobuf = new Map<string, PayloadFormatModel>();
  const avroInputs: AvroInput[] = [];
  const avroTypes: { type: string; schemaFormat: string }[] = [];
  for (const { message, type, pointer } of entries) {
    const source = payloadSource(message.json(), message.payload()?.json(), major);
    sources.set(type, source);
    const classified = classifySchemaFormat(source.schemaFormat);
    if (classified.kind === 'json-schema') continue;
    notJsonSchema.add(type);
    const schemaFormat = source.schemaFormat ?? '';
    const formatAt = context.locate(pointer, source.formatTokens ?? []);
    if (classified.kind === 'unsupported') {
      diagnostics.push({
        severity: 'error',
        code: 'schema_format_unsupported',
        message: `message "${type}": its payload's schemaFormat "${schemaFormat}" is not supported (${classified.reason})`,
        hint: `use one of: ${SUPPORTED_SCHEMA_FORMATS.join('; ')}`,
        location: formatAt,
      });
    } else if (classified.kind === 'protobuf') {
      const built = protobufPayload({
        type,
        schema: source.schema,
        schemaFormat,
        location: context.locate(pointer, source.tokens),
        contract: context.locate('').file,
        resolveFile: context.resolveFile,
      });
      diagnostics.push(...built.diagnostics);
      if (built.model !== undefined) protobuf.set(type, built.model);
    } else {
      avroInputs.push({ what: `message "${type}"`, schema: source.schema, tokens: [...tokensFromPointer(pointer), ...source.tokens] });
      avroTypes.push({ type, schemaFormat });
    }
  }
  const components = componentAvroInputs(document);
  const { built, diagnostics: avroDiagnostics } = buildAvroSchemas([...avroInputs, ...components], (tokens) => context.locate('', tokens));
  diagnostics.push(...avroDiagnostics);
  const avro = new Map<string, BuiltAvro & { schemaFormat: string }>();
  avroTypes.forEach(({ type, schemaFormat }, i) => {
    const one = built.get(i);
    if (one === undefined) return;
    if (one.type.typeName !== 'record') {
      diagnostics.push({
        severity: 'error',
        code: 'avro_payload_not_record',
        message: `message "${type}": an Avro payload must be a record, not ${one.type.typeName}`,
        hint: 'wrap the value in a record with one field',
        location: context.locate('', avroInputs[i]!.tokens),
      });
      return;
    }
    avro.set(type, { ...one, schemaFormat });
  });
  return { part: { sources, avro, protobuf, notJsonSchema }, diagnostics };
}

/** A JSON Schema view of an Avro record's top-level fields, for matching the Kafka key schema to a field. */
export function keyView(type: avro.Type): unknown {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const field of (type as avro.types.RecordType).fields) {
    const kind = field.type.typeName;
    const json =
      kind === 'string'
        ? { type: 'string' }
        : kind === 'logical:uuid'
          ? { type: 'string', format: 'uuid' }
          : kind === 'int' || kind === 'long'
            ? { type: 'integer' }
            : kind === 'float' || kind === 'double'
              ? { type: 'number' }
              : undefined;
    if (json === undefined) continue;
    properties[field.name] = json;
    if (field.defaultValue() === undefined) required.push(field.name);
  }
  return { type: 'object', properties, required };
}

/**
 * The Avro model of a message's payload: names in generated code for the named types it
 * reaches (the root's Avro name, else `<Message>Payload` when the message holds that name; a
 * named type another payload already named keeps its name), its self-contained schema.
 */
export function avroPayloadModel(
  built: BuiltAvro & { readonly schemaFormat: string },
  identifier: string,
  context: ModelContext,
  file: string | undefined,
): Part<{ model: AvroPayloadModel; payload: string }> {
  const diagnostics: Diagnostic[] = [];
  const shared = avroNames(context);
  const typeNames: Record<string, string> = {};
  for (const [i, type] of namedTypes(built.type).entries()) {
    const fullname = type.name!;
    let name = shared.get(fullname);
    if (name === undefined) {
      const short = safeIdentifier(fullname.slice(fullname.lastIndexOf('.') + 1), 'Avro');
      const wanted = i === 0 && context.allocator.isTaken(short) ? `${identifier}Payload` : short;
      name = context.allocator.allocate(wanted, `the Avro type ${fullname}`);
      if (name !== wanted) {
        diagnostics.push({
          severity: 'warning',
          code: 'name_clash',
          message: `the Avro type ${fullname} is named ${name} in generated code: ${wanted} is taken by ${context.allocator.ownerOf(wanted)}`,
          hint: 'rename one of them to choose the names',
        });
      }
      shared.set(fullname, name);
    }
    typeNames[fullname] = name;
  }
  const rootName = typeNames[built.type.name!]!;
  const model: AvroPayloadModel = {
    kind: 'avro',
    schema: built.schema,
    name: built.type.name!,
    schemaFormat: built.schemaFormat,
    ...(file === undefined ? {} : { file }),
    typeNames,
  };
  return { part: { model, payload: rootName }, diagnostics };
}

const namesByContext = new WeakMap<object, Map<string, string>>();

/** The run's names of Avro types, by full name (one per model context). */
function avroNames(context: ModelContext): Map<string, string> {
  let names = namesByContext.get(context);
  if (names === undefined) {
    names = new Map();
    namesByContext.set(context, names);
  }
  return names;
}
