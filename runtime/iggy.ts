/** `keiyaku/iggy`: keiyaku's own client for Apache Iggy's binary protocol 0.11 (work in progress: no transport yet). */
export type { IggyClientOptions } from './iggy/client.js';
export { IggyClient, messageIdFromUuid } from './iggy/client.js';
export type { ConnectionOptions } from './iggy/connection.js';
export { IggyConnection } from './iggy/connection.js';
export { describeCode, IggyError } from './iggy/protocol/errors.js';
export type { Consumer, Identifier, Partitioning, PollingStrategy } from './iggy/protocol/primitives.js';
export type { IggyPublisherConfig, PublisherMessage } from './iggy/publisher.js';
export { IggyPublisher, IggyPublisherBuilder, IggyPublisherError } from './iggy/publisher.js';
