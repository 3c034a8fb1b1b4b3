/**
 * @internal A guard for `@platformatic/kafka` 1.x, found by the leader-failover fault run
 * (bench/kafka-leader-fault.ts). When a broker dies, a client still asks for a connection to it by
 * node id (the group coordinator it remembers, a leader it remembers), and once the controller has
 * fenced the broker the cluster's metadata no longer names it: 1.x hands `undefined` to its
 * connection pool, which throws a TypeError inside a network callback — an uncaught exception that
 * ends the service. 2.3.1 answers the same request with a retriable network error that marks the
 * metadata stale (upstream #320); this gives 1.x that answer, so the client retries, and the
 * driver counts the client as cut off (and rebuilds it if that lasts) instead of the process dying.
 */
import type { PlatformaticModule } from './client.js';

const GUARDED = Symbol.for('keiyaku.kafka.platformatic.staleBrokerGuard');

type Get = (broker: unknown, callback?: (error: Error | null, connection?: unknown) => void) => unknown;

/** Installs the guard on the module's connection pool, once; a pool that already checks is unaffected by it. */
export function guardStaleBrokers(kafka: PlatformaticModule): void {
  const pool = kafka.ConnectionPool?.prototype as unknown as ({ get: Get } & Record<symbol, boolean>) | undefined;
  if (pool === undefined || typeof pool.get !== 'function' || pool[GUARDED]) return;
  const get = pool.get;
  pool.get = function guardedGet(this: unknown, broker, callback) {
    const b = broker as { host?: unknown; port?: unknown } | null | undefined;
    if (b != null && b.host != null && b.port != null) return get.call(this, broker, callback);
    const error = new kafka.NetworkError('Cannot get a connection: the broker is not in the current cluster metadata.', {
      canRetry: true,
      hasStaleMetadata: true,
    });
    if (callback === undefined) return Promise.reject(error);
    callback(error);
    return undefined;
  };
  Object.defineProperty(pool, GUARDED, { value: true });
}
