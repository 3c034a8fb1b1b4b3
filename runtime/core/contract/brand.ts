/**
 * Branded contract messages: the tag that only generated `create` and `decode` attach, the
 * type-only headers key, and the types read from them.
 */

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

/** @internal A frozen contract message of type `type` made of `value` (a copy: `value` is not changed). */
export function tag<T extends string, P>(value: P, type: T): ContractMessage<T, P> {
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

/** @internal True when `value` carries the contract tag (of `type`, when given). */
export function isTagged(value: unknown, type?: string): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const found = (value as Partial<AnyContractMessage>)[messageType];
  return type === undefined ? typeof found === 'string' : found === type;
}
