/** `keiyaku/iggy`: keiyaku's own client for Apache Iggy's binary protocol 0.11, the high-level SDK on top of it, and the Iggy transport (tested against an in-repo protocol double, and end to end against iggy-server when IGGY_TCP_ADDRESS is set). Guide: docs/iggy.md. */

export type { ChannelSerde, IggyChannel, IggyPlacement } from './iggy/channel.js';
export { channelSerde, IggyChannelPublisher, iggyChannel } from './iggy/channel.js';
export type { IggyClientOptions, PooledPollReply, ReconnectionSettings } from './iggy/client.js';
export { IggyClient, messageIdFromUuid } from './iggy/client.js';
export type { ConnectionOptions } from './iggy/connection.js';
export { IggyConnection } from './iggy/connection.js';
export type { AutoCommit, IggyConsumerConfig, ReceivedMessage } from './iggy/consumer.js';
export { IggyConsumer, IggyConsumerBuilder, RentedPollBuffer, RentedReceivedMessage } from './iggy/consumer.js';
export { Consumer, Identifier, Partitioning, PollingStrategy, UserHeaders } from './iggy/kinds.js';
export { describeCode, IggyError } from './iggy/protocol/errors.js';
export { DEFAULT_PROTOCOL, PROTOCOLS, protocolFor } from './iggy/protocol/registry.js';
export type { CommandCodec, IggyCommands, IggyProtocol } from './iggy/protocol/version.js';
export type { IggyPublisherConfig, PublisherMessage } from './iggy/publisher.js';
export { IggyPublisher, IggyPublisherBuilder, IggyPublisherError } from './iggy/publisher.js';
export type { RentedMessage, RentedPayloadWriter } from './iggy/rented.js';
export { BufferPool, ObjectDisposedError, RentedMessageBatch, RentedMessageBatchBuilder, sharedPool } from './iggy/rented.js';
export type { IggyTransportOptions } from './iggy/transport.js';
export { IggyTransport } from './iggy/transport.js';
export type {
  DeserializedMessage,
  Deserializer,
  JsonSerializerOptions,
  MessageStatus,
  Serializer,
  TypedEntry,
} from './iggy/typed.js';
export {
  createConsumerBuilder,
  createPublisherBuilder,
  IggyTypedConsumer,
  IggyTypedConsumerBuilder,
  IggyTypedPublisher,
  IggyTypedPublisherBuilder,
  JsonSerializer,
} from './iggy/typed.js';
