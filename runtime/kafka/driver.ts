/**
 * The Kafka driver a transport runs on: `kafkajs` (the default) or `platformatic`
 * (`@platformatic/kafka`). Both sit behind the same `Transport` interface and pass the same suites;
 * `createKafkaTransport` picks one from `options.driver`.
 */
import { KeiyakuError } from '@keiyaku/runtime/adapter';
import { KAFKA_DRIVERS, type KafkaDriverTransport, type KafkaTransportOptions } from './options.js';
import { PlatformaticKafkaTransport } from './platformatic/transport.js';
import { KafkaTransport } from './transport.js';

export { KAFKA_DRIVERS, type KafkaDriver, type KafkaDriverTransport } from './options.js';

/** A Kafka transport on the driver `options.driver` names (default `kafkajs`). */
export function createKafkaTransport(options: KafkaTransportOptions): KafkaDriverTransport {
  const driver = options.driver ?? 'kafkajs';
  switch (driver) {
    case 'kafkajs':
      return new KafkaTransport(options);
    case 'platformatic':
      return new PlatformaticKafkaTransport(options);
    default:
      throw new KeiyakuError('kafka_driver_unknown', `unknown Kafka driver "${String(driver)}"; use one of ${KAFKA_DRIVERS.join(', ')}`);
  }
}
