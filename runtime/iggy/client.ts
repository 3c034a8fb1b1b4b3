/**
 * keiyaku's Iggy client: typed methods over one {@link IggyConnection} (protocol 0.11).
 * Identifiers are numbers (ids from 0) or names. Errors are {@link IggyError} (server said
 * no, with stream/topic/partition context) or TransportError (connection-level).
 */
import { type ConnectionOptions, IggyConnection } from './connection.js';
import {
  CREATE_CONSUMER_GROUP,
  decodeGroupDetails,
  decodeSync,
  encodeCreateConsumerGroup,
  encodeGroupRef,
  GET_CONSUMER_GROUP,
  type GroupDetails,
  JOIN_CONSUMER_GROUP,
  LEAVE_CONSUMER_GROUP,
  SYNC_CONSUMER_GROUP,
  type SyncReply,
} from './protocol/commands/groups.js';
import type { LoginReply } from './protocol/commands/login-register.js';
import {
  decodePollReply,
  decodeSendReply,
  encodePollMessages,
  encodeSendMessages,
  type OutgoingMessage,
  POLL_MESSAGES,
  type PollReply,
  SEND_MESSAGES,
  type SendConfirmation,
} from './protocol/commands/messages.js';
import {
  type ConsumerOffsetInfo,
  DELETE_CONSUMER_OFFSET,
  decodeConsumerOffset,
  encodeDeleteConsumerOffset,
  encodeGetConsumerOffset,
  encodeStoreConsumerOffset,
  GET_CONSUMER_OFFSET,
  type OffsetTarget,
  STORE_CONSUMER_OFFSET,
} from './protocol/commands/offsets.js';
import {
  CREATE_STREAM,
  decodeStream,
  encodeCreateStream,
  encodeGetStream,
  GET_STREAM,
  type StreamInfo,
} from './protocol/commands/streams.js';
import { CREATE_TOPIC, decodeTopic, encodeCreateTopic, encodeGetTopic, GET_TOPIC, type TopicInfo } from './protocol/commands/topics.js';
import { IggyError } from './protocol/errors.js';
import type { Consumer, Identifier, Partitioning, PollingStrategy, TlvValue } from './protocol/primitives.js';

export interface IggyClientOptions extends ConnectionOptions {
  readonly username?: string;
  readonly password?: string;
}

function withContext<T>(promise: Promise<T>, context: { stream?: Identifier; topic?: Identifier; partition?: number }): Promise<T> {
  return promise.catch((error: unknown) => {
    if (error instanceof IggyError && error.stream === undefined) {
      throw new IggyError(error.status, error.command, {
        ...(context.stream === undefined ? {} : { stream: String(context.stream) }),
        ...(context.topic === undefined ? {} : { topic: String(context.topic) }),
        ...(context.partition === undefined ? {} : { partition: context.partition }),
      });
    }
    throw error;
  });
}

export class IggyClient implements AsyncDisposable {
  #connection: IggyConnection;
  readonly #options: IggyClientOptions;
  #closed = false;

  constructor(options: IggyClientOptions) {
    this.#options = options;
    this.#connection = new IggyConnection(options);
  }

  /** The current connection (replaced by {@link reconnect}). */
  get connection(): IggyConnection {
    return this.#connection;
  }

  /** Connects and logs in with the configured credentials (default iggy/iggy). */
  async connect(): Promise<LoginReply> {
    await this.#connection.connect();
    return this.#connection.login(this.#options.username ?? 'iggy', this.#options.password ?? 'iggy');
  }

