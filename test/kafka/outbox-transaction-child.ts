/**
 * One transactional outbox dispatcher process for kafka-outbox-transactions.test.ts: publishes the
 * SQLite outbox at OUTBOX_TX_FILE to Kafka (KAFKA_BROKERS, topics under OUTBOX_TX_NAMESPACE) in
 * transactions under OUTBOX_TX_ID. Prints `started` once it dispatches. With OUTBOX_TX_HANG=1 every
 * transaction prints `sent` after its records went out and then never commits, so a SIGKILL on
 * `sent` kills the process mid-transaction. SIGTERM stops it gracefully.
 */
import { KafkaTransport } from '@keiyaku/kafka';
import type { Transport } from '@keiyaku/runtime';
import { outboxConformanceChannel } from '@keiyaku/runtime/testing';
import { SqliteOutbox } from '@keiyaku/sqlite';

const kafka = new KafkaTransport({
  brokers: process.env['KAFKA_BROKERS']!.split(','),
  namespace: process.env['OUTBOX_TX_NAMESPACE']!,
  retry: { retries: 3, initialRetryTime: 100, maxRetryTime: 1_000 },
});
const hang = process.env['OUTBOX_TX_HANG'] === '1';
const transport: Transport = {
  name: kafka.name,
  capabilities: kafka.capabilities,
  producer: () => kafka.producer(),
  consumer: (options) => kafka.consumer(options),
  close: () => kafka.close(),
  transactionalProducer(id) {
    const producer = kafka.transactionalProducer(id);
    return {
      transactionalId: producer.transactionalId,
      close: () => producer.close(),
      async begin() {
        const transaction = await producer.begin();
        return {
          sendOffsets: (group, offsets) => transaction.sendOffsets(group, offsets),
          abort: () => transaction.abort(),
          commit: () => transaction.commit(),
          async send(records) {
            await transaction.send(records);
            if (hang) {
              process.stdout.write('sent\n');
              await new Promise(() => undefined);
            }
          },
        };
      },
    };
  },
};
const outbox = new SqliteOutbox(process.env['OUTBOX_TX_FILE']!, { leaseMs: 1_000 });
outbox.channel(outboxConformanceChannel(process.env['OUTBOX_TX_ADDRESS']!));
const dispatcher = outbox.dispatcher(
  { transport },
  { batchSize: 50, pollIntervalMs: 100, renewIntervalMs: 250, transactional: { transactionalId: process.env['OUTBOX_TX_ID']! } },
);
process.on('SIGTERM', () => {
  void dispatcher
    .stop(AbortSignal.timeout(10_000))
    .then(() => transport.close())
    .then(() => process.exit(0));
});
try {
  await dispatcher.start();
  process.stdout.write('started\n');
} catch (error) {
  process.stderr.write(`outbox dispatcher did not start: ${String(error)}\n`);
  process.exit(1);
}
