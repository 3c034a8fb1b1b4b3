// The transport conformance suite on a real Kafka broker.
import {
  runBatchConformance,
  runRequestReplyConformance,
  runRetryLaterConformance,
  runTransportConformance,
} from '@keiyaku/runtime/testing';
import { beforeEach, describe, it } from 'vitest';
import { kafkaBrokers, kafkaDriver, kafkaSkipReason, testLogger, testTransport } from './kafka-env.js';

// Marks where each case starts in the KAFKA_TEST_LOG file (kafka-env.ts), if one is kept.
beforeEach((context) => testLogger.info(`case: ${context.task.name}`));

if (kafkaBrokers === '') {
  describe.skip(`Kafka conformance (${kafkaSkipReason})`, () => {
    it('needs a broker', () => {});
  });
} else {
  await runTransportConformance({ name: 'kafka', create: async () => ({ transport: testTransport() }), partitions: 3, timeoutMs: 30_000 });
  // The batch handler cases (docs/batch-handlers.md), on the driver KAFKA_DRIVER names.
  await runBatchConformance({
    name: `kafka (${kafkaDriver})`,
    create: async () => ({ transport: testTransport() }),
    partitions: 3,
    timeoutMs: 30_000,
  });
  // The same behaviour with every record written as a structured CloudEvent (the event in the value).
  await runTransportConformance({
    name: 'kafka, structured content mode',
    create: async () => ({ transport: testTransport({ contentMode: 'structured' }) }),
    partitions: 3,
    timeoutMs: 30_000,
  });
  // The retry-later cases (retry tiers: topics and groups of their own) on the driver KAFKA_DRIVER selects.
  await runRetryLaterConformance({ name: 'kafka', create: async () => ({ transport: testTransport() }), partitions: 3, timeoutMs: 30_000 });
  await runRetryLaterConformance({
    name: 'kafka, structured content mode',
    create: async () => ({ transport: testTransport({ contentMode: 'structured' }) }),
    partitions: 3,
    timeoutMs: 30_000,
  });
  await runRequestReplyConformance({
    name: 'kafka',
    create: async () => ({ transport: testTransport() }),
    partitions: 3,
    timeoutMs: 30_000,
  });
}
