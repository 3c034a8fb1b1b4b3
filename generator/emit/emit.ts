/**
 * `generate(model, options)`: the pure half of `keiyaku generate`. It returns the files
 * to write as `{ path, content }`; only the CLI touches the disk.
 */
import { posix } from 'node:path';
import type { Diagnostic, SourceLocation } from '../diagnostics.js';
import {
  type ChannelModel,
  type ContractModel,
  type KafkaRegistryBinding,
  type MessageModel,
  SCHEMA_REF_PREFIX,
  type SchemaNode,
} from '../model/contract-model.js';
import { kebabCase, NameAllocator } from '../model/identifiers.js';
import { avroDeclarations } from './avro-types.js';
import { commentText, inlineLiteral, jsDoc, jsonLiteral, propertyKey, stringLiteral } from './escape.js';
import { finishSource, startFormatRun } from './format.js';
import { buildManifest, formatSchemaHash, schemaHash } from './manifest.js';
import { protobufCodecExpression, protobufInitType, protobufTypes } from './protobuf-code.js';
import { SchemaTypeWriter } from './schema-type.js';
import { loadTemplates, type Templates } from './templates.js';
import { buildValidators } from './validators.js';

export interface GeneratedFile {
  /** Path relative to the output directory, with `/` separators. */
  readonly path: string;
  readonly content: string;
}

export interface GenerateOptions {
  /** The contract path as it should appear in headers and `@generated from` notes (relative, `/`). */
  readonly source: string;
}

export interface GenerateResult {
  readonly files: readonly GeneratedFile[];
  readonly diagnostics: readonly Diagnostic[];
}

interface Context {
  readonly model: ContractModel;
  readonly source: string;
  readonly header: string;
  readonly templates: Templates;
  /** Each contract file as origin notes name it (relative to the project root, as the header names the contract), worked out once per run. */
  readonly files: Map<string, string>;
}

/**
 * Where a declaration came from, as the file header names the contract: relative to the project
 * root (the folder `keiyaku generate` runs in), `contract/schemas/book.json#/properties/a` for a
 * contract in `contract/`. A file outside the project root (located by an absolute path) is named
 * relative to the contract's folder, never by a machine path.
 */
