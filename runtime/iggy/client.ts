/**
 * keiyaku's Iggy client: typed methods over one {@link IggyConnection}, in the protocol
 * generation the options choose (0.11 by default). Identifiers are numbers (ids from 0) or
 * names. Errors are {@link IggyError} (server said no, with stream/topic/partition context)
 * or TransportError (connection-level).
 */
import {
  type Clock,
  ClosedError,
  exponentialBackoff,
  isRetriable,
  type Logger,
  retry,
  stderrLogger,
  systemClock,
} from '@keiyaku/runtime/adapter';
import { type ConnectionOptions, IggyConnection } from './connection.js';
import type { BufferPool, RentedMessageBatch } from './pooled-batches.js';
import { IggyError } from './protocol/errors.js';
import type { Identifier, Partitioning } from './protocol/primitives.js';
import type {
  CommandCodec,
  ConsumerOffsetInfo,
  GroupDetails,
  IggyCommands,
  IggyProtocol,
  LoginReply,
  OffsetTarget,
  OutgoingMessage,
  PollReply,
  PollRequest,
  SendConfirmation,
  StreamInfo,
  SyncReply,
  TlvOptions,
  TopicInfo,
} from './protocol/version.js';

/** A poll whose reply lives in a buffer rented from a pool: the messages' payloads are views into `buffer`; give it back when done. */
export interface PooledPollReply {
  readonly reply: PollReply;
  readonly buffer: Uint8Array;
}

/** How the client replaces a connection that died (the C# SDK's ReconnectionSettings). */
export interface ReconnectionSettings {
  /** Reconnect on the next command after the connection died (default true). */
  readonly enabled?: boolean;
  /** Attempts per outage; 0 = until the server is back or the client is closed (default 0). */
  readonly maxRetries?: number;
  /** Delay before the second attempt, doubled per attempt (default 500 ms). */
  readonly initialDelayMs?: number;
  readonly maxDelayMs?: number;
}

export interface IggyClientOptions extends ConnectionOptions {
  readonly username?: string;
  readonly password?: string;
  readonly reconnection?: ReconnectionSettings;
  /**
   * Where reconnects, evictions and group rejoins are reported (by this client and by the
   * publishers, consumers and transport built on it). Default: the runtime's `stderrLogger`
   * (warnings and errors, one JSON line each); nothing is ever printed otherwise.
   */
  readonly logger?: Logger;
  /** The clock the client and what is built on it wait with (reconnect backoff, poll intervals, linger); default the system clock. */
  readonly clock?: Clock;
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
  #generation = 0;
  #reconnecting: Promise<LoginReply> | undefined;

  /** Where this client, and the publishers, consumers and transport built on it, report what they recover from. */
  readonly logger: Logger;
  /** The clock this client, and the publishers and consumers built on it, wait with. */
  readonly clock: Clock;

  constructor(options: IggyClientOptions) {
    this.#options = options;
    this.logger = options.logger ?? stderrLogger;
    this.clock = options.clock ?? systemClock;
    this.#connection = this.#open(options);
  }

