/** `@keiyaku/iggy`: keiyaku's own client for Apache Iggy's binary protocol 0.11, the high-level SDK on top of it, and the Iggy transport (tested against an in-repo protocol double, and end to end against iggy-server when IGGY_TCP_ADDRESS is set). Guide: docs/iggy.md. */

export type { ChannelSerde, IggyChannel, IggyPlacement } from './channel.js';
export { channelSerde, IggyChannelPublisher, iggyChannel } from './channel.js';
export type { IggyClientOptions, PooledPollReply, ReconnectionSettings } from './client.js';
export { IggyClient } from './client.js';

import { IggyConnection as Connection, type ConnectionOptions } from './connection.js';

export type { ConnectionOptions } from './connection.js';
export type { AutoCommit, IggyConsumerConfig, ReceivedMessage } from './consumer.js';
export { IggyConsumer, IggyConsumerBuilder, RentedPollBuffer, RentedReceivedMessage } from './consumer.js';
export { IggyHeaderError, MAX_HEADER_BYTES, messageIdFromUuid } from './envelope-headers.js';
export type { RentedMessage, RentedPayloadWriter } from './pooled-batches.js';
export { BufferPool, ObjectDisposedError, RentedMessageBatch, RentedMessageBatchBuilder, sharedPool } from './pooled-batches.js';
export { describeCode, IggyError } from './protocol/errors.js';
export { DEFAULT_PROTOCOL, PROTOCOLS, protocolFor } from './protocol/registry.js';
export type { CommandCodec, IggyCommands, IggyProtocol } from './protocol/version.js';
export type { IggyPublisherConfig, PublisherMessage } from './publisher.js';
export { IggyPublisher, IggyPublisherBuilder, IggyPublisherError } from './publisher.js';
export type { IggyTransportOptions } from './transport.js';
export { IggyTransport } from './transport.js';
export type {
  DeserializedMessage,
  Deserializer,
  JsonSerializerOptions,
  MessageStatus,
  Serializer,
  TypedEntry,
} from './typed-builders.js';
export {
  createConsumerBuilder,
  createPublisherBuilder,
  IggyTypedConsumer,
  IggyTypedConsumerBuilder,
  IggyTypedPublisher,
  IggyTypedPublisherBuilder,
  JsonSerializer,
} from './typed-builders.js';
export { Consumer, Identifier, Partitioning, PollingStrategy, UserHeaders } from './value-factories.js';

/**
 * @deprecated The raw connection is internal since 0.2: use {@link IggyClient}, which owns its
 * connection (reconnects, logging, protocol choice). Still exported until 1.0; constructing one
 * emits a `DeprecationWarning` (`KEIYAKU_IGGY_CONNECTION`) once.
 */
export class IggyConnection extends Connection {
  constructor(options: ConnectionOptions) {
    if (!connectionWarned) {
      connectionWarned = true;
      process.emitWarning('IggyConnection from @keiyaku/iggy is deprecated: use IggyClient, which owns its connection', {
        type: 'DeprecationWarning',
        code: 'KEIYAKU_IGGY_CONNECTION',
      });
    }
    super(options);
  }
}
let connectionWarned = false;
