/**
 * The Kafka transport's publish timeout, keiyaku's equivalent of librdkafka's
 * `message.timeout.ms`: how long one send (connecting, kafkajs' own retries, the broker's
 * acknowledgment) may take before its caller is told with a {@link PublishTimeoutError}. It also
 * bounds how long a producer replaced during a rebuild drains: each of its in-flight sends has
 * told its caller by then. The send kafkajs still has going is left to finish or fail on its own;
 * its outcome is unknown to the caller, who retries (at least once).
 */
import { TransportError } from '@keiyaku/runtime/adapter';

/** librdkafka's default `message.timeout.ms`: five minutes. */
export const DEFAULT_PUBLISH_TIMEOUT_MS = 300_000;

/** A send to Kafka did not complete within the publish timeout; it may or may not have been written (retriable). */
export class PublishTimeoutError extends TransportError {
  override readonly code: string = 'publish_timeout';
  readonly timeoutMs: number;

  constructor(timeoutMs: number, address: string | undefined) {
    super(
      'kafka',
      `the send${address ? ` to ${address}` : ''} did not complete within the publish timeout of ${timeoutMs} ms (message.timeout.ms); its outcome is unknown`,
      { ...(address === undefined ? {} : { address }), retriable: true },
    );
    this.timeoutMs = timeoutMs;
  }
}

/** One send's deadline: every step it awaits races the same timer, started when the send began. */
export interface PublishDeadline {
  race<T>(work: Promise<T>): Promise<T>;
  clear(): void;
}

export function publishDeadline(timeoutMs: number | undefined, address: string | undefined): PublishDeadline {
  const ms = timeoutMs ?? DEFAULT_PUBLISH_TIMEOUT_MS;
  if (ms <= 0) return { race: (work) => work, clear: () => undefined };
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new PublishTimeoutError(ms, address)), ms);
  });
  expired.catch(() => undefined);
  return {
    race(work) {
      work.catch(() => undefined); // a step that fails after the deadline has no one to tell
      return Promise.race([work, expired]);
    },
    clear: () => clearTimeout(timer),
  };
}
