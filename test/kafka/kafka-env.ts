import { randomUUID } from 'node:crypto';
import { KafkaTransport, type KafkaTransportOptions } from '@keiyaku/kafka';
import { silentLogger } from '@keiyaku/runtime';
import { inject } from 'vitest';

/** Brokers from the global setup, or the reason Kafka tests are skipped. */
export const kafkaBrokers = inject('kafkaBrokers');
export const kafkaSkipReason = inject('kafkaSkipReason');

/** A transport tuned for tests: short waits and a unique namespace so runs never share topics or groups. */
export function testTransport(options: Partial<KafkaTransportOptions> = {}): KafkaTransport {
  return new KafkaTransport({
    brokers: kafkaBrokers.split(','),
    clientId: 'keiyaku-tests',
    namespace: `t${randomUUID().slice(0, 8)}`,
    sessionTimeoutMs: 6_000,
    heartbeatIntervalMs: 500,
    maxWaitTimeInMs: 100,
    logger: silentLogger,
    retry: { retries: 5, initialRetryTime: 100, maxRetryTime: 2_000 },
    ...options,
  });
}
