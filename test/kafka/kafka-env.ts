import { randomUUID } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import {
  createKafkaTransport,
  KAFKA_DRIVERS,
  type KafkaDriver,
  type KafkaDriverTransport,
  type KafkaTransportOptions,
} from '@keiyaku/kafka';
import { type Logger, silentLogger } from '@keiyaku/runtime';
import { inject } from 'vitest';

/** Brokers from the global setup, or the reason Kafka tests are skipped. */
export const kafkaBrokers = inject('kafkaBrokers');
export const kafkaSkipReason = inject('kafkaSkipReason');

/**
 * With KAFKA_TEST_LOG=<file>, every test transport appends its log (kafkajs' own lines included,
 * with milliseconds since the test file started) to that file — for finding out where a slow
 * Kafka test spends its time. Without it, test transports are silent.
 */
const logFile = process.env['KAFKA_TEST_LOG'];
const started = Date.now();
export const testLogger: Logger =
  logFile === undefined || logFile === ''
    ? silentLogger
    : (() => {
        const line =
          (level: string) =>
          (message: string, fields?: Readonly<Record<string, unknown>>): void =>
            appendFileSync(logFile, `${Date.now() - started} ${level} ${message}${fields ? ` ${JSON.stringify(fields)}` : ''}\n`);
        return { debug: line('debug'), info: line('info'), warn: line('warn'), error: line('error') };
      })();

/** The driver the Kafka suites run on: `KAFKA_DRIVER` (kafkajs or platformatic), default kafkajs. */
export const kafkaDriver: KafkaDriver = (() => {
  const named = process.env['KAFKA_DRIVER'];
  if (named === undefined || named === '') return 'kafkajs';
  if (!(KAFKA_DRIVERS as readonly string[]).includes(named))
    throw new Error(`KAFKA_DRIVER=${named}: use one of ${KAFKA_DRIVERS.join(', ')}`);
  return named as KafkaDriver;
})();

/** A transport tuned for tests, on {@link kafkaDriver}: short waits and a unique namespace so runs never share topics or groups. */
export function testTransport(options: Partial<KafkaTransportOptions> = {}): KafkaDriverTransport {
  return createKafkaTransport({
    driver: kafkaDriver,
    brokers: kafkaBrokers.split(','),
    clientId: 'keiyaku-tests',
    namespace: `t${randomUUID().slice(0, 8)}`,
    sessionTimeoutMs: 6_000,
    heartbeatIntervalMs: 500,
    maxWaitTimeInMs: 100,
    logger: testLogger,
    retry: { retries: 5, initialRetryTime: 100, maxRetryTime: 2_000 },
    // KAFKA_GROUP_PROTOCOL=consumer: the KIP-848 group protocol (the platformatic driver on Kafka 4.x).
    ...(process.env['KAFKA_GROUP_PROTOCOL'] === 'consumer' ? { groupProtocol: 'consumer' as const } : {}),
    ...options,
  });
}
