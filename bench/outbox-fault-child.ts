/**
 * One outbox dispatcher process for bench/outbox-fault.ts: publishes the outbox of
 * OUTBOX_FAULT_STORE (a SQLite file, a PostgreSQL URL or a MySQL URL) to Kafka (KAFKA_BROKERS, topics under
 * OUTBOX_FAULT_NAMESPACE) until SIGTERM (graceful stop) or SIGKILL (the fault).
 * Prints `started` once it dispatches, and `sent` after each batch the broker acknowledged;
 * it then pauses 50 ms before the dispatcher marks the batch published, so a SIGKILL sent on
 * `sent` lands between the broker's acknowledgement and the mark: the worst case for duplicates.
 */
import { BookIntegrationEvents } from '../generated/index.js';
import type { Transport } from '../runtime/index.js';
import { KafkaTransport } from '../runtime/kafka/index.js';
import { MysqlOutbox } from '../runtime/mysql/index.js';
import { PostgresOutbox } from '../runtime/postgres/index.js';
import { SqliteOutbox } from '../runtime/sqlite/index.js';

const store = process.env['OUTBOX_FAULT_STORE']!;
const leaseMs = Number(process.env['OUTBOX_FAULT_LEASE_MS'] ?? 2_000);
const kafka = new KafkaTransport({
  brokers: process.env['KAFKA_BROKERS']!.split(','),
  namespace: process.env['OUTBOX_FAULT_NAMESPACE']!,
  retry: { retries: 3, initialRetryTime: 100, maxRetryTime: 1_000 },
});
const transport: Transport = {
  name: kafka.name,
  capabilities: kafka.capabilities,
  provision: (address, bindings) => kafka.provision(address, bindings),
  consumer: (options) => kafka.consumer(options),
  close: () => kafka.close(),
  producer() {
    const producer = kafka.producer();
    return {
      async send(records) {
        await producer.send(records);
        process.stdout.write('sent\n');
        await new Promise((resolve) => setTimeout(resolve, 50));
      },
      close: () => producer.close(),
    };
  },
};
const outbox = store.startsWith('postgres')
  ? new PostgresOutbox(store, { leaseMs })
  : store.startsWith('mysql:')
    ? new MysqlOutbox(store, { leaseMs })
    : new SqliteOutbox(store, { leaseMs });
outbox.channel(BookIntegrationEvents);
const dispatcher = outbox.dispatcher(
  { transport },
  { batchSize: 200, pollIntervalMs: 100, renewIntervalMs: Math.max(100, leaseMs / 4), retry: { initialMs: 100, maxMs: 1_000 } },
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
