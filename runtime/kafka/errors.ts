/** What a kafkajs error means: the brokers unreachable, a leader still moving, a rejected credential. */
import { isRetriable, TransportError } from '@keiyaku/runtime/adapter';

/** kafkajs errors that mean "the brokers are unreachable", as opposed to a bad request. */
export function isConnectivity(error: unknown): boolean {
  const name = (error as { name?: string } | undefined)?.name ?? '';
  const message = (error as { message?: string } | undefined)?.message ?? String(error);
  return (
    /KafkaJS(Connection|ConnectionClosed|RequestTimeout|NoBrokerAvailable|BrokerNotFound|NumberOfRetriesExceeded|GroupCoordinatorNotFound)Error/.test(
      name,
    ) ||
    // "Closed connection" / "Connection closed by the server": the broker's end of the stream (an orderly
    // close reads so, a reset reads ECONNRESET; an outage gives either, by timing).
    /ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|Connection (error|timeout|closed)|Closed connection|not connected|Broker not connected|Request timed out|Failed to connect|No broker available/i.test(
      message,
    )
  );
}

/** Protocol errors that mean "this partition has no serving leader yet" (kafkajs error types, also inside a retry's cause). */
const LEADERSHIP_PENDING = new Set([
  'NOT_LEADER_FOR_PARTITION',
  'LEADER_NOT_AVAILABLE',
  'UNKNOWN_TOPIC_OR_PARTITION',
  'UNKNOWN_LEADER_EPOCH',
  'FENCED_LEADER_EPOCH',
]);

export function isLeadershipPending(error: unknown): boolean {
  for (let e = error as { type?: string; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (e.type !== undefined && LEADERSHIP_PENDING.has(e.type)) return true;
  }
  return false;
}

/** A rejected credential: not an outage, it faults loudly. */
export function isAuthentication(error: unknown): boolean {
  const name = (error as { name?: string } | undefined)?.name ?? '';
  const message = (error as { message?: string } | undefined)?.message ?? '';
  return name === 'KafkaJSSASLAuthenticationError' || /SASL.*(authentication|failed)|Authentication failed/i.test(message);
}

/** A kafkajs error as the runtime's `TransportError` (retriable unless it is an authentication failure or not retriable at all). */
export function toTransportError(error: unknown, address?: string): TransportError {
  if (error instanceof TransportError) return error;
  const message = error instanceof Error ? error.message : String(error);
  const retriable = !isAuthentication(error) && isRetriable(error);
  return new TransportError('kafka', message, { ...(address ? { address } : {}), retriable, cause: error });
}
