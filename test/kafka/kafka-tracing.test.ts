// W3C trace context across a publish → handle hop through a real Kafka broker: the trace
// context rides in the record headers, and the SDK's in-memory exporter sees one linked trace.
import { afterEach, describe, it } from 'vitest';
import { assertTraceCrossesHops, registerSdk, type Traced } from '../ops/trace-hop.js';
import { kafkaBrokers, kafkaSkipReason, testTransport } from './kafka-env.js';

let traced: Traced | undefined;
afterEach(async () => {
  await traced?.shutdown();
  traced = undefined;
});

(kafkaBrokers === '' ? describe.skip : describe)(`tracing over Kafka${kafkaSkipReason ? ` (${kafkaSkipReason})` : ''}`, () => {
  it.each(['binary', 'structured'] as const)(
    'links request → send → process → handler span → send → process across the broker (%s content mode)',
    async (contentMode) => {
      traced = registerSdk();
      const transport = testTransport({ contentMode });
      try {
        await assertTraceCrossesHops(transport, traced, 'kafka');
      } finally {
        await transport.close();
      }
    },
    90_000,
  );
});
