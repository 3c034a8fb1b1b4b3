/** `keiyaku/kafka`: the Kafka transport (kafkajs). */
export type { KafkaTransportOptions } from './transports/kafka.js';
export { KafkaTransport } from './transports/kafka.js';