  /** A new connection whose unsolicited evictions are logged. */
  #open(options: ConnectionOptions): IggyConnection {
    const connection = new IggyConnection(options);
    connection.onEviction((error) =>
      this.logger.warn('iggy: the server evicted this client; it reconnects on its next command', {
        server: this.#server,
        clientId: String(connection.clientId),
        reason: error.message,
      }),
    );
    return connection;
  }

  get #server(): string {
    return `${this.#options.host}:${this.#options.port}`;
  }

  /** The current connection (replaced when the client reconnects). */
  get connection(): IggyConnection {
    return this.#connection;
  }

  /**
   * How many times this client has logged in. A consumer that joined its group at an older
   * generation joins (and syncs) again before it polls: the server may have dropped the membership
   * with the old connection.
   */
  get generation(): number {
    return this.#generation;
  }

  /** Reconnections since the first login (generation − 1), for health. */
  get reconnectCount(): number {
    return Math.max(0, this.#generation - 1);
  }

  /** A reconnection is under way. */
  get reconnecting(): boolean {
    return this.#reconnecting !== undefined;
  }

  /** `close()` was called. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Whether a command after the connection died reconnects first (`reconnection.enabled`, default true). */
  get reconnects(): boolean {
    return this.#options.reconnection?.enabled !== false;
  }

  /** Connects and logs in with the configured credentials (default iggy/iggy). */
  async connect(): Promise<LoginReply> {
    await this.#connection.connect();
    const reply = await this.#connection.login(this.#options.username ?? 'iggy', this.#options.password ?? 'iggy');
    this.#generation++;
    return reply;
  }

  /**
   * Replaces the connection (after silence, an eviction or a closed socket): a new TCP
   * connection and a new login under the same client id (a server that kept the session across
   * its restart hands its group memberships back to it), retried with exponential backoff.
   * Concurrent calls share one attempt. See {@link generation} for rejoining groups.
   */
  reconnect(options: { attempts?: number; initialDelayMs?: number; maxDelayMs?: number } = {}): Promise<LoginReply> {
    this.#reconnecting ??= this.#reconnect(options).finally(() => {
      this.#reconnecting = undefined;
    });
    return this.#reconnecting;
  }

  async #reconnect(options: { attempts?: number; initialDelayMs?: number; maxDelayMs?: number }): Promise<LoginReply> {
    const settings = this.#options.reconnection ?? {};
    const attempts = options.attempts ?? settings.maxRetries ?? 0;
    // Doubling from the initial delay up to the cap, without jitter (the delays ReconnectionSettings documents).
    const backoff = exponentialBackoff({
      initialMs: options.initialDelayMs ?? settings.initialDelayMs ?? 500,
      maxMs: options.maxDelayMs ?? settings.maxDelayMs ?? 30_000,
      multiplier: 2,
      jitter: 0,
    });
    const clientId = this.#connection.clientId;
    const fields = { server: this.#server, clientId: String(clientId), generation: this.#generation };
    this.logger.warn('iggy: the connection is lost; reconnecting', fields);
    await this.#connection.close().catch(() => undefined);
    try {
      const reply = await retry(
        async () => {
          if (this.#closed) throw new ClosedError('the Iggy client');
          this.#connection = this.#open({ ...this.#options, ...(clientId === 0n ? {} : { clientId }) });
          try {
            return await this.connect();
          } catch (error) {
            await this.#connection.close().catch(() => undefined);
            throw error;
          }
        },
        {
          maxAttempts: attempts,
          backoff,
          clock: this.clock,
          onRetry: (error, attempt, delayMs) =>
            this.logger.debug('iggy: reconnect attempt failed; trying again', {
              ...fields,
              attempt,
              delayMs,
              error: error instanceof Error ? error.message : String(error),
            }),
        },
      );
      this.logger.info('iggy: reconnected and logged in again', { ...fields, generation: this.#generation });
      return reply;
    } catch (error) {
      const final = !isRetriable(error) ? 'not retriable' : `after ${attempts} attempt(s)`;
      if (!this.#closed)
        this.logger.error(`iggy: reconnecting failed (${final})`, {
          ...fields,
          error: error instanceof Error ? error.message : String(error),
        });
      throw error;
    }
  }

  /**
   * The connection to send on: when the current one died after a successful login and
   * reconnection is enabled, it is replaced first (calls wait meanwhile, as the C# SDK
   * pauses sending while it is not authenticated).
   */
  async #live(): Promise<IggyConnection> {
    if (this.#connection.alive || this.#generation === 0 || !this.reconnects) return this.#connection;
    await this.reconnect();
    return this.#connection;
  }

  /** Sends one command of this client's protocol generation on a live connection. */
  async #call<A extends readonly unknown[], R>(codec: CommandCodec<A, R>, ...args: A): Promise<R> {
    return (await this.#live()).call(codec, ...args);
  }

  /** The protocol generation this client speaks. */
  get protocol(): IggyProtocol {
    return this.#connection.protocol;
  }

  get #commands(): IggyCommands {
    return this.#connection.protocol.commands;
  }

  ping(): Promise<void> {
    return this.#call(this.#commands.ping);
  }

  getStream(stream: Identifier): Promise<StreamInfo | undefined> {
    return withContext(this.#call(this.#commands.getStream, stream), { stream });
  }

  async createStream(name: string, options: TlvOptions = []): Promise<StreamInfo> {
    return (await withContext(this.#call(this.#commands.createStream, name, options), { stream: name }))!;
  }

  getTopic(stream: Identifier, topic: Identifier): Promise<TopicInfo | undefined> {
    return withContext(this.#call(this.#commands.getTopic, stream, topic), { stream, topic });
  }

  async createTopic(stream: Identifier, name: string, partitions: number, options: TlvOptions = []): Promise<TopicInfo> {
    return (await withContext(this.#call(this.#commands.createTopic, stream, name, partitions, options), {
      stream,
      topic: name,
    }))!;
  }

  /**
   * Sends one batch. Requests go out one at a time on the connection, and a batch is encoded when
   * its turn comes, not when this is called: leave `messages` and their payloads unchanged until
   * the returned promise settles.
   */
  sendMessages(
    stream: Identifier,
    topic: Identifier,
    partitioning: Partitioning,
    messages: readonly OutgoingMessage[],
  ): Promise<SendConfirmation[]> {
    const partition = partitioning.kind === 'partition' ? partitioning.id : undefined;
    return withContext(this.#call(this.#commands.sendMessages, stream, topic, partitioning, messages), {
      stream,
      topic,
      ...(partition === undefined ? {} : { partition }),
    });
  }

  /**
   * Sends a rented batch without copying its payloads: the frame headers are written in place in
   * the batch's buffer and the buffer itself goes to the socket behind a small header. The caller
   * still owns the batch (dispose it after this settles).
   */
  async sendRentedBatch(
    stream: Identifier,
    topic: Identifier,
    partitioning: Partitioning,
    batch: RentedMessageBatch,
  ): Promise<SendConfirmation[]> {
    const partition = partitioning.kind === 'partition' ? partitioning.id : undefined;
    const codec = this.protocol.sendInPlace;
    const send = async (): Promise<SendConfirmation[]> => {
      const connection = await this.#live();
      const { batch: wire, header } = batch.wire(codec.seal, codec.frameHeaderSize);
      const payload = await connection.request(
        codec.name,
        codec.code,
        codec.operation,
        codec.encodeParts(stream, topic, partitioning, wire, header),
      );
      return codec.decode(payload);
    };
    return withContext(send(), { stream, topic, ...(partition === undefined ? {} : { partition }) });
  }

  pollMessages(request: PollRequest): Promise<PollReply> {
    const { stream, topic, partition } = request;
    return withContext(this.#call(this.#commands.pollMessages, request), {
      stream,
      topic,
      ...(partition === undefined ? {} : { partition }),
    });
  }

  /**
   * Like {@link pollMessages}, but the reply is assembled in a buffer rented from `pool`, and every
   * message's payload and headers are views into it. The caller owns `buffer` and gives it back
   * (`pool.give(buffer)`) when no message is needed any more; that revokes every view.
   */
  async pollMessagesPooled(request: PollRequest, pool: BufferPool): Promise<PooledPollReply> {
    const { stream, topic, partition } = request;
    const codec = this.#commands.pollMessages;
    const connection = await this.#live();
    const { payload, buffer } = await withContext(
      connection.requestPooled(codec.name, codec.code, codec.operation, codec.encode(request), pool),
      { stream, topic, ...(partition === undefined ? {} : { partition }) },
    );
    try {
      return { reply: codec.decode(payload), buffer };
    } catch (error) {
      pool.give(buffer);
      throw error;
    }
  }

  getConsumerOffset(target: OffsetTarget): Promise<ConsumerOffsetInfo | undefined> {
    return withContext(this.#call(this.#commands.getConsumerOffset, target), target);
  }

  storeConsumerOffset(target: OffsetTarget, offset: bigint): Promise<void> {
    return withContext(this.#call(this.#commands.storeConsumerOffset, target, offset), target);
  }

  deleteConsumerOffset(target: OffsetTarget): Promise<void> {
    return withContext(this.#call(this.#commands.deleteConsumerOffset, target), target);
  }

  async createConsumerGroup(stream: Identifier, topic: Identifier, name: string): Promise<GroupDetails> {
    return (await withContext(this.#call(this.#commands.createConsumerGroup, stream, topic, name), { stream, topic }))!;
  }

  getConsumerGroup(stream: Identifier, topic: Identifier, group: Identifier): Promise<GroupDetails | undefined> {
    return withContext(this.#call(this.#commands.getConsumerGroup, stream, topic, group), { stream, topic });
  }

  joinConsumerGroup(stream: Identifier, topic: Identifier, group: Identifier): Promise<void> {
    return withContext(this.#call(this.#commands.joinConsumerGroup, stream, topic, group), { stream, topic });
  }

  leaveConsumerGroup(stream: Identifier, topic: Identifier, group: Identifier): Promise<void> {
    return withContext(this.#call(this.#commands.leaveConsumerGroup, stream, topic, group), { stream, topic });
  }

  /** The caller's pollable partitions, or undefined when it is not a member. */
  syncConsumerGroup(stream: Identifier, topic: Identifier, group: Identifier): Promise<SyncReply | undefined> {
    return withContext(this.#call(this.#commands.syncConsumerGroup, stream, topic, group), { stream, topic });
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#connection.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
