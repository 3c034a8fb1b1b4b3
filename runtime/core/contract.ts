/**
 * The contract as the runtime sees it: branded contract messages, message and channel
 * descriptors with their codecs, decode results and errors, and the helpers keiyaku-written
 * validators call. Generated code reaches it through the versioned `codegen-v1` facade only.
 */
import { Buffer } from 'node:buffer';
import { createRequire } from 'node:module';
import { checkParameters, type ParameterRule } from './address.js';
import type { MessageContext } from './context.js';
import { KeiyakuError } from './errors.js';
import { type FormatCheck, formatCheckOf } from './formats.js';

export type { ParameterRule, ParametersOfAddress } from './address.js';
export { ChannelAddressError } from './address.js';
export type { MessageContext } from './context.js';
export { isKeiyakuError, KeiyakuError } from './errors.js';

/**
 * The brand and runtime type tag of a contract value. Only `create` and `decode`
 * of a generated message descriptor attach it, so an object literal shaped like a
 * contract is not one. `Symbol.for` keeps it equal across duplicate installs.
 */
export const messageType: unique symbol = Symbol.for('keiyaku.messageType') as never;
export type MessageTypeTag = typeof messageType;

/**
 * Type-only key carrying the headers type a message declares in the contract (never set
 * at run time): publishing reads it to type the headers a message is sent with.
 */
export declare const messageHeaders: unique symbol;
export type MessageHeadersTag = typeof messageHeaders;

/**
 * A validated, read-only contract message of type `T` with payload `P`; `H`, when the
 * contract declares a headers schema for the message, is the type of its headers.
 */
export type ContractMessage<T extends string, P, H = never> = P & { readonly [messageType]: T } & ([H] extends [never]
    ? unknown
    : { readonly [messageHeaders]?: H });

/**
 * The headers message `M` is published with (each member of a union): its contract headers
 * where it declares them, beside which undeclared headers travel as strings; free string
 * headers when it declares none.
 */
export type HeadersOf<M> = M extends { readonly [messageHeaders]?: infer H }
  ? H & Readonly<Record<string, unknown>>
  : Readonly<Record<string, string>>;

/** How a message whose payload is a JSON primitive is held in memory; on the wire it is the bare value. */
export interface Boxed<P> {
  readonly value: P;
}

/** Any contract message. */
export type AnyContractMessage = { readonly [messageType]: string };

/** The type name of a contract message (or union of them). */
export type MessageTypeOf<M extends AnyContractMessage> = M[MessageTypeTag];

/** The member of union `M` whose type name is `T`. */
export type MessageOfType<M extends AnyContractMessage, T extends string> = Extract<M, { readonly [messageType]: T }>;

/** One reason a value does not satisfy its schema. */
export interface ValidationIssue {
  /** JSON pointer into the value, `""` for the root. */
  readonly pointer: string;
  /** The same location as a JSON path, `$` for the root (`$.borrower.name`, `$.items[2]`). */
  readonly path: string;
  /** JSON Schema keyword that failed (`required`, `type`, `enum`, …). */
  readonly keyword: string;
  readonly message: string;
}

/** Thrown by `create` when a payload does not satisfy the contract. */
export class ContractValidationError extends KeiyakuError {
  override readonly name = 'ContractValidationError';
  readonly messageType: string;
  readonly issues: readonly ValidationIssue[];
  /** JSON path of the first failing location. */
  readonly path: string;

  constructor(messageTypeName: string, issues: readonly ValidationIssue[]) {
    const first = issues[0];
    const where = first === undefined ? '$' : first.path;
    super('contract_invalid', `${messageTypeName} is not valid at ${where}: ${first?.message ?? 'rejected by its schema'}`);
    this.messageType = messageTypeName;
    this.issues = issues;
    this.path = where;
  }
}

/** Why bytes could not be turned into a contract message. */
export type DecodeFailure = 'unknown_type' | 'not_utf8' | 'not_json' | 'schema' | 'headers';

/** Returned (never thrown) by `decode` when bytes are not a valid message. Not retriable: the bytes will not change. */
export class ContractDecodeError extends KeiyakuError {
  override readonly name = 'ContractDecodeError';
  readonly reason: DecodeFailure;
  readonly messageType: string;
  readonly issues: readonly ValidationIssue[];
  /** JSON path of the failing location (`$` when the whole document is at fault). */
  readonly path: string;

