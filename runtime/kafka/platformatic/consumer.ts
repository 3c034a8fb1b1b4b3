/**
 * The consumer of the platformatic driver: one consumer group per handler `groupId`.
 * (Placeholder: the constructor signature the transport builds it with; the consumer itself lands next.)
 */
import {
  type ConsumerOptions,
  type IncomingRecord,
  KeiyakuError,
  type PartitionPosition,
  type TransportConsumer,
} from '@keiyaku/runtime/adapter';
import type { KafkaClientStatus } from '../options.js';
import type { PlatformaticClients } from './client.js';

/** @internal The consumer of one handler group on `@platformatic/kafka`. */
export class PlatformaticTransportConsumer implements TransportConsumer {
  readonly #topic: string;
  readonly #group: string;
  readonly #onClose: () => void;

  constructor(transport: PlatformaticClients, options: ConsumerOptions, onClose: () => void) {
    this.#topic = transport.topic(options.address);
    this.#group = transport.group(options.groupId);
    this.#onClose = onClose;
  }

  poll(_signal: AbortSignal): Promise<readonly IncomingRecord[]> {
    return Promise.reject(new KeiyakuError('kafka_driver_unavailable', 'the platformatic consumer is not built yet'));
  }

  ack(_record: IncomingRecord): void {}

  async commit(): Promise<void> {}

  pause(_partition: number): void {}

  resume(_partition: number): void {}

  positions(): readonly PartitionPosition[] {
    return [];
  }

  /** What `KafkaTransport.health()`-style reports show for this consumer. */
  status(): KafkaClientStatus {
    return { role: 'consumer', topic: this.#topic, group: this.#group, rebuilds: 0 };
  }

  async close(): Promise<void> {
    this.#onClose();
  }
}
