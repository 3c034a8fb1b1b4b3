/**
 * The fast way in: a contract read without `@asyncapi/parser` (whose module tree alone costs
 * most of a command's time). The files are read once through the {@link SourceLocator}
 * (YAML or JSON), `$ref`s across files are resolved in place (a target reached twice is one
 * object, a cycle is an object cycle, as the parser links them), the document is checked against
 * the official AsyncAPI JSON Schema of its version (validators compiled at build time), and the
 * parser's own additions that naming depends on are applied (unique ids of v3 channels and
 * messages, component names of messages and schemas). The result presents the few parser
 * methods {@link buildModel} reads, with the parser's semantics, for 2.6 and 3.x.
 *
 * Anything this reader does not take as is — a syntax error or warning, a repeated key, a
 * YAML alias or merge key, a remote or missing `$ref`, traits, a non-default schema format,
 * a version without a build-time validator, any problem against the AsyncAPI schema — makes it
 * step aside (undefined): the caller loads through the parser then, which reports every problem
 * located exactly as before. A valid contract never needs the parser.
 */
import { dirname, resolve } from 'node:path';
import { tokensFromPointer } from '../pointer.js';
import { documentPasses } from './asyncapi-schema.js';
import type { ContractDocument, ContractReply } from './document.js';
import { plainReply } from './plain-reply.js';
import type { SourceLocator } from './source-locator.js';

type Json = Record<string, unknown>;

const UNIQUE_ID = 'x-parser-unique-object-id';
const MESSAGE_NAME = 'x-parser-message-name';
const SCHEMA_ID = 'x-parser-schema-id';
const EXTENSION = /^x-[\w\d.\-_]+$/;

/** Thrown inside the reader when the parser must take over; never escapes {@link readPlainDocument}. */
class StepAside extends Error {}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Keywords that may stand beside a `$ref` without changing what it validates. */
const REF_NEIGHBOURS = new Set(['$ref', 'definitions', '$defs', '$schema', '$id', '$comment', 'title', 'description']);

function isRef(value: unknown): value is { $ref: string } {
  return isObject(value) && typeof value['$ref'] === 'string';
}

interface Located {
  readonly value: unknown;
  readonly file: string;
}

/**
 * Resolves every `$ref` under the root file's value, in place (the values belong to this load's
 * locator, which reads each file once). Throws {@link StepAside} for what the parser must report.
 */
function resolveReferences(root: unknown, rootFile: string, locator: SourceLocator): boolean {
  const owner = new WeakMap<object, string>();
  const memo = new Map<string, Located>();
  const visited = new Set<object>();
  /** Objects on the walk's path: an edge back to one closes a cycle. */
  const active = new Set<object>();
  let cyclic = false;

  const fileValue = (file: string): unknown => {
    const read = locator.read(file);
    if (read === null || !read.plain) throw new StepAside();
    return read.value;
  };

  const resolveRef = (ref: string, file: string, hops: number): Located => {
    if (hops > 64 || /^[a-z][a-z0-9+.-]*:/i.test(ref)) throw new StepAside();
    const hash = ref.indexOf('#');
    const target = hash === -1 ? ref : ref.slice(0, hash);
    const fragment = hash === -1 ? '' : ref.slice(hash + 1);
    const targetFile = target === '' ? file : resolve(dirname(file), target);
    const key = `${targetFile}#${fragment}`;
    const known = memo.get(key);
    if (known !== undefined) return known;
    let at: Located = { value: fileValue(targetFile), file: targetFile };
    for (const token of tokensFromPointer(fragment)) {
      // A $ref on the way is followed, unless the object has the key itself (a schema whose root
      // is `$ref: '#/definitions/X'` beside those definitions).
      if (!(isObject(at.value) && Object.hasOwn(at.value, token))) at = follow(at, hops);
      const node = at.value;
      let child: unknown;
      if (Array.isArray(node) && /^\d+$/.test(token) && Number(token) < node.length) child = node[Number(token)];
      else if (isObject(node) && Object.hasOwn(node, token)) child = node[token];
      else throw new StepAside();
      at = { value: child, file: (typeof child === 'object' && child !== null && owner.get(child)) || at.file };
    }
    at = follow(at, hops);
    if (typeof at.value === 'object' && at.value !== null && !owner.has(at.value)) owner.set(at.value, at.file);
    memo.set(key, at);
    return at;
  };

  const follow = (at: Located, hops: number): Located => {
    if (!isRef(at.value)) return at;
    // Beside a $ref, only keywords that do not validate (definitions it may point into, notes) leave
    // it the whole schema; with any other the parser decides.
    for (const key in at.value) if (!REF_NEIGHBOURS.has(key)) throw new StepAside();
    return resolveRef(at.value.$ref, at.file, hops + 1);
  };

  const visitChild = (node: Record<string | number, unknown>, key: string | number, file: string): void => {
    const child = node[key];
    if (typeof child !== 'object' || child === null) return;
    if (isRef(child)) {
      const located = follow({ value: child, file: owner.get(child) ?? file }, 0);
      node[key] = located.value;
      if (typeof located.value === 'object' && located.value !== null) visit(located.value, located.file);
    } else visit(child, owner.get(child) ?? file);
  };

  const visit = (node: object, file: string): void => {
    if (active.has(node)) cyclic = true;
    if (visited.has(node)) return;
    visited.add(node);
    active.add(node);
    // Objects of the root file need no owner: an object without one belongs to its parent's file.
    if (file !== rootFile && !owner.has(node)) owner.set(node, file);
    const record = node as Record<string | number, unknown>;
    if (Array.isArray(node)) for (let i = 0; i < node.length; i++) visitChild(record, i, file);
    else for (const key in record) visitChild(record, key, file);
    active.delete(node);
  };

  if (isRef(root)) throw new StepAside();
  if (typeof root === 'object' && root !== null) visit(root, rootFile);
  return cyclic;
}

