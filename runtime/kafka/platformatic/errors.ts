/**
 * What a `@platformatic/kafka` error means: the brokers unreachable, a leader still moving, a
 * rejected credential, a fenced producer. Its errors nest: a retried operation fails with a
 * `MultipleErrors` (an `AggregateError`) holding each attempt's error, and protocol errors carry
 * the broker's error name as `apiId`; the checks below look through both.
 */
import { isRetriable, TransportError } from '@keiyaku/runtime/adapter';

type Inner = { code?: unknown; apiId?: unknown; message?: unknown; errors?: unknown; cause?: unknown };

/** Whether `test` holds for `error` or any error it holds (attempts, causes), to a bounded depth. */
function some(error: unknown, test: (e: Inner) => boolean, depth = 0): boolean {
  if (error === null || typeof error !== 'object' || depth > 6) return false;
  const e = error as Inner;
  if (test(e)) return true;
  if (Array.isArray(e.errors)) for (const inner of e.errors) if (some(inner, test, depth + 1)) return true;
  return e.cause !== undefined && some(e.cause, test, depth + 1);
}

const CONNECTIVITY_CODES = new Set(['PLT_KFK_NETWORK', 'PLT_KFK_TIMEOUT']);
const CONNECTIVITY_API_IDS = new Set(['NETWORK_EXCEPTION', 'BROKER_NOT_AVAILABLE', 'REQUEST_TIMED_OUT', 'COORDINATOR_NOT_AVAILABLE']);
const CONNECTIVITY_MESSAGE =
  /ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EHOSTUNREACH|Connection (error|timeout|closed)|Connection ready timed out|socket hang up/i;

/** The brokers are unreachable (as opposed to a request they refused, or a credential: the client reports that as a failed connection too). */
export function isConnectivity(error: unknown): boolean {
  if (isAuthentication(error)) return false;
  return some(
    error,
    (e) =>
      CONNECTIVITY_CODES.has(e.code as string) ||
      CONNECTIVITY_API_IDS.has(e.apiId as string) ||
      (typeof e.message === 'string' && CONNECTIVITY_MESSAGE.test(e.message)),
  );
}

const LEADERSHIP_PENDING = new Set([
  'NOT_LEADER_OR_FOLLOWER',
  'LEADER_NOT_AVAILABLE',
  'UNKNOWN_TOPIC_OR_PARTITION',
  'UNKNOWN_LEADER_EPOCH',
  'FENCED_LEADER_EPOCH',
]);

/** This partition has no serving leader yet. */
export function isLeadershipPending(error: unknown): boolean {
  return some(error, (e) => LEADERSHIP_PENDING.has(e.apiId as string));
}

const AUTHENTICATION_API_IDS = new Set(['SASL_AUTHENTICATION_FAILED', 'ILLEGAL_SASL_STATE', 'UNSUPPORTED_SASL_MECHANISM']);

/** A rejected credential: not an outage, it faults loudly. */
export function isAuthentication(error: unknown): boolean {
  return some(error, (e) => e.code === 'PLT_KFK_AUTHENTICATION' || AUTHENTICATION_API_IDS.has(e.apiId as string));
}

const FENCED_API_IDS = new Set(['PRODUCER_FENCED', 'INVALID_PRODUCER_EPOCH', 'TRANSACTIONAL_ID_AUTHORIZATION_FAILED']);

/** A newer producer took the transactional id over. */
export function isFenced(error: unknown): boolean {
  return some(error, (e) => FENCED_API_IDS.has(e.apiId as string) || e.code === 'producer_fenced');
}

/** The topic exists already (a create that lost a race, or a second service starting). */
export function isTopicExists(error: unknown): boolean {
  return some(error, (e) => e.apiId === 'TOPIC_ALREADY_EXISTS');
}

/** An error's message with those of its causes: "Connection to … failed: SASL authentication failed." */
function withCauses(error: Inner): string {
  const parts: string[] = [];
  for (let e: unknown = error, depth = 0; e !== null && typeof e === 'object' && depth < 6; e = (e as Inner).cause, depth++) {
    const message = (e as Inner).message;
    if (typeof message === 'string' && message !== '' && !parts.includes(message)) parts.push(message.replace(/\.$/, ''));
  }
  return parts.join(': ');
}

/** The messages of the innermost errors too: "produce failed 6 times." says little by itself. */
function describe(error: unknown): string {
  const outer = error instanceof Error ? error.message : String(error);
  const inner = new Set<string>();
  const collect = (e: unknown, depth: number): void => {
    if (e === null || typeof e !== 'object' || depth > 6) return;
    const errors = (e as Inner).errors;
    if (Array.isArray(errors) && errors.length > 0) for (const x of errors) collect(x, depth + 1);
    else if (depth > 0 || (e as Inner).cause !== undefined) inner.add(withCauses(e as Inner));
  };
  collect(error, 0);
  inner.delete(outer);
  inner.delete(outer.replace(/\.$/, ''));
  return inner.size === 0 ? outer : `${outer} (${[...inner].slice(0, 3).join('; ')})`;
}

/** A client error as the runtime's `TransportError` (retriable unless it is an authentication failure or not retriable at all). */
export function toTransportError(error: unknown, address?: string): TransportError {
  if (error instanceof TransportError) return error;
  const retriable = !isAuthentication(error) && isRetriable(error);
  return new TransportError('kafka', describe(error), { ...(address ? { address } : {}), retriable, cause: error });
}
