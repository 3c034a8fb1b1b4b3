// The guard the platformatic driver puts on @platformatic/kafka 1.x's connection pool: a connection
// asked for a broker the cluster's metadata no longer names (a fenced node, still remembered as the
// group coordinator or a leader) is refused with a retriable stale-metadata error, not a TypeError
// thrown from a network callback. The leader-failover fault run (npm run fault:kafka-leader,
// LEADER_FAULT_KILL=coordinator) shows it against a real cluster; this needs no broker.
import * as kafka from '@platformatic/kafka';
import { describe, expect, it } from 'vitest';
import { guardStaleBrokers } from '../../runtime/kafka/platformatic/stale-broker.js';

describe('the platformatic driver on a broker missing from the metadata', () => {
  guardStaleBrokers(kafka);
  guardStaleBrokers(kafka); // once only: a second call does not wrap the guard again

  it('answers a callback with a retriable network error that marks the metadata stale', async () => {
    const pool = new kafka.ConnectionPool('stale-broker-test');
    try {
      const error = await new Promise<Error | null>((resolve) => {
        pool.get(undefined as unknown as kafka.Broker, (e) => resolve(e));
      });
      expect(error).toBeInstanceOf(kafka.NetworkError);
      const generic = error as kafka.GenericError;
      expect(generic.code).toBe('PLT_KFK_NETWORK');
      expect(generic.findBy('hasStaleMetadata', true)).toBeDefined();
      expect(generic.canRetry).toBe(true);
    } finally {
      await pool.close();
    }
  });

  it('rejects the promise form, and leaves a named broker to the pool', async () => {
    const pool = new kafka.ConnectionPool('stale-broker-test');
    try {
      await expect(pool.get({ host: undefined, port: 9092 } as unknown as kafka.Broker)).rejects.toThrow(
        /not in the current cluster metadata/,
      );
      // A broker with host and port goes to the pool itself: nothing listens on port 1, so it fails to connect.
      await expect(pool.get({ host: '127.0.0.1', port: 1 })).rejects.toBeInstanceOf(kafka.NetworkError);
    } finally {
      await pool.close();
    }
  });
});