/** Traits and non-default schema formats change a document in ways only the parser applies. */
function needsParser(document: Json, major: number): boolean {
  const components = isObject(document['components']) ? document['components'] : {};
  const messages: unknown[] = Object.values(isObject(components['messages']) ? components['messages'] : {});
  const operations: unknown[] = Object.values(isObject(components['operations']) ? components['operations'] : {});
  for (const channel of Object.values(isObject(document['channels']) ? document['channels'] : {})) {
    if (!isObject(channel)) continue;
    if (major === 2) {
      for (const action of ['publish', 'subscribe']) {
        const op = channel[action];
        if (!isObject(op)) continue;
        operations.push(op);
        const message = op['message'];
        if (isObject(message) && Array.isArray(message['oneOf'])) messages.push(...message['oneOf']);
        else messages.push(message);
      }
    } else {
      if ('traits' in channel) return true;
      messages.push(...Object.values(isObject(channel['messages']) ? channel['messages'] : {}));
    }
  }
  if (major === 3) operations.push(...Object.values(isObject(document['operations']) ? document['operations'] : {}));
  for (const op of operations) if (isObject(op) && 'traits' in op) return true;
  for (const message of messages) {
    if (!isObject(message)) continue;
    if ('traits' in message || 'schemaFormat' in message) return true;
    const payload = message['payload'];
    if (major === 3 && isObject(payload) && ('schemaFormat' in payload || isObject(payload['schema']))) return true;
  }
  return false;
}

/** The parser's applyUniqueIds (3.x): channels, operations and messages carry their keys. */
function applyUniqueIds(document: Json): void {
  const objects = (map: unknown): void => {
    if (!isObject(map)) return;
    for (const [key, value] of Object.entries(map)) if (isObject(value) && !value[UNIQUE_ID]) value[UNIQUE_ID] = key;
  };
  const channels = (map: unknown): void => {
    if (!isObject(map)) return;
    for (const [key, channel] of Object.entries(map)) {
      if (!isObject(channel)) continue;
      if (!channel[UNIQUE_ID]) channel[UNIQUE_ID] = key;
      objects(channel['messages']);
    }
  };
  channels(document['channels']);
  objects(document['operations']);
  const components = document['components'];
  if (isObject(components)) {
    objects(components['messages']);
    objects(components['operations']);
    channels(components['channels']);
  }
}

function entries(value: unknown): [string, Json][] {
  return isObject(value) ? (Object.entries(value).filter(([, v]) => isObject(v)) as [string, Json][]) : [];
}

