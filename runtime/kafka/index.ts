/** `@keiyaku/kafka`: the Kafka transport (kafkajs). */
export type { ContentMode } from '@keiyaku/runtime/adapter';
export type { KafkaClientStatus, KafkaTransportOptions } from './options.js';
export { DEFAULT_PUBLISH_TIMEOUT_MS, PublishTimeoutError } from './publish-timeout.js';
export { DEFAULT_TRANSACTION_TIMEOUT_MS, ProducerFencedError } from './transactions.js';
export { KafkaTransport } from './transport.js';
