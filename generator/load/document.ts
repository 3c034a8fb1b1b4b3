/**
 * What loading a contract yields and the model builder reads: the part of `@asyncapi/parser`'s
 * document API keiyaku uses. A parsed document is one; generator/load/plain-document.ts implements
 * it over a plain document without the parser.
 */
/** A list of the parser's models. */
export interface ModelList<T> {
  all(): T[];
  readonly length: number;
}
/** Bindings or extensions of a model, by protocol or name. */
export interface ValueLookup {
  get(name: string): { value(): unknown } | undefined;
}
export interface SchemaJson {
  json(): unknown;
}
export interface ContractMessage {
  meta(): unknown;
  id(): string | undefined;
  name(): string | undefined;
  json(): unknown;
  title(): string | undefined;
  summary(): string | undefined;
  description(): string | undefined;
  contentType(): string | undefined;
  payload(): SchemaJson | undefined;
  headers(): SchemaJson | undefined;
  correlationId(): { location(): string | undefined } | undefined;
  examples(): ModelList<{ name(): string | undefined; payload(): unknown; headers(): unknown }>;
  bindings(): ValueLookup;
  extensions(): ValueLookup;
}
export interface ContractChannel {
  id(): string;
  meta(): unknown;
  json(): unknown;
  address(): string | null | undefined;
  description(): string | undefined;
  parameters(): ModelList<{
    id(): string;
    json(): unknown;
    hasSchema(): boolean;
    schema(): SchemaJson | undefined;
    description(): string | undefined;
    location(): string | undefined;
  }>;
  messages(): ModelList<ContractMessage>;
  bindings(): ValueLookup;
  extensions(): ValueLookup;
}
/**
 * What the model builder reads of a document: the part of `@asyncapi/parser`'s document API it
 * uses (a parsed document is one), also implemented over a plain document by
 * generator/load/plain-document.ts.
 */
export interface ContractDocument {
  version(): string;
  defaultContentType(): string | undefined;
  info(): { title(): string; version(): string; description(): string | undefined };
  extensions(): ValueLookup;
  channels(): ModelList<ContractChannel>;
  operations(): ModelList<ContractOperation>;
}
export interface ContractOperation {
  id(): string | undefined;
  meta(): unknown;
  summary(): string | undefined;
  isSend(): boolean;
  bindings(): ValueLookup;
  channels(): ModelList<{ id(): string }>;
  messages(): ModelList<{ name(): string | undefined; id(): string }>;
  /** The operation's reply (AsyncAPI 3.x); a 2.x operation has none. Optional: readers written before keiyaku read it have none. */
  reply?(): ContractReply | undefined;
}
/** An operation's reply (AsyncAPI 3.x): where the reply goes and which messages it may be. */
export interface ContractReply {
  meta(): unknown;
  /** The runtime expression of the reply address (`$message.header#/replyTo`), when the reply gives one. */
  address(): { location(): string | undefined } | undefined;
  /** The reply channel, when the reply names one; `address()` null when the channel's address is dynamic. */
  channel(): { id(): string; address(): string | null | undefined } | undefined;
  messages(): ModelList<{ name(): string | undefined; id(): string | undefined }>;
}