/** The parser's anonymous naming, as far as names reach the model: messages, component and parameter schemas. */
function applyNames(document: Json, major: number): void {
  const components = isObject(document['components']) ? document['components'] : {};
  for (const [key, message] of entries(components['messages'])) {
    if (message['name'] !== undefined) continue;
    message[MESSAGE_NAME] = major === 2 ? message['messageId'] || key || message[MESSAGE_NAME] : key || message[MESSAGE_NAME];
  }
  let anonymous = 0;
  const seen = new Set<Json>();
  for (const channel of new PlainDocument(document, major).channels().all()) {
    for (const message of channel.messages().all()) {
      const json = message.json();
      if (seen.has(json)) continue;
      seen.add(json);
      if (json['name'] === undefined && json[MESSAGE_NAME] === undefined)
        json[MESSAGE_NAME] = message.id() || `<anonymous-message-${++anonymous}>`;
    }
  }
  for (const [key, schema] of entries(components['schemas']))
    schema[SCHEMA_ID] = typeof schema['$id'] === 'string' && schema['$id'] ? schema['$id'] : key;
  if (major !== 2) return; // a 3.x parameter's schema is made up on each call: its name reaches nothing
  const parameterSchemas = (parameters: unknown): void => {
    for (const [key, parameter] of entries(parameters)) {
      const schema = parameter['schema'];
      if (isObject(schema) && !schema['$id'] && !schema[SCHEMA_ID]) schema[SCHEMA_ID] = key;
    }
  };
  parameterSchemas(components['parameters']);
  for (const [, channel] of entries(document['channels'])) parameterSchemas(channel['parameters']);
}

/**
 * The contract at `absolute` read, resolved and checked without the parser, or undefined when
 * the parser must take it (see the module comment).
 */
export function readPlainDocument(absolute: string, locator: SourceLocator): ContractDocument | undefined {
  try {
    const read = locator.read(absolute);
    if (read === null || !read.plain || !isObject(read.value)) return undefined;
    const document = read.value;
    const version = document['asyncapi'];
    if (typeof version !== 'string') return undefined;
    const major = Number(version.split('.')[0]);
    if (major !== 2 && major !== 3) return undefined;
    const cyclic = resolveReferences(document, absolute, locator);
    if (needsParser(document, major)) return undefined;
    if (documentPasses(document, version, cyclic) !== true) return undefined;
    if (major === 3) applyUniqueIds(document);
    applyNames(document, major);
    return new PlainDocument(document, major);
  } catch (error) {
    if (error instanceof StepAside) return undefined;
    throw error;
  }
}

// The parser's models, reduced to what the model builder reads.

class List<T> {
  readonly #items: T[];
  constructor(items: T[]) {
    this.#items = items;
  }
  all(): T[] {
    return this.#items;
  }
  get length(): number {
    return this.#items.length;
  }
}

class Valued {
  readonly #value: unknown;
  constructor(value: unknown) {
    this.#value = value;
  }
  value(): unknown {
    return this.#value;
  }
}

class Lookup {
  readonly #values: Map<string, Valued>;
  constructor(values: Map<string, Valued>) {
    this.#values = values;
  }
  get(name: string): Valued | undefined {
    return this.#values.get(name);
  }
}

function extensionsOf(json: Json): Lookup {
  return new Lookup(new Map(Object.entries(json).flatMap(([id, v]) => (EXTENSION.test(id) ? [[id, new Valued(v)]] : []))));
}

function bindingsOf(json: Json): Lookup {
  const bindings = isObject(json['bindings']) ? json['bindings'] : {};
  const values = new Map<string, Valued>();
  for (const [protocol, binding] of Object.entries(bindings)) {
    if (protocol.startsWith('$')) continue;
    const value = { ...(binding as object) } as Json;
    delete value['bindingVersion'];
    values.set(protocol, new Valued(value));
  }
  return new Lookup(values);
}

