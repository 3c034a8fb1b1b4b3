/**
 * The Kafka driver a transport runs on: `kafkajs` (the default) or `platformatic`
 * (`@platformatic/kafka`). Both sit behind the same `Transport` interface and pass the same suites;
 * `createKafkaTransport` picks one from `options.driver`.
 */
import { KeiyakuError, type Transport } from '@keiyaku/runtime/adapter';
import type { KafkaTransportOptions } from './options.js';
import { KafkaTransport } from './transport.js';

/** The Kafka clients keiyaku can run on. */
export const KAFKA_DRIVERS = ['kafkajs', 'platformatic'] as const;
export type KafkaDriver = (typeof KAFKA_DRIVERS)[number];

/** A Kafka transport on the driver `options.driver` names (default `kafkajs`). */
export function createKafkaTransport(options: KafkaTransportOptions): Transport {
  const driver = options.driver ?? 'kafkajs';
  switch (driver) {
    case 'kafkajs':
      return new KafkaTransport(options);
    case 'platformatic':
      throw new KeiyakuError('kafka_driver_unavailable', 'the platformatic Kafka driver is not built yet');
    default:
      throw new KeiyakuError('kafka_driver_unknown', `unknown Kafka driver "${String(driver)}"; use one of ${KAFKA_DRIVERS.join(', ')}`);
  }
}
