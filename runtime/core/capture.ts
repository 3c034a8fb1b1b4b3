/**
 * The capture scope of a transactional handler attempt: while one runs, the publishes it makes
 * with the service's ordinary publishers (of the subscription's transport) are handed to the
 * attempt's buffer instead of the producer, and the belt sends them into its Kafka transaction
 * when the attempt succeeds. The scope follows the handler's async calls (AsyncLocalStorage).
 *
 * The storage is made by the first transactional attempt: a process without one never enables
 * it, and a publisher's check is one comparison.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { OutgoingRecord } from './transport.js';

/** Where the publishes of one transactional attempt go. */
export interface PublishCapture {
  /** The transport whose publishers are captured; publishers of another transport send as usual. */
  readonly transport: object;
  /**
   * Takes `record`; `ready` settles when its address is provisioned. Throws once the attempt has
   * ended (a publish not awaited inside the handler).
   */
  capture(record: OutgoingRecord, ready: Promise<void> | undefined): void;
}

let storage: AsyncLocalStorage<PublishCapture> | undefined;

/** Runs `fn` with publishes to `capture.transport` captured. */
export function withCapture<R>(capture: PublishCapture, fn: () => R): R {
  storage ??= new AsyncLocalStorage<PublishCapture>();
  return storage.run(capture, fn);
}

/** The capture scope in force for a publisher of `transport`, if any. */
export function activeCapture(transport: object | undefined): PublishCapture | undefined {
  if (storage === undefined || transport === undefined) return undefined;
  const capture = storage.getStore();
  return capture !== undefined && capture.transport === transport ? capture : undefined;
}
