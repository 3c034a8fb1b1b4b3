// The transport conformance suite on a real Kafka broker.
import { runTransportConformance } from '@keiyaku/runtime/testing';
import { describe, it } from 'vitest';
import { kafkaBrokers, kafkaSkipReason, testTransport } from './kafka-env.js';

if (kafkaBrokers === '') {
  describe.skip(`Kafka conformance (${kafkaSkipReason})`, () => {
    it('needs a broker', () => {});
  });
} else {
  await runTransportConformance({ name: 'kafka', create: async () => ({ transport: testTransport() }), partitions: 3, timeoutMs: 30_000 });
  // The same behaviour with every record written as a structured CloudEvent (the event in the value).
  await runTransportConformance({
    name: 'kafka, structured content mode',
    create: async () => ({ transport: testTransport({ contentMode: 'structured' }) }),
    partitions: 3,
    timeoutMs: 30_000,
  });
}
