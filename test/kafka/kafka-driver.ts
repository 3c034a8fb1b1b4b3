// The Kafka driver the suites run on, read from KAFKA_DRIVER: shared by the test files (through
// kafka-env.ts) and by the child processes they spawn (which inherit the variable), outside vitest.
import { KAFKA_DRIVERS, type KafkaDriver } from '@keiyaku/kafka';

/** The driver the Kafka suites run on: `KAFKA_DRIVER` (kafkajs or platformatic), default kafkajs. */
export const kafkaDriver: KafkaDriver = (() => {
  const named = process.env['KAFKA_DRIVER'];
  if (named === undefined || named === '') return 'kafkajs';
  if (!(KAFKA_DRIVERS as readonly string[]).includes(named))
    throw new Error(`KAFKA_DRIVER=${named}: use one of ${KAFKA_DRIVERS.join(', ')}`);
  return named as KafkaDriver;
})();

/**
 * Why a test that is about one driver's own behaviour (kafkajs' socket factory, its log wording) is skipped on
 * this run: '' when the suites run on `driver`, else the reason, printed once so a skipped case is never silent.
 */
export function onlyOnDriver(driver: KafkaDriver, what: string): string {
  if (kafkaDriver === driver) return '';
  const reason = `${what}: ${driver} only, this run is KAFKA_DRIVER=${kafkaDriver}`;
  process.stdout.write(`skipped: ${reason}\n`);
  return reason;
}
