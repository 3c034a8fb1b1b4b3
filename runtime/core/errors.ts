/**
 * The error taxonomy shared by the generator and the runtime.
 *
 * Every error carries a stable `code` and a `retriable` flag so that retry and
 * dead-letter logic decide from data, never from message text. Guards check the
 * `name` so they survive two copies of keiyaku in one process.
 */
import { isRetriable } from './retry.js';
export class KeiyakuError extends Error {
  override readonly name: string = 'KeiyakuError';
  readonly code: string;
  readonly retriable: boolean;

  constructor(code: string, message: string, options: { cause?: unknown; retriable?: boolean } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.retriable = options.retriable ?? false;
  }
}

/** True for any keiyaku error, also one thrown by another installed copy of keiyaku. */
export function isKeiyakuError(value: unknown): value is KeiyakuError {
  return (
    value instanceof Error &&
    typeof (value as { code?: unknown }).code === 'string' &&
    typeof (value as { retriable?: unknown }).retriable === 'boolean' &&
    /^[A-Z]\w*Error$/.test(value.name)
  );
}

/** A transport could not do what was asked (send, poll, commit). `retriable` says whether trying again can help. */
export class TransportError extends KeiyakuError {
  override readonly name = 'TransportError';
  readonly transport: string;
  readonly address: string | undefined;

  constructor(transport: string, message: string, options: { address?: string; retriable?: boolean; cause?: unknown } = {}) {
    super('transport_failed', message, { retriable: options.retriable ?? true, cause: options.cause });
    this.transport = transport;
    this.address = options.address;
  }
}

/** A publish failed after every retry; the message was not sent. */
export class PublishError extends KeiyakuError {
  override readonly name = 'PublishError';
  readonly channel: string;
  readonly messageType: string;
  readonly attempts: number;

  constructor(channel: string, messageType: string, attempts: number, cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(
      'publish_failed',
      `publishing ${messageType} to ${channel} failed after ${attempts} attempt${attempts === 1 ? '' : 's'}: ${reason}`,
      // Publishing again later can help exactly when the cause was transient.
      { cause, retriable: isRetriable(cause) },
    );
    this.channel = channel;
    this.messageType = messageType;
    this.attempts = attempts;
  }
}

/** Something was used after `close()`. */
export class ClosedError extends KeiyakuError {
  override readonly name = 'ClosedError';

  constructor(what: string) {
    super('closed', `${what} is closed`);
  }
}

/**
 * A transactional producer was fenced: another producer took its transactional id (a second
 * instance with the same id, or a restart of this one), so its open transaction was aborted and
 * it can write no more. Not retriable: only a new producer under that id can go on.
 */
export class ProducerFencedError extends TransportError {
  override readonly code: string = 'producer_fenced';
  readonly transactionalId: string;

  constructor(transport: string, transactionalId: string, what: string, options: { cause?: unknown } = {}) {
    super(
      transport,
      `${what} refused: the transactional producer ${transactionalId} was fenced by another producer with the same transactional id; give each instance its own transactionalId`,
      { retriable: false, cause: options.cause },
    );
    this.transactionalId = transactionalId;
  }
}

/** Kafka's own names of a fenced producer (kafkajs reports them as protocol error types). */
const FENCED_TYPES = new Set(['PRODUCER_FENCED', 'INVALID_PRODUCER_EPOCH', 'TRANSACTIONAL_ID_AUTHORIZATION_FAILED']);

/** Whether `error`, or an error it was caused by, says a transactional producer was fenced. */
export function isProducerFenced(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    if ((e as { code?: unknown }).code === 'producer_fenced') return true;
    const type = (e as { type?: unknown }).type;
    if (typeof type === 'string' && FENCED_TYPES.has(type)) return true;
  }
  return false;
}
