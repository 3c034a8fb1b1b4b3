/**
 * One transactional outbox dispatcher process for kafka-outbox-transactions.test.ts: publishes the
 * SQLite outbox at OUTBOX_TX_FILE to Kafka (KAFKA_BROKERS, topics under OUTBOX_TX_NAMESPACE) in
 * transactions under OUTBOX_TX_ID. Prints `started` once it dispatches. With OUTBOX_TX_HANG=1 every
 * transaction prints `sent` after its records went out and then never commits, so a SIGKILL on
 * `sent` kills the process mid-transaction. With OUTBOX_TX_STOP_AFTER_COMMIT=1 the first transaction
 * prints `committed` after its commit and the process then never marks its rows published, so a
 * SIGKILL on `committed` kills it between the two. SIGTERM stops it gracefully.
 */
import { createKafkaTransport } from '@keiyaku/kafka';
import type { Transport } from '@keiyaku/runtime';
import { outboxConformanceChannel } from '@keiyaku/runtime/testing';
import { SqliteOutbox } from '@keiyaku/sqlite';
import { kafkaDriver } from './kafka-driver.js';

const kafka = createKafkaTransport({
  driver: kafkaDriver,
  brokers: process.env['KAFKA_BROKERS']!.split(','),
  namespace: process.env['OUTBOX_TX_NAMESPACE']!,
  retry: { retries: 3, initialRetryTime: 100, maxRetryTime: 1_000 },
});
const hang = process.env['OUTBOX_TX_HANG'] === '1';
const stopAfterCommit = process.env['OUTBOX_TX_STOP_AFTER_COMMIT'] === '1';
const never = (): Promise<never> => new Promise<never>(() => undefined);
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
      lastNote: () => producer.lastNote!(),
      async begin() {
        const transaction = await producer.begin();
        return {
          sendOffsets: (group, offsets) => transaction.sendOffsets(group, offsets),
          abort: () => transaction.abort(),
          note: (value) => transaction.note!(value),
          async commit() {
            await transaction.commit();
            if (stopAfterCommit) {
              process.stdout.write('committed\n');
              await never();
            }
          },
          async send(records) {
            await transaction.send(records);
            if (hang) {
              process.stdout.write('sent\n');
              await never();
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