  /**
   * Replaces the connection after it died (silence, eviction, a closed socket): a new TCP
   * connection, a new client id and a new login, retried with exponential backoff. Group
   * membership is per client id, so callers rejoin their groups afterwards.
   */
  async reconnect(options: { attempts?: number; initialDelayMs?: number; maxDelayMs?: number } = {}): Promise<LoginReply> {
    const attempts = options.attempts ?? 10;
    let delay = options.initialDelayMs ?? 100;
    await this.#connection.close().catch(() => undefined);
    for (let attempt = 1; ; attempt++) {
      if (this.#closed) throw new Error('the Iggy client is closed');
      this.#connection = new IggyConnection(this.#options);
      try {
        return await this.connect();
      } catch (error) {
        await this.#connection.close().catch(() => undefined);
        const retriable = (error as { retriable?: unknown }).retriable !== false;
        if (!retriable || attempt >= attempts) throw error;
        await new Promise((resolve) => setTimeout(resolve, delay));
        delay = Math.min(options.maxDelayMs ?? 5_000, delay * 2);
      }
    }
  }

  ping(): Promise<void> {
    return this.connection.ping();
  }

  async getStream(stream: Identifier): Promise<StreamInfo | undefined> {
    return decodeStream(
      await withContext(this.connection.request('get stream', GET_STREAM.code, GET_STREAM.operation, encodeGetStream(stream)), { stream }),
    );
  }

  async createStream(name: string, options: readonly (readonly [TlvValue, TlvValue])[] = []): Promise<StreamInfo> {
    const payload = await withContext(
      this.connection.request('create stream', CREATE_STREAM.code, CREATE_STREAM.operation, encodeCreateStream(name, options)),
      { stream: name },
    );
    return decodeStream(payload)!;
  }

  async getTopic(stream: Identifier, topic: Identifier): Promise<TopicInfo | undefined> {
    return decodeTopic(
      await withContext(this.connection.request('get topic', GET_TOPIC.code, GET_TOPIC.operation, encodeGetTopic(stream, topic)), {
        stream,
        topic,
      }),
    );
  }

  async createTopic(
    stream: Identifier,
    name: string,
    partitions: number,
    options: readonly (readonly [TlvValue, TlvValue])[] = [],
  ): Promise<TopicInfo> {
    const payload = await withContext(
      this.connection.request(
        'create topic',
        CREATE_TOPIC.code,
        CREATE_TOPIC.operation,
        encodeCreateTopic(stream, name, partitions, options),
      ),
      { stream, topic: name },
    );
    return decodeTopic(payload)!;
  }

  async sendMessages(
    stream: Identifier,
    topic: Identifier,
    partitioning: Partitioning,
    messages: readonly OutgoingMessage[],
  ): Promise<SendConfirmation[]> {
    const partition = partitioning.kind === 'partition' ? partitioning.id : undefined;
    const body = encodeSendMessages(stream, topic, partitioning, messages);
    return decodeSendReply(
      await withContext(this.connection.request('send messages', SEND_MESSAGES.code, SEND_MESSAGES.operation, body), {
        stream,
        topic,
        ...(partition === undefined ? {} : { partition }),
      }),
    );
  }

  async pollMessages(request: {
    consumer: Consumer;
    stream: Identifier;
    topic: Identifier;
    partition?: number;
    strategy: PollingStrategy;
    count: number;
    autoCommit: boolean;
  }): Promise<PollReply> {
    const { stream, topic, partition } = request;
    return decodePollReply(
      await withContext(
        this.connection.request('poll messages', POLL_MESSAGES.code, POLL_MESSAGES.operation, encodePollMessages(request)),
        { stream, topic, ...(partition === undefined ? {} : { partition }) },
      ),
    );
  }

  async getConsumerOffset(target: OffsetTarget): Promise<ConsumerOffsetInfo | undefined> {
    return decodeConsumerOffset(
      await withContext(
        this.connection.request(
          'get consumer offset',
          GET_CONSUMER_OFFSET.code,
          GET_CONSUMER_OFFSET.operation,
          encodeGetConsumerOffset(target),
        ),
        target,
      ),
    );
  }

  async storeConsumerOffset(target: OffsetTarget, offset: bigint): Promise<void> {
    await withContext(
      this.connection.request(
        'store consumer offset',
        STORE_CONSUMER_OFFSET.code,
        STORE_CONSUMER_OFFSET.operation,
        encodeStoreConsumerOffset(target, offset),
      ),
      target,
    );
  }

  async deleteConsumerOffset(target: OffsetTarget): Promise<void> {
    await withContext(
      this.connection.request(
        'delete consumer offset',
        DELETE_CONSUMER_OFFSET.code,
        DELETE_CONSUMER_OFFSET.operation,
        encodeDeleteConsumerOffset(target),
      ),
      target,
    );
  }

  async createConsumerGroup(stream: Identifier, topic: Identifier, name: string): Promise<GroupDetails> {
    return decodeGroupDetails(
      await withContext(
        this.connection.request(
          'create consumer group',
          CREATE_CONSUMER_GROUP.code,
          CREATE_CONSUMER_GROUP.operation,
          encodeCreateConsumerGroup(stream, topic, name),
        ),
        { stream, topic },
      ),
    )!;
  }

  async getConsumerGroup(stream: Identifier, topic: Identifier, group: Identifier): Promise<GroupDetails | undefined> {
    return decodeGroupDetails(
      await withContext(
        this.connection.request(
          'get consumer group',
          GET_CONSUMER_GROUP.code,
          GET_CONSUMER_GROUP.operation,
          encodeGroupRef(stream, topic, group),
        ),
        { stream, topic },
      ),
    );
  }

  async joinConsumerGroup(stream: Identifier, topic: Identifier, group: Identifier): Promise<void> {
    await withContext(
      this.connection.request(
        'join consumer group',
        JOIN_CONSUMER_GROUP.code,
        JOIN_CONSUMER_GROUP.operation,
        encodeGroupRef(stream, topic, group),
      ),
      { stream, topic },
    );
  }

  async leaveConsumerGroup(stream: Identifier, topic: Identifier, group: Identifier): Promise<void> {
    await withContext(
      this.connection.request(
        'leave consumer group',
        LEAVE_CONSUMER_GROUP.code,
        LEAVE_CONSUMER_GROUP.operation,
        encodeGroupRef(stream, topic, group),
      ),
      { stream, topic },
    );
  }

  /** The caller's pollable partitions, or undefined when it is not a member. */
  async syncConsumerGroup(stream: Identifier, topic: Identifier, group: Identifier): Promise<SyncReply | undefined> {
    return decodeSync(
      await withContext(
        this.connection.request(
          'sync consumer group',
          SYNC_CONSUMER_GROUP.code,
          SYNC_CONSUMER_GROUP.operation,
          encodeGroupRef(stream, topic, group),
        ),
        { stream, topic },
      ),
    );
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#connection.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

/** A 128-bit Iggy message id from a UUID string (the keiyaku event id). */
export function messageIdFromUuid(uuid: string): bigint {
  const hex = uuid.replace(/-/g, '');
  if (!/^[0-9a-f]{32}$/i.test(hex)) throw new RangeError(`not a UUID: ${uuid}`);
  return BigInt(`0x${hex}`);
}
