/**
 * From domain events to the public contract: a {@link Mapper} turns each domain event into a
 * contract message or `null` (not published); an {@link EventMapper} may also give the message
 * its contract headers ({@link withHeaders}). The event relay and the outbox both map through it.
 *
 * Domain events and contract messages are apart by construction: a mapper's target must
 * be a contract message (branded), so a domain event type cannot be the target, and a
 * publisher only takes contract messages.
 */
import { type AnyContractMessage, type HeadersOf, messageType } from '../../core/contract.js';
import { KeiyakuError } from '../../core/errors.js';

/** What a mapper knows about the stored event beside the event itself. */
export interface EventMapperContext {
  readonly aggregateId: string;
  /** Global position in the event store. */
  readonly position: number;
  readonly timestamp: Date;
  /** Id of the stored event; becomes the causation id of what is published. */
  readonly eventId: string;
  readonly correlationId?: string;
  readonly causationId?: string;
  readonly metadata: Readonly<Record<string, string>>;
}

/** Domain event → contract message, or `null` to keep the event internal. */
export interface Mapper<D, M extends AnyContractMessage> {
  map(event: D, context: EventMapperContext): M | null;
}

/**
 * A contract message with the contract headers it travels with (built by {@link withHeaders}).
 * One member per message type of `M`, so the headers are those the message's own headers schema
 * declares.
 */
export type MessageWithHeaders<M extends AnyContractMessage> = M extends AnyContractMessage
  ? { readonly message: M; readonly headers: HeadersOf<M> }
  : never;

/**
 * The messages of `M` that may go without headers: those whose contract declares no header as
 * required. A message whose headers schema requires one (a tenant id) must come with its headers.
 */
export type WithoutRequiredHeaders<M extends AnyContractMessage> = M extends AnyContractMessage
  ? // biome-ignore lint/complexity/noBannedTypes: `{}` is the empty headers object here, not "any non-nullish value"
    {} extends HeadersOf<M>
    ? M
    : never
  : never;

/**
 * What an {@link EventMapper} returns: a contract message, a message with its headers
 * ({@link withHeaders}), or `null`. A message whose headers schema requires a header can only be
 * returned with its headers: the compiler refuses it bare (it would fail validation at run time).
 */
export type Mapped<M extends AnyContractMessage> = WithoutRequiredHeaders<M> | MessageWithHeaders<M> | null;

/**
 * A mapper that may give a message its contract headers: `map` returns `withHeaders(message,
 * headers)` where the message's headers schema asks for values the event knows (a tenant id).
 * The outbox's `writeEvents` and the event relay (`EventRelay`) take one. Every {@link Mapper} is one
 * whose channel declares no required header; on a channel that does, the compiler asks for an
 * `EventMapper` that returns those messages with their headers.
 */
export interface EventMapper<D, M extends AnyContractMessage> {
  map(event: D, context: EventMapperContext): Mapped<M>;
}

/**
 * `message` with the contract `headers` it is to be published with, for a mapper to return.
 * The headers are validated with the message (by the codec, at the write or the publish).
 *
 * ```ts
 * map: (event, context) => withHeaders(ParcelScanned.create({ … }), { tenantId: event.tenantId })
 * ```
 */
export function withHeaders<T extends AnyContractMessage>(message: T, headers: HeadersOf<T>): MessageWithHeaders<T> {
  return Object.freeze({ message, headers }) as unknown as MessageWithHeaders<T>;
}

/** A mapper returned something that is neither a contract message, a message with headers, nor null. */
export class MapperResultError extends KeiyakuError {
  override readonly name = 'MapperResultError';

  constructor(what: string) {
    super(
      'mapper_result',
      `a mapper returned ${what}: return a contract message (from a generated factory), withHeaders(message, headers), or null to keep the event internal`,
    );
  }
}

function isContractMessage(value: unknown): value is AnyContractMessage {
  return typeof value === 'object' && value !== null && typeof (value as Partial<AnyContractMessage>)[messageType] === 'string';
}

/**
 * @internal The message and contract headers of a mapper's result (undefined headers when it
 * gave none); null when the event stays internal. Throws {@link MapperResultError} for anything else.
 */
export function unwrapMapped<M extends AnyContractMessage>(
  result: Mapped<M>,
): { readonly message: M; readonly headers?: HeadersOf<M> } | null {
  if (result === null) return null;
  if (isContractMessage(result)) return { message: result as M };
  if (typeof result === 'object' && result !== undefined && isContractMessage((result as { message?: unknown }).message)) {
    const { message, headers } = result as { readonly message: M; readonly headers?: HeadersOf<M> };
    return headers === undefined ? { message } : { message, headers };
  }
  throw new MapperResultError(
    result === undefined
      ? 'undefined (a missing return?)'
      : typeof result === 'object'
        ? 'an object that is not a contract message (a domain event or a plain object literal?)'
        : `a ${typeof result}`,
  );
}
