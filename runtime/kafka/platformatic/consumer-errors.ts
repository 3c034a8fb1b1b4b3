/**
 * What a `@platformatic/kafka` error means to the consumer: the brokers unreachable, a rejected
 * credential, an offset the partition no longer has, a leader that moved. Its errors nest (a
 * `MultipleErrors` holds one per broker or partition, a `NetworkError` the socket's error as its
 * cause), so each question walks the whole tree.
 */

interface ErrorNode {
  readonly code?: unknown;
  readonly apiId?: unknown;
  readonly message?: unknown;
  readonly cause?: unknown;
  readonly errors?: readonly unknown[];
}

/** Whether `error` or any error nested in it satisfies `test`. */
function some(error: unknown, test: (node: ErrorNode) => boolean, depth = 0): boolean {
  if (error === null || typeof error !== 'object' || depth > 6) return false;
  const node = error as ErrorNode;
  if (test(node)) return true;
  if (node.cause !== undefined && some(node.cause, test, depth + 1)) return true;
  if (Array.isArray(node.errors)) for (const inner of node.errors) if (some(inner, test, depth + 1)) return true;
  return false;
}

const UNREACHABLE =
  /ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EHOSTUNREACH|Connection (error|timeout|closed)|Closed connection|not connected|timed out/i;

/** The brokers are unreachable (a socket error, a closed connection, a request timeout), as opposed to a bad request. */
export function isConnectivity(error: unknown): boolean {
  return some(
    error,
    (e) =>
      e.code === 'PLT_KFK_NETWORK' ||
      e.code === 'PLT_KFK_TIMEOUT' ||
      e.apiId === 'COORDINATOR_NOT_AVAILABLE' ||
      e.apiId === 'NETWORK_EXCEPTION' ||
      (typeof e.code === 'string' && UNREACHABLE.test(e.code)) ||
      (typeof e.message === 'string' && UNREACHABLE.test(e.message)),
  );
}

/** A rejected credential: not an outage, it faults loudly. */
export function isAuthentication(error: unknown): boolean {
  return some(
    error,
    (e) =>
      e.code === 'PLT_KFK_AUTHENTICATION' ||
      e.apiId === 'SASL_AUTHENTICATION_FAILED' ||
      e.apiId === 'ILLEGAL_SASL_STATE' ||
      e.apiId === 'UNSUPPORTED_SASL_MECHANISM' ||
      (typeof e.message === 'string' && /SASL.*(authentication|failed)|Authentication failed/i.test(e.message)),
  );
}

/** Whether the broker answered with protocol error `apiId` (e.g. `OFFSET_OUT_OF_RANGE`) anywhere in `error`. */
export function hasProtocolError(error: unknown, apiId: string): boolean {
  return some(error, (e) => e.apiId === apiId);
}

/** The message of `error` with the first nested message that says more, for logs and faults. */
export function describe(error: unknown): string {
  const parts: string[] = [];
  some(error, (e) => {
    if (typeof e.message === 'string' && e.message !== '' && !parts.includes(e.message)) parts.push(e.message);
    return parts.length >= 3;
  });
  return parts.length === 0 ? String(error) : parts.join(': ');
}