function tilde(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

class Schema {
  readonly #json: unknown;
  constructor(json: unknown) {
    this.#json = json;
  }
  json(): unknown {
    return this.#json;
  }
}

class Example {
  readonly #json: Json;
  constructor(json: Json) {
    this.#json = json;
  }
  name(): string | undefined {
    return this.#json['name'] as string | undefined;
  }
  payload(): unknown {
    return this.#json['payload'];
  }
  headers(): unknown {
    return this.#json['headers'];
  }
}

class Message {
  readonly #json: Json;
  readonly #id: string | undefined;
  readonly #pointer: string;
  readonly #document: Json;
  readonly #major: number;
  constructor(json: Json, id: string | undefined, pointer: string, document: Json, major: number) {
    this.#json = json;
    this.#id = id;
    this.#pointer = pointer;
    this.#document = document;
    this.#major = major;
  }
  meta(): { pointer: string } {
    return { pointer: this.#pointer };
  }
  json(): Json {
    return this.#json;
  }
  /** As the parser's: typed as a string, undefined for a message no naming reached. */
  id(): string {
    const named = this.#json[MESSAGE_NAME] as string;
    return this.#major === 2 ? (this.#json['messageId'] as string | undefined) || this.#id || named : this.#id || named;
  }
  name(): string | undefined {
    return this.#json['name'] as string | undefined;
  }
  title(): string | undefined {
    return this.#json['title'] as string | undefined;
  }
  summary(): string | undefined {
    return this.#json['summary'] as string | undefined;
  }
  description(): string | undefined {
    return this.#json['description'] as string | undefined;
  }
  contentType(): string | undefined {
    return (this.#json['contentType'] as string | undefined) || (this.#document['defaultContentType'] as string | undefined);
  }
  payload(): Schema | undefined {
    return this.#json['payload'] ? new Schema(this.#json['payload']) : undefined;
  }
  headers(): Schema | undefined {
    return this.#json['headers'] ? new Schema(this.#json['headers']) : undefined;
  }
  correlationId(): { location(): string | undefined } | undefined {
    const correlation = this.#json['correlationId'];
    if (!correlation) return undefined;
    return { location: () => (correlation as Json)['location'] as string | undefined };
  }
  examples(): List<Example> {
    const examples = Array.isArray(this.#json['examples']) ? (this.#json['examples'] as Json[]) : [];
    return new List(examples.map((e) => new Example(e)));
  }
  bindings(): Lookup {
    return bindingsOf(this.#json);
  }
  extensions(): Lookup {
    return extensionsOf(this.#json);
  }
}

class Parameter {
  readonly #json: Json;
  readonly #id: string;
  readonly #major: number;
  constructor(json: Json, id: string, major: number) {
    this.#json = json;
    this.#id = id;
    this.#major = major;
  }
  id(): string {
    return this.#id;
  }
  json(): Json {
    return this.#json;
  }
  hasSchema(): boolean {
    return this.#major === 2 ? Boolean(this.#json['schema']) : true;
  }
  schema(): Schema | undefined {
    if (this.#major === 2) return this.#json['schema'] ? new Schema(this.#json['schema']) : undefined;
    const j = this.#json;
    return new Schema({ type: 'string', description: j['description'], enum: j['enum'], default: j['default'], examples: j['examples'] });
  }
  description(): string | undefined {
    return this.#json['description'] as string | undefined;
  }
  location(): string | undefined {
    return this.#json['location'] as string | undefined;
  }
}

class Channel {
  readonly #json: Json;
  readonly #id: string;
  readonly #document: Json;
  readonly #major: number;
  constructor(json: Json, id: string, document: Json, major: number) {
    this.#json = json;
    this.#id = id;
    this.#document = document;
    this.#major = major;
  }
  id(): string {
    return this.#id;
  }
  meta(): { pointer: string } {
    return { pointer: `/channels/${tilde(this.#id)}` };
  }
  json(): Json {
    return this.#json;
  }
  address(): string | null | undefined {
    return this.#major === 2 ? this.#id : (this.#json['address'] as string | null | undefined);
  }
  description(): string | undefined {
    return this.#json['description'] as string | undefined;
  }
  parameters(): List<Parameter> {
    return new List(entries(this.#json['parameters']).map(([id, p]) => new Parameter(p, id, this.#major)));
  }
  /** 2.x: the messages of its publish, then its subscribe operation. */
  operations(): Operation[] {
    const pointer = this.meta().pointer;
    return ['publish', 'subscribe'].flatMap((action) => {
      const op = this.#json[action];
      if (!isObject(op)) return [];
      return [
        new Operation(op, (op['operationId'] as string | undefined) || action, `${pointer}/${action}`, this.#document, this.#major, action),
      ];
    });
  }
  messages(): List<Message> {
    if (this.#major === 2) return new List(this.operations().flatMap((op) => op.messages().all()));
    const pointer = this.meta().pointer;
    return new List(entries(this.#json['messages']).map(([id, m]) => new Message(m, id, `${pointer}/messages/${id}`, this.#document, 3)));
  }
  bindings(): Lookup {
    return bindingsOf(this.#json);
  }
  extensions(): Lookup {
    return extensionsOf(this.#json);
  }
}

class Operation {
  readonly #json: Json;
  readonly #id: string;
  readonly #pointer: string;
  readonly #document: Json;
  readonly #major: number;
  readonly #action: string | undefined;
  constructor(json: Json, id: string, pointer: string, document: Json, major: number, action?: string) {
    this.#json = json;
    this.#id = id;
    this.#pointer = pointer;
    this.#document = document;
    this.#major = major;
    this.#action = action;
  }
  id(): string {
    return this.#major === 2 ? (this.#json['operationId'] as string | undefined) || this.#id : this.#id;
  }
  summary(): string | undefined {
    return this.#json['summary'] as string | undefined;
  }
  meta(): { pointer: string } {
    return { pointer: this.#pointer };
  }
  bindings(): Lookup {
    return bindingsOf(this.#json);
  }
  /** 2.x speaks from the client's side: `subscribe` is what the application sends. */
  isSend(): boolean {
    return this.#major === 2 ? this.#action === 'subscribe' : this.#json['action'] === 'send';
  }
  channels(): List<{ id(): string }> {
    if (this.#major === 2) {
      const found = entries(this.#document['channels'])
        .filter(([, channel]) => channel['subscribe'] === this.#json || channel['publish'] === this.#json)
        .map(([id]) => ({ id: () => id }));
      return new List(found);
    }
    const channel = this.#json['channel'];
    if (!isObject(channel)) return new List([]);
    const id = channel[UNIQUE_ID] as string;
    return new List([{ id: () => id }]);
  }
  messages(): List<Message> {
    if (this.#major === 2) {
      const message = this.#json['message'];
      if (!message) return new List([]);
      const oneOf = isObject(message) && Array.isArray(message['oneOf']) ? (message['oneOf'] as Json[]) : undefined;
      const list = oneOf ?? [message as Json];
      return new List(list.map((m, i) => new Message(m, '', `${this.#pointer}/message${oneOf ? `/oneOf/${i}` : ''}`, this.#document, 2)));
    }
    const messages = this.#json['messages'];
    if (Array.isArray(messages))
      return new List(
        (messages as Json[]).map(
          (m, i) => new Message(m, m[UNIQUE_ID] as string | undefined, `${this.#pointer}/messages/${i}`, this.#document, 3),
        ),
      );
    const channel = this.#json['channel'];
    if (!isObject(channel)) return new List([]);
    return new Channel(channel, channel[UNIQUE_ID] as string, this.#document, 3).messages();
  }
  /** 3.x: the operation's reply, when it has one (2.x has no reply object). */
  reply(): ContractReply | undefined {
    const reply = this.#json['reply'];
    if (this.#major === 2 || !isObject(reply)) return undefined;
    return plainReply(reply, `${this.#pointer}/reply`, {
      channel: (json) => new Channel(json, json[UNIQUE_ID] as string, this.#document, 3),
      message: (json, pointer) => new Message(json, json[UNIQUE_ID] as string | undefined, pointer, this.#document, 3),
    });
  }
}

class Info {
  readonly #json: Json;
  constructor(json: Json) {
    this.#json = json;
  }
  title(): string {
    return this.#json['title'] as string;
  }
  version(): string {
    return this.#json['version'] as string;
  }
  description(): string | undefined {
    return this.#json['description'] as string | undefined;
  }
}

class PlainDocument implements ContractDocument {
  readonly #json: Json;
  readonly #major: number;
  constructor(json: Json, major: number) {
    this.#json = json;
    this.#major = major;
  }
  json(): Json {
    return this.#json;
  }
  version(): string {
    return this.#json['asyncapi'] as string;
  }
  defaultContentType(): string | undefined {
    return this.#json['defaultContentType'] as string | undefined;
  }
  info(): Info {
    return new Info(isObject(this.#json['info']) ? this.#json['info'] : {});
  }
  extensions(): Lookup {
    return extensionsOf(this.#json);
  }
  channels(): List<Channel> {
    return new List(entries(this.#json['channels']).map(([id, c]) => new Channel(c, id, this.#json, this.#major)));
  }
  operations(): List<Operation> {
    if (this.#major === 2)
      return new List(
        this.channels()
          .all()
          .flatMap((c) => c.operations()),
      );
    return new List(entries(this.#json['operations']).map(([id, op]) => new Operation(op, id, `/operations/${tilde(id)}`, this.#json, 3)));
  }
}
