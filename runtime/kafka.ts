/** `keiyaku/kafka`: the Kafka transport (kafkajs). */

export type { ContentMode } from './core/structured.js';
export type { KafkaClientStatus, KafkaTransportOptions } from './transports/kafka.js';
export { KafkaTransport } from './transports/kafka.js';
export { DEFAULT_PUBLISH_TIMEOUT_MS, PublishTimeoutError } from './transports/kafka-publish-timeout.js';