  constructor(reason: DecodeFailure, messageTypeName: string, message: string, issues: readonly ValidationIssue[] = [], cause?: unknown) {
    super(`decode_${reason}`, message, { cause });
    this.reason = reason;
    this.messageType = messageTypeName;
    this.issues = issues;
    this.path = issues[0]?.path ?? '$';
  }
}

export type DecodeResult<M> = { readonly ok: true; readonly value: M } | { readonly ok: false; readonly error: ContractDecodeError };

/** An ajv standalone validate function, as emitted into `generated/validators.ts`. */
export interface StandaloneValidator {
  (data: unknown): boolean;
  errors?: readonly StandaloneValidatorError[] | null;
}
export interface StandaloneValidatorError {
  readonly instancePath: string;
  readonly keyword: string;
  readonly message?: string;
  readonly params?: Readonly<Record<string, unknown>>;
}

/** What `generate` knows about one message type; the runtime reads it. */
export interface MessageDescriptor<T extends string = string, P = unknown, M extends AnyContractMessage = ContractMessage<T, P>> {
  readonly type: T;
  /** Identifier of the message in the contract (component key or channel message key). */
  readonly id: string;
  readonly contentType: string;
  /** sha256 of the canonical payload schema, as in `generated/manifest.json`. */
  readonly schemaHash: string;
  /** True when the payload is a JSON primitive, held as `{ value }` (see {@link Boxed}). */
  readonly boxed: boolean;
  /** Validates `payload` and returns it as a frozen contract message; throws {@link ContractValidationError}. */
  create(payload: P): M;
  /** Issues of `value` against the payload schema; empty when valid. */
  validate(value: unknown): readonly ValidationIssue[];
  /** True when `value` is a contract message of this type (made by `create` or `decode`). */
  is(value: unknown): value is M;
  /** The payload property that is the message's partition key (from the Kafka binding's key schema), if any. */
  readonly keyProperty?: string;
  /** The default partition key of `message`: its {@link keyProperty}, as a string. */
  key(message: M): string | undefined;
  /** UTF-8 JSON bytes of the message. */
  encode(message: M): Uint8Array;
  /** Bytes to a contract message, or an error naming the failing JSON path. Never throws. */
  decode(bytes: Uint8Array): DecodeResult<M>;
  /** The codec of the headers the contract declares for this message; undefined when it declares none. */
  readonly headers?: HeadersCodec;
}

export interface MessageDefinition<T extends string> {
  readonly type: T;
  readonly id: string;
  readonly contentType: string;
  readonly schemaHash: string;
  readonly validate: StandaloneValidator;
  /** The payload is a JSON primitive: hold it as `{ value }`. */
  readonly boxed?: boolean;
  /** The headers schema of the message, when the contract declares one. */
  readonly headers?: HeadersDefinition;
  /** The payload property that is the default partition key. */
  readonly keyProperty?: string;
}

