/** `keiyaku/kafka`: the Kafka transport (kafkajs). */
export type { KafkaClientStatus, KafkaTransportOptions } from './transports/kafka.js';
export { KafkaTransport } from './transports/kafka.js';
