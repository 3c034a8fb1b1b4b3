/** `@keiyaku/kafka`: the Kafka transport, on kafkajs or (by configuration) `@platformatic/kafka`. */
export type { ContentMode } from '@keiyaku/runtime/adapter';
// The fenced-producer error is the runtime's own (one class for every transport); it stays importable from here.
export { ProducerFencedError } from '@keiyaku/runtime/adapter';
export { createKafkaTransport, KAFKA_DRIVERS, type KafkaDriver, type KafkaDriverTransport } from './driver.js';
export type { KafkaClientStatus, KafkaTransportOptions, PlatformaticClientOptions } from './options.js';
export { PlatformaticKafkaTransport } from './platformatic/transport.js';
export { DEFAULT_PUBLISH_TIMEOUT_MS, PublishTimeoutError } from './publish-timeout.js';
export { DEFAULT_TRANSACTION_TIMEOUT_MS } from './transactions.js';
export { KafkaTransport } from './transport.js';
