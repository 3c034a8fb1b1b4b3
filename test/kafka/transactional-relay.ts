// A service with one transactional subscription, run as a child process by
// kafka-transactional.test.ts (so that it can be SIGKILLed mid-batch): it reads loans and
// publishes one reminder per loan (the loan's copy id as the title), in Kafka transactions.
// It prints `handled <copyId>` per handler call, then runs until it is killed.
import { createKafkaTransport } from '@keiyaku/kafka';
import { createMessaging, silentLogger } from '@keiyaku/runtime';
import { BookIntegrationEvents, DueDateReminder, MemberNotifications } from '../../generated/index.js';
import { kafkaDriver } from './kafka-driver.js';

const env = (name: string): string => {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`transactional-relay: ${name} is required`);
  return value;
};

const transport = createKafkaTransport({
  driver: kafkaDriver,
  brokers: env('KAFKA_BROKERS').split(','),
  clientId: 'keiyaku-tests-relay',
  namespace: env('RELAY_NAMESPACE'),
  sessionTimeoutMs: 6_000,
  heartbeatIntervalMs: 500,
  maxWaitTimeInMs: 100,
  retry: { retries: 5, initialRetryTime: 100, maxRetryTime: 2_000 },
});
const messaging = createMessaging({ transport, logger: silentLogger });
const memberId = 'M-1001';
const reminders = messaging.publisher(MemberNotifications, { parameters: { memberId } });
const delayMs = Number(process.env['RELAY_DELAY_MS'] ?? '0');
messaging.subscribe(
  BookIntegrationEvents,
  {
    groupId: env('RELAY_GROUP'),
    async handle(message) {
      await reminders.publish(
        DueDateReminder.create({ memberId, loans: [{ bookId: message.bookId, title: message.copyId, dueAt: '2026-11-23T10:15:00Z' }] }),
      );
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
      process.stdout.write(`handled ${message.copyId}\n`);
    },
  },
  { transactional: { transactionalId: env('RELAY_TRANSACTIONAL_ID') }, batchSize: Number(process.env['RELAY_BATCH'] ?? '20') },
);
await messaging.start();
process.stdout.write('started\n');