const utf8Decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** Bytes of one slab that small encoded messages share (views into it, like Node's own Buffer pool). */
const SLAB_BYTES = 64 * 1024;
/** Texts that may need more than this many bytes get an array of their own. */
const SLAB_MAX_TEXT = 4 * 1024;
let slab = Buffer.from(new ArrayBuffer(SLAB_BYTES));
let slabOffset = 0;

/**
 * The UTF-8 bytes of `text` as a Uint8Array of exactly its length (a view: mind `byteOffset`).
 * Small texts are written into a shared zero-filled slab: a fresh ArrayBuffer per message
 * (`TextEncoder.encode`) costs several times the encoding itself in allocation and GC.
 */
export function utf8Bytes(text: string): Uint8Array {
  const worst = text.length * 3; // one UTF-16 unit is at most three UTF-8 bytes
  if (worst > SLAB_MAX_TEXT) {
    const own = Buffer.from(text, 'utf8');
    return new Uint8Array(own.buffer, own.byteOffset, own.byteLength);
  }
  if (SLAB_BYTES - slabOffset < worst) {
    slab = Buffer.from(new ArrayBuffer(SLAB_BYTES));
    slabOffset = 0;
  }
  const written = slab.write(text, slabOffset, 'utf8');
  const bytes = new Uint8Array(slab.buffer, slabOffset, written);
  slabOffset += written;
  return bytes;
}

function pointerToPath(pointer: string): string {
  if (pointer === '') return '$';
  let path = '$';
  for (const raw of pointer.slice(1).split('/')) {
    const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (/^(0|[1-9]\d*)$/.test(token)) path += `[${token}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(token)) path += `.${token}`;
    else path += `[${JSON.stringify(token)}]`;
  }
  return path;
}

function escapePointerToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

function toIssues(errors: readonly StandaloneValidatorError[] | null | undefined): ValidationIssue[] {
  if (!errors || errors.length === 0) return [{ pointer: '', path: '$', keyword: 'schema', message: 'rejected by its schema' }];
  return errors.map((error) => {
    let pointer = error.instancePath;
    // ajv reports a missing or forbidden property at its parent; point at the property itself.
    const missing = error.params?.['missingProperty'] ?? error.params?.['additionalProperty'];
    if (typeof missing === 'string') pointer = `${pointer}/${escapePointerToken(missing)}`;
    return { pointer, path: pointerToPath(pointer), keyword: error.keyword, message: error.message ?? `fails ${error.keyword}` };
  });
}

function tag<T extends string, P>(value: P, type: T): ContractMessage<T, P> {
  if (Array.isArray(value)) {
    const copy = [...value] as unknown as Record<symbol, unknown>;
    copy[messageType] = type;
    return Object.freeze(copy) as unknown as ContractMessage<T, P>;
  }
  // The tag in the literal, before the spread: adding a property to an object made by a
  // spread turns it into a dictionary-mode object (several times slower to build, to read
  // and to JSON.stringify); a spread into a literal defines properties, so an own
  // `__proto__` stays a property.
  return Object.freeze({ [messageType]: type, ...(value as object) }) as ContractMessage<T, P>;
}

function isTagged(value: unknown, type?: string): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const found = (value as Partial<AnyContractMessage>)[messageType];
  return type === undefined ? typeof found === 'string' : found === type;
}

/** Builds the descriptor of one message type. Called by generated code only. */
export function defineMessage<T extends string, P, M extends AnyContractMessage = ContractMessage<T, P>>(
  definition: MessageDefinition<T>,
): MessageDescriptor<T, P, M> {
  const { type, validate } = definition;
  const boxed = definition.boxed === true;
  const keyProperty = definition.keyProperty;
  const check = (value: unknown): readonly ValidationIssue[] => (validate(value) ? [] : toIssues(validate.errors));
  return Object.freeze({
    type,
    id: definition.id,
    contentType: definition.contentType,
    schemaHash: definition.schemaHash,
    boxed,
    ...(definition.headers === undefined ? {} : { headers: defineHeaders(type, definition.headers) }),
    ...(keyProperty === undefined ? {} : { keyProperty }),
    key(message: M): string | undefined {
      if (keyProperty === undefined) return undefined;
      const value = (message as unknown as Record<string, unknown>)[keyProperty];
      return value === undefined || value === null ? undefined : String(value);
    },
    create(payload: P): M {
      if (!validate(payload)) throw new ContractValidationError(type, toIssues(validate.errors));
      return tag(boxed ? { value: payload } : payload, type) as unknown as M;
    },
    validate: check,
    is(value: unknown): value is M {
      return isTagged(value, type);
    },
    encode(message: M): Uint8Array {
      return utf8Bytes(JSON.stringify(boxed ? (message as unknown as Boxed<unknown>).value : message));
    },
    decode(bytes: Uint8Array): DecodeResult<M> {
      let text: string;
      try {
        text = utf8Decoder.decode(bytes);
      } catch (cause) {
        return fail('not_utf8', type, `${type}: payload is not valid UTF-8`, [], cause);
      }
      let data: unknown;
      try {
        data = JSON.parse(text);
      } catch (cause) {
        const detail = cause instanceof Error ? cause.message : String(cause);
        return fail('not_json', type, `${type}: payload is not JSON (${detail})`, [], cause);
      }
      if (!validate(data)) {
        const issues = toIssues(validate.errors);
        const first = issues[0];
        return fail('schema', type, `${type}: payload is not valid at ${first?.path ?? '$'}: ${first?.message ?? 'rejected'}`, issues);
      }
      if (boxed) data = { value: data };
      else if (typeof data !== 'object' || data === null) {
        return fail('schema', type, `${type}: payload must be a JSON object or array`, [
          { pointer: '', path: '$', keyword: 'type', message: 'must be object or array' },
        ]);
      }
      // A plain symbol-keyed property: JSON.stringify and Object.keys skip it, and it is
      // several times cheaper than defineProperty on this hot path; freezing makes it read-only.
      (data as Record<symbol, unknown>)[messageType] = type;
      return { ok: true, value: Object.freeze(data) as M };
    },
  });
}

function fail(reason: DecodeFailure, type: string, message: string, issues: readonly ValidationIssue[] = [], cause?: unknown) {
  return { ok: false as const, error: new ContractDecodeError(reason, type, message, issues, cause) };
}

/**
 * The headers schema of one message as `generate` emits it. On the wire every header is a
 * string: a property whose schema is a string travels as is, the others (`json`) as JSON text.
 */
export interface HeadersDefinition {
  /** The properties the schema declares, in schema order. */
  readonly names: readonly string[];
  /** The declared properties whose values are not strings: JSON text on the wire. */
  readonly json?: readonly string[];
  readonly validate: StandaloneValidator;
}

/** Validates and converts one message's contract headers between their typed and their wire form. */
export interface HeadersCodec {
  readonly names: readonly string[];
  /** Issues of `headers` against the headers schema; empty when valid. */
  validate(headers: unknown): readonly ValidationIssue[];
  /**
   * Validates `headers` and returns their wire form; throws {@link ContractValidationError} naming the header.
   * Headers the schema does not declare travel as given (strings only).
   */
  encode(headers: unknown): Record<string, string>;
  /** The declared headers of a record, validated; an error naming the header when they do not satisfy the schema. Never throws. */
  decode(
    wire: Readonly<Record<string, string>>,
  ): { readonly ok: true; readonly value: Readonly<Record<string, unknown>> } | { readonly ok: false; readonly error: ContractDecodeError };
}

function headerIssuesMessage(type: string, issues: readonly ValidationIssue[]): string {
  const first = issues[0];
  const name =
    first === undefined || first.pointer === '' ? undefined : first.pointer.slice(1).split('/')[0]!.replace(/~1/g, '/').replace(/~0/g, '~');
  return `${type}: header ${name === undefined ? '(all)' : JSON.stringify(name)} is not valid: ${first?.message ?? 'rejected by its schema'}`;
}

function defineHeaders(type: string, definition: HeadersDefinition): HeadersCodec {
  const { validate } = definition;
  const names = Object.freeze([...definition.names]);
  const json = new Set(definition.json ?? []);
  const declared = new Set(names);
  const check = (value: unknown): readonly ValidationIssue[] => (validate(value) ? [] : toIssues(validate.errors));
  // Paths name the header: `headers.correlationId`.
  const headerIssues = (issues: readonly ValidationIssue[]): ValidationIssue[] =>
    issues.map((i) => ({ ...i, path: `headers${i.path.slice(1)}` }));
  // Most messages carry none of the declared headers: whether that satisfies the schema is
  // decided once (validation is a pure function of the value), not per message.
  const none: Readonly<Record<string, unknown>> = Object.freeze(Object.create(null));
  const decodedNone = Object.freeze({ ok: true as const, value: none });
  let noneValid: boolean | undefined;
  const noneIsValid = (): boolean => (noneValid ??= validate(none) === true);
  return Object.freeze({
    names,
    validate: check,
    encode(headers: unknown): Record<string, string> {
      if (headers === undefined && noneIsValid()) return {};
      const value = headers ?? {};
      const issues = check(value);
      if (issues.length > 0) throw new ContractValidationError(type, headerIssues(issues));
      const wire: Record<string, string> = {};
      for (const name of Object.keys(value as object)) {
        const v = (value as Record<string, unknown>)[name];
        if (v === undefined) continue;
        let text: string;
        if (declared.has(name)) text = json.has(name) ? JSON.stringify(v) : String(v);
        else if (typeof v === 'string')
          text = v; // a header the contract does not declare travels as given
        else {
          const pointer = `/${escapePointerToken(name)}`;
          throw new ContractValidationError(type, [
            {
              pointer,
              path: `headers${pointerToPath(pointer).slice(1)}`,
              keyword: 'type',
              message: 'a header the contract does not declare must be a string',
            },
          ]);
        }
        // A header named __proto__ stays a header (an assignment would try to set the prototype).
        if (name === '__proto__') Object.defineProperty(wire, name, { value: text, enumerable: true, writable: true, configurable: true });
        else wire[name] = text;
      }
      return wire;
    },
    decode(wire: Readonly<Record<string, string>>) {
      let present = false;
      for (let i = 0; i < names.length && !present; i++) present = Object.hasOwn(wire, names[i]!);
      if (!present && noneIsValid()) return decodedNone;
      // No prototype: a declared header named `__proto__` stays a plain property.
      const value: Record<string, unknown> = Object.create(null);
      for (const name of names) {
        if (!Object.hasOwn(wire, name)) continue;
        const raw = wire[name]!;
        if (!json.has(name)) {
          value[name] = raw;
          continue;
        }
        try {
          value[name] = JSON.parse(raw);
        } catch (cause) {
          const pointer = `/${escapePointerToken(name)}`;
          const issues: ValidationIssue[] = [
            { pointer, path: `headers${pointerToPath(pointer).slice(1)}`, keyword: 'type', message: 'is not JSON' },
          ];
          return fail('headers', type, `${type}: header ${JSON.stringify(name)} is not valid: is not JSON`, issues, cause);
        }
      }
      if (!validate(value)) {
        const issues = toIssues(validate.errors);
        return fail('headers', type, headerIssuesMessage(type, issues), headerIssues(issues));
      }
      return { ok: true as const, value: Object.freeze(value) };
    },
  });
}

/** Kafka and Iggy placement of a channel, from its bindings. */
export interface ChannelBindings {
  readonly kafka?: {
    /** The Kafka topic of the channel's address (the binding's `topic`), when it differs from the address. */
    readonly topic?: string;
    readonly partitions?: number;
    readonly replicas?: number;
    /** Topic configs set when the transport creates the topic (the binding's `topicConfiguration`). */
    readonly configs?: Readonly<Record<string, string>>;
    readonly key?: string;
  };
  readonly iggy?: { readonly stream?: string; readonly topic?: string; readonly partitions?: number };
}

/** One channel of the contract with its message registry and codec. */
export interface ChannelDescriptor<M extends AnyContractMessage, A extends string | ((params: never) => string) = string> {
  readonly id: string;
  /** The address, or a function of the channel parameters when the address has any. */
  readonly address: A;
  /** The address template exactly as in the contract (`lights.{streetlightId}.on`). */
  readonly addressTemplate: string;
  readonly parameters: readonly string[];
  /** What the contract allows as values of each parameter (enum, pattern). */
  readonly parameterRules: Readonly<Record<string, ParameterRule>>;
  readonly messageTypes: readonly MessageTypeOf<M>[];
  readonly bindings: ChannelBindings;
  /** The descriptor registered for `type`, or undefined when the channel does not carry it. */
  message(type: string): MessageDescriptor<MessageTypeOf<M>, unknown, M> | undefined;
  /** True when `value` is a contract message this channel carries. */
  accepts(value: unknown): value is M;
  typeOf(message: M): MessageTypeOf<M>;
  encode(message: M): Uint8Array;
  /** Bytes + message type to a message of this channel; an unknown type is a decode error. Never throws. */
  decode(bytes: Uint8Array, type: string): DecodeResult<M>;
}

/** Any channel carrying `M`, whatever its address shape. */
export type AnyChannel<M extends AnyContractMessage = AnyContractMessage> = ChannelDescriptor<M, string | ((params: never) => string)>;

export interface ChannelDefinition<A> {
  readonly id: string;
  readonly address: A;
  readonly addressTemplate: string;
  readonly parameters: readonly string[];
  readonly parameterRules?: Readonly<Record<string, ParameterRule>>;
  // biome-ignore lint/suspicious/noExplicitAny: descriptors of different payload types share one registry
  readonly messages: readonly MessageDescriptor<string, any, any>[];
  readonly bindings: ChannelBindings;
}

/** Builds the descriptor of one channel. Called by generated code only. */
export function defineChannel<M extends AnyContractMessage, A extends string | ((params: never) => string) = string>(
  definition: ChannelDefinition<A>,
): ChannelDescriptor<M, A> {
  const registry = new Map<string, MessageDescriptor<string, unknown, AnyContractMessage>>();
  for (const descriptor of definition.messages) registry.set(descriptor.type, descriptor);
  const types = Object.freeze(definition.messages.map((d) => d.type)) as readonly MessageTypeOf<M>[];
  const parameterRules = Object.freeze({ ...definition.parameterRules });
  // The address function of a channel with parameters refuses values the contract does not
  // allow (missing, empty, not in the enum) with a ChannelAddressError, instead of building
  // `payments.undefined.requests`.
  const build = definition.address;
  const address =
    typeof build === 'function'
      ? (((params: never) => {
          checkParameters({ id: definition.id, parameters: definition.parameters, parameterRules }, params);
          return (build as (params: never) => string)(params);
        }) as A)
      : build;
  return Object.freeze({
    id: definition.id,
    address,
    parameterRules,
    addressTemplate: definition.addressTemplate,
    parameters: definition.parameters,
    messageTypes: types,
    bindings: definition.bindings,
    message: (type: string) => registry.get(type) as MessageDescriptor<MessageTypeOf<M>, unknown, M> | undefined,
    accepts(value: unknown): value is M {
      if (!isTagged(value)) return false;
      return registry.has((value as AnyContractMessage)[messageType]);
    },
    typeOf: (message: M) => message[messageType] as MessageTypeOf<M>,
    encode(message: M): Uint8Array {
      const type = message[messageType];
      const descriptor = registry.get(type);
      if (descriptor === undefined)
        throw new KeiyakuError('unknown_message_type', `channel ${definition.id} does not carry message type ${JSON.stringify(type)}`);
      return (descriptor as MessageDescriptor<string, unknown, M>).encode(message);
    },
    decode(bytes: Uint8Array, type: string): DecodeResult<M> {
      const descriptor = registry.get(type);
      if (descriptor === undefined) {
        return fail(
          'unknown_type',
          type,
          `channel ${definition.id} has no message type ${JSON.stringify(type)} (it carries ${[...registry.keys()].join(', ')})`,
        );
      }
      return descriptor.decode(bytes) as DecodeResult<M>;
    },
  });
}

/** One function per message type of union `M`; the compiler requires every case. */
export type DispatchCases<M extends AnyContractMessage, R> = {
  readonly [T in MessageTypeOf<M>]: (message: MessageOfType<M, T>) => R;
};

/** Calls the case for `message`'s type. */
export function dispatch<M extends AnyContractMessage, R>(message: M, cases: DispatchCases<M, R>): R {
  const type = message[messageType] as MessageTypeOf<M>;
  const handler = cases[type] as ((m: M) => R) | undefined;
  if (handler === undefined) {
    throw new KeiyakuError('dispatch_unhandled', `no case for message type ${JSON.stringify(type)}`);
  }
  return handler(message);
}

/** A handler of one channel's messages, with the consumer group it belongs to. */
export interface MessageHandler<M extends AnyContractMessage> {
  /** Consumer group, named after the capability (`inventory.book-availability`). */
  readonly groupId: string;
  /** The message types this handler wants; others are skipped (routing, not failure). Default: all. */
  readonly accepts?: readonly MessageTypeOf<M>[];
  /** Handle one message. Must be idempotent: delivery is at least once. */
  handle(message: M, context: MessageContext<MessageTypeOf<M>>): Promise<void> | void;
}

const runtimeRequire = createRequire(import.meta.url);

/** At most this many errors are reported for one value; the first is the summary. */
export const MAX_VALIDATION_ERRORS = 20;

type ErrorSink = StandaloneValidatorError[] & { s?: number };

const COMPARISON: Readonly<Record<string, string>> = { minimum: '>=', maximum: '<=', exclusiveMinimum: '>', exclusiveMaximum: '<' };

function errorOf(instancePath: string, keyword: string, arg: unknown): StandaloneValidatorError {
  switch (keyword) {
    case 'type':
      return { instancePath, keyword, params: { type: arg }, message: `must be ${arg}` };
    case 'required':
      return { instancePath, keyword, params: { missingProperty: arg }, message: `must have required property '${arg}'` };
    case 'additionalProperties':
      return { instancePath, keyword, params: { additionalProperty: arg }, message: 'must NOT have additional properties' };
    case 'unevaluatedProperties':
      return { instancePath, keyword, params: { unevaluatedProperty: arg }, message: 'must NOT have unevaluated properties' };
    case 'enum':
      return {
        instancePath,
        keyword,
        params: { allowedValues: arg },
        message: `must be equal to one of the allowed values: ${allowedValuesText(arg as readonly unknown[])}`,
      };
    case 'const':
      return { instancePath, keyword, params: { allowedValue: arg }, message: 'must be equal to constant' };
    case 'format':
      return { instancePath, keyword, params: { format: arg }, message: `must match format "${arg}"` };
    case 'pattern':
      return { instancePath, keyword, params: { pattern: arg }, message: `must match pattern "${arg}"` };
    case 'minLength':
    case 'maxLength':
      return {
        instancePath,
        keyword,
        params: { limit: arg },
        message: `must NOT have ${keyword === 'minLength' ? 'fewer' : 'more'} than ${arg} characters`,
      };
    case 'minItems':
    case 'maxItems':
      return {
        instancePath,
        keyword,
        params: { limit: arg },
        message: `must NOT have ${keyword === 'minItems' ? 'fewer' : 'more'} than ${arg} items`,
      };
    case 'items':
    case 'unevaluatedItems':
      return { instancePath, keyword, params: { limit: arg }, message: `must NOT have more than ${arg} items` };
    case 'minProperties':
    case 'maxProperties':
      return {
        instancePath,
        keyword,
        params: { limit: arg },
        message: `must NOT have ${keyword === 'minProperties' ? 'fewer' : 'more'} than ${arg} properties`,
      };
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return {
        instancePath,
        keyword,
        params: { comparison: COMPARISON[keyword], limit: arg },
        message: `must be ${COMPARISON[keyword]} ${arg}`,
      };
    case 'multipleOf':
      return { instancePath, keyword, params: { multipleOf: arg }, message: `must be multiple of ${arg}` };
    case 'uniqueItems': {
      const [i, j] = arg as [number, number];
      return { instancePath, keyword, params: { i, j }, message: `must NOT have duplicate items (items ## ${j} and ${i} are identical)` };
    }
    case 'oneOf':
      return {
        instancePath,
        keyword,
        params: { passingSchemas: arg === -1 ? null : arg },
        message: 'must match exactly one schema in oneOf',
      };
    case 'anyOf':
      return { instancePath, keyword, params: {}, message: 'must match a schema in anyOf' };
    case 'not':
      return { instancePath, keyword, params: {}, message: 'must NOT be valid' };
    case 'if':
      return { instancePath, keyword, params: { failingKeyword: arg }, message: `must match "${arg}" schema` };
    case 'contains':
      return { instancePath, keyword, params: { minContains: arg }, message: `must contain at least ${arg} valid item(s)` };
    case 'maxContains':
      return { instancePath, keyword: 'contains', params: { maxContains: arg }, message: `must contain at most ${arg} valid item(s)` };
    case 'dependentRequired': {
      const [property, missing] = arg as [string, string];
      return {
        instancePath,
        keyword,
        params: { property, missingProperty: missing },
        message: `must have property ${missing} when property ${property} is present`,
      };
    }
    case 'propertyNames':
      return { instancePath, keyword, params: { propertyName: arg }, message: 'property name must be valid' };
    default:
      return { instancePath, keyword, params: {}, message: 'boolean schema is false' };
  }
}

/** At most this many allowed values are listed in an `enum` error, each cut to {@link MAX_VALUE_TEXT} characters. */
const MAX_ALLOWED_VALUES = 10;
const MAX_VALUE_TEXT = 60;

/** `"desk", "kiosk", "online"` (bounded: a long list ends in `… (N more)`). */
function allowedValuesText(values: readonly unknown[]): string {
  const shown = values.slice(0, MAX_ALLOWED_VALUES).map((value) => {
    const text = JSON.stringify(value) ?? String(value);
    return text.length > MAX_VALUE_TEXT ? `${text.slice(0, MAX_VALUE_TEXT - 1)}…` : text;
  });
  return values.length > shown.length ? `${shown.join(', ')}, … (${values.length - shown.length} more)` : shown.join(', ');
}

function codePoints(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    count++;
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
  }
  return count;
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const key of keys)
    if (!Object.hasOwn(b, key) || !deepEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key])) return false;
  return true;
}