function origin(ctx: Context, location: SourceLocation | undefined): string | undefined {
  if (location === undefined) return undefined;
  let file = ctx.files.get(location.file);
  if (file === undefined) {
    const path = location.file.replace(/\\/g, '/');
    if (!posix.isAbsolute(path) && !/^[A-Za-z]:\//.test(path)) file = posix.normalize(path);
    else {
      const base = posix.dirname(ctx.source.replace(/\\/g, '/'));
      file = posix.relative(base, path) || posix.basename(path);
    }
    ctx.files.set(location.file, file);
  }
  return `@generated from ${file}#${location.pointer}`;
}

function fileHeader(model: ContractModel, source: string, file: string): string {
  const what = file === 'validators.ts' ? 'validators (compiled at generate time from the schemas)' : 'code';
  return jsDoc([
    `Generated ${what} by keiyaku from ${source}: ${model.info.title} ${model.info.version} (AsyncAPI ${model.asyncapi}).`,
    'Do not edit: change the contract and run `keiyaku generate`; `keiyaku generate --check` fails when this file is stale.',
  ]).trimEnd();
}

export async function generate(model: ContractModel, options: GenerateOptions): Promise<GenerateResult> {
  startFormatRun();
  const templates = loadTemplates();
  const source = options.source.replace(/\\/g, '/');
  const diagnostics: Diagnostic[] = [];
  const originFiles = new Map<string, string>();
  const make = (file: string): Context => ({ model, source, header: fileHeader(model, source, file), templates, files: originFiles });
  // Payload schema hash per message type: messages.ts and manifest.json carry the same value.
  const hashes = new Map(
    Object.values(model.messages).map((m) => [m.type, m.format ? formatSchemaHash(m.format) : schemaHash(model, m.payload)]),
  );

  // An Avro or Protobuf payload has its codec, not a validator; contract headers are JSON Schema still.
  const roots = Object.values(model.messages).flatMap((m) => [...(m.format ? [] : [m.payload]), ...(m.headers ? [m.headers] : [])]);
  const validators = buildValidators(model, roots);
  diagnostics.push(...validators.diagnostics);
  if (validators.diagnostics.some((d) => d.severity === 'error')) return { files: [], diagnostics };

  const files: GeneratedFile[] = [];
  const types = typesFile(make('types.ts'), new SchemaTypeWriter());
  files.push({ path: 'types.ts', content: types.content });
  files.push({
    path: 'validators.ts',
    // A contract whose payloads all have codecs (Avro, Protobuf) and no headers has no validator.
    content: roots.length === 0 ? 'export {};\n' : validators.code,
  });
  files.push({ path: 'messages.ts', content: messagesFile(make('messages.ts'), validators.exports, hashes) });
  const fileNames = new NameAllocator(['index', 'types', 'messages', 'validators', 'manifest', 'iggy']);
  const channelFiles: { file: string; identifier: string }[] = [];
  for (const channel of model.channels) {
    const file = fileNames.allocate(kebabCase(channel.identifier) || 'channel');
    channelFiles.push({ file, identifier: channel.identifier });
    files.push({ path: `channels/${file}.ts`, content: channelFile(make('channel.ts'), channel) });
  }
  // generated/request-reply.ts only when some operation has a reply keiyaku carries.
  const requestReply = model.operations.some((op) => op.reply !== undefined);
  if (requestReply) files.push({ path: 'request-reply.ts', content: requestReplyFile(make('request-reply.ts'), channelFiles) });
  files.push({
    path: 'index.ts',
    content: templates.render('index.ts', {
      header: fileHeader(model, source, 'index.ts'),
      typesWithValues: types.values,
      requestReply,
      channels: channelFiles,
      channelList: channelFiles.map((c) => c.identifier).join(', '),
    }),
  });
  files.push({ path: 'manifest.json', content: buildManifest(model, source, hashes) });
  // generated/iggy.ts only when the contract asks for Iggy (an `x-iggy` on some channel).
  if (model.channels.some((c) => c.bindings.iggy !== undefined)) {
    files.push({ path: 'iggy.ts', content: iggyFile(make('iggy.ts'), channelFiles) });
    for (const channel of model.channels.filter((c) => c.bindings.iggy !== undefined && c.parameters.length > 0)) {
      diagnostics.push({
        severity: 'warning',
        code: 'iggy_parameterized_channel',
        message: `channel "${channel.id}" has parameters (${channel.address}), so generated/iggy.ts leaves it out: its stream/topic differ per address`,
        hint: `build its placement at run time: iggyChannel(${channel.identifier}, { stream, topic }) from "@keiyaku/iggy/codegen-v1"`,
        ...(channel.location === undefined ? {} : { location: channel.location }),
      });
    }
  }

  const formatted = await Promise.all(
    files.map(async (f) => ({
      path: f.path,
      content: f.path === 'validators.ts' ? validatorsFile(model, source, f.content) : await finishSource(f.path, f.content),
    })),
  );
  return { files: formatted.sort((a, b) => a.path.localeCompare(b.path)), diagnostics };
}

/**
 * Stream/topic per channel for Apache Iggy, from each channel's `x-iggy` binding (stream default
 * `keiyaku`, topic default the address). Channels without `x-iggy` and channels with parameters
 * are left out, each named with the reason in the file's opening comment.
 */
function iggyFile(ctx: Context, channelFiles: readonly { file: string; identifier: string }[]): string {
  const leftOut = ctx.model.channels
    .filter((c) => c.bindings.iggy === undefined || c.parameters.length > 0)
    .map((c) =>
      commentText(
        c.bindings.iggy === undefined
          ? `${c.identifier} (${c.id}): no x-iggy binding`
          : `${c.identifier} (${c.id}): its address has parameters, so its stream/topic differ per address; build it with iggyChannel() at run time`,
      ),
    );
  const channels = ctx.model.channels
    .filter((c) => c.bindings.iggy !== undefined && c.parameters.length === 0)
    .map((channel) => {
      const stream = channel.bindings.iggy?.stream ?? 'keiyaku';
      const topic = channel.bindings.iggy?.topic ?? channel.address;
      return {
        identifier: channel.identifier,
        messageUnion: `${channel.identifier}Message`,
        file: channelFiles.find((f) => f.identifier === channel.identifier)!.file,
        idComment: commentText(JSON.stringify(channel.id)),
        streamComment: commentText(JSON.stringify(stream)),
        topicComment: commentText(JSON.stringify(topic)),
        streamLiteral: stringLiteral(stream),
        topicLiteral: stringLiteral(topic),
        partitions: channel.bindings.iggy?.partitions,
      };
    });
  return ctx.templates.render('iggy.ts', { header: ctx.header, channels, leftOut });
}

/**
 * One descriptor per operation with a reply: its request and reply types, the responder
 * interface whose return value is the reply, and `defineRequestReply({ … })`.
 */
function requestReplyFile(ctx: Context, channelFiles: readonly { file: string; identifier: string }[]): string {
  const identifierOf = (type: string): string | undefined => ctx.model.messages[type]?.identifier;
  const channelOf = (id: string): ChannelModel | undefined => ctx.model.channels.find((c) => c.id === id);
  const used = new Set<string>();
  const messages = new Set<string>();
  const operations = ctx.model.operations.flatMap((op) => {
    const reply = op.reply;
    const request = channelOf(op.channel);
    const replyChannel = reply === undefined ? undefined : channelOf(reply.channel);
    if (reply === undefined || request === undefined || replyChannel === undefined) return [];
    const listed = (op.messages.length > 0 ? op.messages : request.messages).map(identifierOf).filter((m) => m !== undefined);
    const replies = reply.messages.map(identifierOf).filter((m) => m !== undefined);
    used.add(request.identifier).add(replyChannel.identifier);
    for (const m of [...listed, ...replies]) messages.add(m);
    const where =
      reply.addressHeader === undefined
        ? `to the reply channel's address (${replyChannel.address})`
        : `to the address in the request's header ${JSON.stringify(reply.addressHeader)}`;
    return [
      {
        identifier: reply.identifier,
        requestType: `${reply.identifier}Request`,
        replyType: `${reply.identifier}Reply`,
        responderType: `${reply.identifier}Responder`,
        idComment: `operation ${commentText(JSON.stringify(op.id))}`,
        doc: jsDoc([
          op.summary,
          `Request on channel ${JSON.stringify(request.id)}; reply on channel ${JSON.stringify(replyChannel.id)}, ${where}.`,
        ]),
        requestUnion: listed.length === 0 ? 'never' : listed.join(' | '),
        replyUnion: replies.length === 0 ? 'never' : replies.join(' | '),
        idLiteral: stringLiteral(op.id),
        requestChannel: request.identifier,
        requestMessages: listed.join(', '),
        replyChannel: replyChannel.identifier,
        replyMessages: replies.join(', '),
        replyAddress: reply.addressHeader === undefined ? '{ channel: true }' : `{ header: ${stringLiteral(reply.addressHeader)} }`,
      },
    ];
  });
  const channelImports = channelFiles.filter((c) => used.has(c.identifier));
  return ctx.templates.render('request-reply.ts', {
    header: ctx.header,
    channelImports,
    messageImports: [...messages].sort().join(', '),
    operations,
  });
}

function validatorsFile(model: ContractModel, source: string, code: string): string {
  return `${fileHeader(model, source, 'validators.ts')}\n// @ts-nocheck -- plain JavaScript validators; the typed surface is in messages.ts\n${code}`;
}

/** types.ts, and whether it holds values (the const objects of Protobuf enums) besides types. */
function typesFile(ctx: Context, types: SchemaTypeWriter): { content: string; values: boolean } {
  const referencedBy = new Map<string, string[]>();
  for (const message of Object.values(ctx.model.messages)) {
    referencedBy.set(message.payload, [...(referencedBy.get(message.payload) ?? []), `Payload of message ${message.type}.`]);
    if (message.headers)
      referencedBy.set(message.headers, [...(referencedBy.get(message.headers) ?? []), `Headers of message ${message.type}.`]);
  }
  // Each without its final newline: the template writes one blank line between two.
  const declarations = Object.values(ctx.model.schemas).map((named) =>
    types
      .declaration(
        named,
        [...(referencedBy.get(named.name) ?? []), origin(ctx, named.location)].filter((l): l is string => l !== undefined),
      )
      .trimEnd(),
  );
  const avroPayloads = Object.values(ctx.model.messages).flatMap((m) => (m.format?.kind === 'avro' ? [m.format] : []));
  declarations.push(
    ...avroDeclarations(avroPayloads, (fullname) => {
      const owner = avroPayloads.find((p) => p.typeNames?.[fullname] !== undefined)?.typeNames?.[fullname];
      const notes = owner === undefined ? [] : (referencedBy.get(owner) ?? []);
      const file = avroPayloads.find((p) => p.name === fullname)?.file;
      return file === undefined ? notes : [...notes, `@generated from ${file}`];
    }),
  );
  const taken = new Set([
    ...Object.keys(ctx.model.schemas),
    ...avroPayloads.flatMap((p) => Object.values(p.typeNames ?? {})),
    ...Object.values(ctx.model.messages).map((m) => m.identifier),
  ]);
  const protobuf = protobufTypes(ctx.model, taken);
  declarations.push(...protobuf.declarations);
  return { content: ctx.templates.render('types.ts', { header: ctx.header, declarations }), values: protobuf.values };
}

function messageDoc(ctx: Context, message: MessageModel): string {
  return jsDoc([
    message.title ?? message.summary,
    message.description,
    message.deprecated ? '@deprecated' : undefined,
    origin(ctx, message.location),
  ]);
}

/** Resolves a node through references to named schemas (at most once per name). */
function resolveNamed(model: ContractModel, node: SchemaNode | undefined, seen = new Set<string>()): SchemaNode | undefined {
  if (typeof node !== 'object' || node === null) return node;
  const ref = node['$ref'];
  if (typeof ref === 'string' && ref.startsWith(SCHEMA_REF_PREFIX)) {
    const name = ref.slice(SCHEMA_REF_PREFIX.length);
    if (seen.has(name)) return undefined;
    seen.add(name);
    return resolveNamed(model, model.schemas[name]?.schema, seen);
  }
  return node;
}

/** True when every value `node` admits is a string: such a header travels as is, any other as JSON text. */
function isStringSchema(model: ContractModel, node: SchemaNode | undefined): boolean {
  const resolved = resolveNamed(model, node);
  if (typeof resolved !== 'object' || resolved === null) return false;
  if (resolved['type'] === 'string') return true;
  if (resolved['type'] !== undefined) return false;
  const values = Array.isArray(resolved['enum']) ? (resolved['enum'] as unknown[]) : 'const' in resolved ? [resolved['const']] : undefined;
  return values !== undefined && values.length > 0 && values.every((v) => typeof v === 'string');
}

/** The declared header names of a headers schema and those that travel as JSON text. */
export function headerShape(model: ContractModel, headers: string): { names: string[]; json: string[] } {
  const root = resolveNamed(model, model.schemas[headers]?.schema);
  const properties = typeof root === 'object' && root !== null ? root['properties'] : undefined;
  if (typeof properties !== 'object' || properties === null) return { names: [], json: [] };
  const names = Object.keys(properties);
  const json = names.filter((name) => !isStringSchema(model, (properties as Record<string, SchemaNode>)[name]));
  return { names, json };
}

/** The `registry` of a message descriptor: its Kafka binding's Schema Registry fields, on one line. */
function registryLiteral(binding: KafkaRegistryBinding): string {
  const fields = [`schemaIdLocation: ${stringLiteral(binding.schemaIdLocation)}`];
  if (binding.schemaIdPayloadEncoding !== undefined)
    fields.push(`schemaIdPayloadEncoding: ${stringLiteral(binding.schemaIdPayloadEncoding)}`);
  if (binding.schemaLookupStrategy !== undefined) fields.push(`schemaLookupStrategy: ${stringLiteral(binding.schemaLookupStrategy)}`);
  return `{ ${fields.join(', ')} }`;
}

function messagesFile(ctx: Context, validatorExports: ReadonlyMap<string, string>, hashes: ReadonlyMap<string, string>): string {
  const messages = Object.values(ctx.model.messages).map((message) => ({
    identifier: message.identifier,
    doc: messageDoc(ctx, message),
    typeLiteral: stringLiteral(message.type),
    idLiteral: stringLiteral(message.id),
    contentTypeLiteral: stringLiteral(message.contentType),
    hashLiteral: stringLiteral(hashes.get(message.type)!),
    payloadType: message.payload,
    // What the factory takes: the payload type, or for Protobuf its Init type (every field optional).
    inputType: protobufInitType(message) ?? message.payload,
    validator: message.format === undefined ? validatorExports.get(message.payload)! : '',
    codec: message.format?.kind === 'avro' ? avroCodecCall(message.format.schema, message.contentType) : protobufCodecExpression(message),
    boxed: message.boxed,
    ...(message.headers === undefined ? {} : headersOf(ctx.model, message.headers, validatorExports)),
    keyLiteral: message.kafkaKeyProperty === undefined || message.boxed ? undefined : stringLiteral(message.kafkaKeyProperty),
    registryLiteral: message.kafkaRegistry === undefined ? undefined : registryLiteral(message.kafkaRegistry),
  }));
  const typeImports = [
    ...new Set(messages.flatMap((m) => [m.payloadType, m.inputType, ...(m.headersType === undefined ? [] : [m.headersType])])),
  ]
    .sort()
    .join(', ');
  const validatorImports = [
    ...new Set(
      messages.flatMap((m) => [
        ...(m.codec === undefined ? [m.validator] : []),
        ...(m.headersValidator === undefined ? [] : [m.headersValidator]),
      ]),
    ),
  ]
    .sort()
    .join(', ');
  const anyBoxed = messages.some((m) => m.boxed);
  const anyAvro = Object.values(ctx.model.messages).some((m) => m.format?.kind === 'avro');
  const anyProtobuf = Object.values(ctx.model.messages).some((m) => m.format?.kind === 'protobuf');
  return ctx.templates.render('messages.ts', {
    header: ctx.header,
    messages,
    typeImports,
    validatorImports,
    anyBoxed,
    anyAvro,
    anyProtobuf,
  });
}

/** `avroCodec(<schema>)`, with the message's content type when it is not the codec's default. */
function avroCodecCall(schema: unknown, contentType: string): string {
  const options = contentType === 'application/avro' ? '' : `, { contentType: ${stringLiteral(contentType)} }`;
  return `avroCodec(${JSON.stringify(schema)}${options})`;
}

function headersOf(
  model: ContractModel,
  headers: string,
  validatorExports: ReadonlyMap<string, string>,
): { headersType: string; headersValidator: string; headerNames: string; headerJson: string } {
  const shape = headerShape(model, headers);
  return {
    headersType: headers,
    headersValidator: validatorExports.get(headers)!,
    headerNames: shape.names.map((n) => stringLiteral(n)).join(', '),
    headerJson: shape.json.map((n) => stringLiteral(n)).join(', '),
  };
}

function addressFunction(channel: ChannelModel, parametersType: string): { value: string; type: string } {
  if (channel.parameters.length === 0) return { value: stringLiteral(channel.address), type: 'string' };
  const pieces: string[] = [];
  let last = 0;
  for (const match of channel.address.matchAll(/\{([^}]*)\}/g)) {
    if (match.index > last) pieces.push(stringLiteral(channel.address.slice(last, match.index)));
    pieces.push(`String(params[${stringLiteral(match[1]!)}])`);
    last = match.index + match[0].length;
  }
  if (last < channel.address.length) pieces.push(stringLiteral(channel.address.slice(last)));
  const body = pieces.length === 0 ? '""' : pieces.join(' + ');
  return { value: `(params: ${parametersType}): string => ${body}`, type: `(params: ${parametersType}) => string` };
}

