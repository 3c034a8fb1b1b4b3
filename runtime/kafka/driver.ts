/**
 * The Kafka driver a transport runs on: `kafkajs` (the default) or `platformatic`
 * (`@platformatic/kafka`). Both sit behind the same `Transport` interface and pass the same suites;
 * `createKafkaTransport` picks one from `options.driver`.
 */
import {
  type ChannelBindings,
  type ContentMode,
  KeiyakuError,
  type Logger,
  type TransactionalProducer,
  type Transport,
  type TransportHealth,
} from '@keiyaku/runtime/adapter';
import type { KafkaTransportOptions } from './options.js';
import { KafkaTransport } from './transport.js';

/** The Kafka clients keiyaku can run on. */
export const KAFKA_DRIVERS = ['kafkajs', 'platformatic'] as const;
export type KafkaDriver = (typeof KAFKA_DRIVERS)[number];

/** What a Kafka transport offers on either driver, beyond the `Transport` interface. */
export interface KafkaDriverTransport extends Transport {
  /** The client it runs on. */
  readonly driver: KafkaDriver;
  readonly options: KafkaTransportOptions;
  readonly logger: Logger;
  /** The topic of `address` (its channel binding's `topic` once provisioned, else the address), with the namespace. */
  topic(address: string): string;
  /** The consumer group of `groupId`, with the namespace. */
  group(groupId: string): string;
  /** How records for `address` are written. */
  contentMode(address: string): ContentMode;
  provision(address: string, bindings: ChannelBindings): Promise<void>;
  destination(address: string, bindings: ChannelBindings): string;
  destinationExists(address: string, bindings: ChannelBindings): Promise<boolean>;
  transactionalProducer(transactionalId: string): TransactionalProducer;
  health(): TransportHealth;
  useLogger(logger: Logger): void;
}

/** A Kafka transport on the driver `options.driver` names (default `kafkajs`). */
export function createKafkaTransport(options: KafkaTransportOptions): KafkaDriverTransport {
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