const formatChecks = new Map<string, FormatCheck>();

/**
 * Formats that validators generated by keiyaku 0.2.0 check through {@link validatorRuntime}'s `format`
 * (they inline ajv-formats' regular expressions for the others).
 * @deprecated generated validators now check every format through `validatorRuntime.format`.
 */
export const FAST_FORMATS: readonly string[] = ['date', 'date-time', 'uuid'];

/** The check of `format` (core/formats.ts: the formats of ajv-formats' full set; unknown formats accept every value). */
function formatCheck(name: string): FormatCheck {
  let check = formatChecks.get(name);
  if (check === undefined) {
    check = formatCheckOf(name);
    formatChecks.set(name, check);
  }
  return check;
}

/**
 * Helpers that the validators keiyaku writes (`generated/validators.ts`) call. Generated
 * code imports them from here only; their names and signatures are part of codegen-v1.
 */
export const validatorRuntime = Object.freeze({
  /** JSON Schema's `object`: not null, not an array (one short call in generated code instead of three tests). */
  isObject(value: unknown): value is Record<string, unknown> {
    return value !== null && typeof value === 'object' && !Array.isArray(value);
  },
  /** Records an error (bounded by {@link MAX_VALIDATION_ERRORS}); returns false for `ok = report(…)`. */
  report(errors: ErrorSink, instancePath: string, keyword: string, arg?: unknown): false {
    if (errors.length < MAX_VALIDATION_ERRORS) errors.push(errorOf(instancePath, keyword, arg));
    return false;
  },
  /** A `type` error: `types` is the comma-separated list of allowed types. */
  type(errors: ErrorSink, instancePath: string, types: string): false {
    if (errors.length < MAX_VALIDATION_ERRORS) errors.push(errorOf(instancePath, 'type', types));
    return false;
  },
  /** A `format` error. */
  formatError(errors: ErrorSink, instancePath: string, format: string): false {
    if (errors.length < MAX_VALIDATION_ERRORS) errors.push(errorOf(instancePath, 'format', format));
    return false;
  },
  /** One `required` error per property of `required` that `data` lacks (absent or undefined). */
  required(errors: ErrorSink, instancePath: string, data: Readonly<Record<string, unknown>>, required: readonly string[]): false {
    for (const key of required)
      if (
        (key in Object.prototype || key === '__proto__' ? !Object.hasOwn(data, key) || data[key] === undefined : data[key] === undefined) &&
        errors.length < MAX_VALIDATION_ERRORS
      )
        errors.push(errorOf(instancePath, 'required', key));
    return false;
  },
  /** After a validator failed: prefixes the paths of the errors it added (from `errors.s` on); returns false. */
  prefix(errors: ErrorSink, path: string): false {
    for (let i = errors.s ?? errors.length; i < errors.length; i++) {
      const error = errors[i]!;
      errors[i] = { ...error, instancePath: path + error.instancePath };
    }
    return false;
  },
  /** A validator failed: remembers where its errors start (for `prefix`); returns false. */
  failed(errors: ErrorSink, start: number): false {
    errors.s = start;
    return false;
  },
  /** A property name as a JSON pointer token. */
  escape: (token: string): string => token.replace(/~/g, '~0').replace(/\//g, '~1'),
  /** Length in code points, as JSON Schema counts it. */
  length: codePoints,
  equal: deepEqual,
  /** The first pair of equal items as [later, earlier], or undefined. */
  unique(items: readonly unknown[]): [number, number] | undefined {
    for (let i = 1; i < items.length; i++) for (let j = 0; j < i; j++) if (deepEqual(items[i], items[j])) return [i, j];
    return undefined;
  },
  mergeItems(into: { n: number; a: boolean; s: Set<number> | null }, from: { n: number; a: boolean; s: Set<number> | null }): void {
    into.n = Math.max(into.n, from.n);
    into.a ||= from.a;
    if (from.s) {
      into.s ??= new Set();
      for (const i of from.s) into.s.add(i);
    }
  },
  /** The exported validate function of a root schema: `errors` holds every error of the last failing value. */
  root(check: (data: unknown, errors: ErrorSink) => boolean): StandaloneValidator {
    // One error list reused while values pass; a failing value keeps its own copy in `errors`.
    const shared: ErrorSink = [];
    let busy = false;
    const validate: StandaloneValidator = (data: unknown): boolean => {
      const errors: ErrorSink = busy ? [] : shared;
      const own = errors === shared;
      busy = true;
      let ok: boolean;
      try {
        ok = check(data, errors);
      } finally {
        if (own) busy = false;
      }
      if (ok) {
        validate.errors = null;
        return true;
      }
      validate.errors = errors.slice();
      errors.length = 0;
      return false;
    };
    validate.errors = null;
    return validate;
  },
  /** The check of a `format` keyword, called on strings (and numbers, for the numeric formats). */
  format: formatCheck,
});

/**
 * Helpers that ajv standalone validators call: code generated by keiyaku 0.1 imports them.
 * @deprecated validators are now written by keiyaku itself and use {@link validatorRuntime};
 * regenerate (`keiyaku generate`). Loaded on first use only.
 */
export const ajvRuntime: Readonly<Record<string, unknown>> = Object.freeze({
  get equal() {
    return (runtimeRequire('ajv/dist/runtime/equal') as { default: unknown }).default;
  },
  get ucs2length() {
    return (runtimeRequire('ajv/dist/runtime/ucs2length') as { default: unknown }).default;
  },
  get uri() {
    return (runtimeRequire('ajv/dist/runtime/uri') as { default: unknown }).default;
  },
  get validation_error() {
    return (runtimeRequire('ajv/dist/runtime/validation_error') as { default: unknown }).default;
  },
  get formats() {
    return (runtimeRequire('ajv-formats/dist/formats') as { fullFormats: unknown }).fullFormats;
  },
});