/** The `parameterRules` object literal of a channel (enum, pattern per parameter), or undefined when it has none. */
function parameterRules(channel: ChannelModel): string | undefined {
  const rules = channel.parameters
    .filter((p) => (p.enum && p.enum.length > 0) || p.pattern !== undefined)
    .map((p) => {
      const parts = [
        ...(p.enum && p.enum.length > 0 ? [`enum: [${p.enum.map((v) => stringLiteral(v)).join(', ')}]`] : []),
        ...(p.pattern === undefined ? [] : [`pattern: ${stringLiteral(p.pattern)}`]),
      ];
      return `${propertyKey(p.name)}: { ${parts.join(', ')} }`;
    });
  return rules.length === 0 ? undefined : `{ ${rules.join(', ')} }`;
}

function channelFile(ctx: Context, channel: ChannelModel): string {
  const id = channel.identifier;
  const names = {
    messageUnion: `${id}Message`,
    messageTypeUnion: `${id}MessageType`,
    parametersType: `${id}Parameters`,
    handlerType: `${id}Handler`,
    batchHandlerType: `${id}BatchHandler`,
    casesType: `${id}Cases`,
    dispatchName: `dispatch${id}`,
  };
  const messageIdentifiers = channel.messages.map((type) => ctx.model.messages[type]!.identifier);
  const address = addressFunction(channel, names.parametersType);
  return ctx.templates.render('channel.ts', {
    header: ctx.header,
    identifier: id,
    ...names,
    idComment: `channel ${commentText(JSON.stringify(channel.id))}`,
    addressComment: commentText(JSON.stringify(channel.address)),
    doc: jsDoc([channel.title, channel.description, `Address: ${channel.address}`, origin(ctx, channel.location)]),
    messageImports: [...messageIdentifiers].sort().join(', '),
    messageList: messageIdentifiers.join(', '),
    unionType: messageIdentifiers.length === 0 ? 'never' : messageIdentifiers.join(' | '),
    hasParameters: channel.parameters.length > 0,
    parameters: channel.parameters.map((p) => ({
      key: propertyKey(p.name),
      type: p.enum && p.enum.length > 0 ? p.enum.map((v) => jsonLiteral(v)).join(' | ') : 'string',
      doc: memberDoc([p.description, p.default === undefined ? undefined : `@default ${JSON.stringify(p.default)}`]),
    })),
    idLiteral: stringLiteral(channel.id),
    addressValue: address.value,
    addressType: address.type,
    addressLiteral: stringLiteral(channel.address),
    parameterNames: channel.parameters.map((p) => stringLiteral(p.name)).join(', '),
    parameterRules: parameterRules(channel),
    bindings: inlineLiteral(channel.bindings),
  });
}

/** A JSDoc block for a member written at one level of indentation after the template's own: the line after it starts indented. */
function memberDoc(lines: readonly (string | undefined)[]): string {
  const doc = jsDoc(lines, '  ');
  return doc === '' ? '' : `${doc.slice(2)}  `;
}
