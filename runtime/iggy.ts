/** `keiyaku/iggy`: keiyaku's own client for Apache Iggy's binary protocol 0.11 (work in progress: the keiyaku Iggy transport is not built yet). */
export type { IggyClientOptions } from './iggy/client.js';
export { IggyClient, messageIdFromUuid } from './iggy/client.js';
export type { ConnectionOptions } from './iggy/connection.js';
export { IggyConnection } from './iggy/connection.js';
export type { AutoCommit, IggyConsumerConfig, ReceivedMessage } from './iggy/consumer.js';
export { IggyConsumer, IggyConsumerBuilder } from './iggy/consumer.js';
export { describeCode, IggyError } from './iggy/protocol/errors.js';
export type { Consumer, Identifier, Partitioning, PollingStrategy } from './iggy/protocol/primitives.js';
export type { IggyPublisherConfig, PublisherMessage } from './iggy/publisher.js';
export { IggyPublisher, IggyPublisherBuilder, IggyPublisherError } from './iggy/publisher.js';
