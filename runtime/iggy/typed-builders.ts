/**
 * Typed publishing and consuming on top of {@link IggyPublisher} and {@link IggyConsumer}:
 * a serializer turns items into payload bytes, a deserializer turns them back; the typed
 * consumer yields a status per message (the value, or why decoding failed) instead of
 * throwing. Unlike the C# SDK, the typed builder's fluent methods keep the typed builder,
 * so `IggyTypedPublisherBuilder.create(...).withX().build()` yields a typed publisher (and
 * `IggyTypedConsumerBuilder.create(...).withX().build()` a typed consumer).
 *
 * ```ts
 * await using consumer = IggyTypedConsumerBuilder.create(client, 'orders', 'placed', Consumer.group('billing'), new JsonSerializer<Order>())
 *   .withAutoCommit('after-receive')
 *   .build();
 * await consumer.init();
 * for await (const message of consumer.receiveDeserialized(signal)) {
 *   if (message.status === 'success') bill(message.data);
 * }
 * ```
 */
import type { IggyClient } from './client.js';
import { IggyConsumer, IggyConsumerBuilder, type IggyConsumerConfig, type ReceivedMessage } from './consumer.js';
import { type BufferPool, RentedMessageBatchBuilder, type RentedPayloadWriter, sharedPool } from './pooled-batches.js';
import type { Consumer, Identifier } from './protocol/primitives.js';
import { type IggyPublisher, IggyPublisherBuilder, type PublisherMessage } from './publisher.js';

/**
 * Turns an item into payload bytes (C#: `ISerializer<T>`). With `write` (C#:
 * `Serialize(data, IBufferWriter<byte>)`), the typed publisher serializes straight into its pooled
 * send buffer and sends that buffer as it is: no intermediate array per item. `serialize` stays the
 * fallback (and the whole contract of a serializer without `write`).
 */
export interface Serializer<T> {
  serialize(item: T): Uint8Array;
  /** Writes the item's payload into the send buffer (`writer.write(bytes)`, `writer.writeUtf8(text)`). */
  write?(item: T, writer: RentedPayloadWriter): void;
}

/** Turns payload bytes back into an item (C#: `IDeserializer<T>`). */
export interface Deserializer<T> {
  /** Returns the value or throws; the typed consumer turns a throw into a failed status. */
  deserialize(payload: Uint8Array): T;
}

/** Options of {@link JsonSerializer}: what `JSON.stringify` and `JSON.parse` get (e.g. to write bigints as strings and read them back). */
export interface JsonSerializerOptions {
  readonly replacer?: (this: unknown, key: string, value: unknown) => unknown;
  readonly reviver?: (this: unknown, key: string, value: unknown) => unknown;
}

/**
 * JSON (UTF-8) both ways (C#: `SystemTextJsonSerializer<T>`, which has no deserializer
 * counterpart; this one is both). Decoding rejects invalid UTF-8 and invalid JSON by throwing,
 * which the typed consumer reports as a `deserialization-failed` status. It does not check
 * that the value has the shape of `T`: use a validating deserializer for untrusted input.
 */
export class JsonSerializer<T> implements Serializer<T>, Deserializer<T> {
  readonly #encoder = new TextEncoder();
  readonly #decoder = new TextDecoder('utf-8', { fatal: true });
  readonly #options: JsonSerializerOptions;

  constructor(options: JsonSerializerOptions = {}) {
    this.#options = options;
  }

  serialize(item: T): Uint8Array {
    return this.#encoder.encode(this.#text(item));
  }

  /** Encodes the JSON text as UTF-8 straight into the send buffer. */
  write(item: T, writer: RentedPayloadWriter): void {
    writer.writeUtf8(this.#text(item));
  }

  #text(item: T): string {
    const text = JSON.stringify(item, this.#options.replacer);
    if (text === undefined) throw new TypeError('this value has no JSON form (undefined, a function or a symbol)');
    return text;
  }

  deserialize(payload: Uint8Array): T {
    return JSON.parse(this.#decoder.decode(payload), this.#options.reviver) as T;
  }
}

/** One item with its message id (0 or undefined: minted) and raw user-header bytes (see `UserHeaders.encode`). */
export type TypedEntry<T> = readonly [data: T, id: bigint | undefined, headers: Uint8Array | undefined];

/** Calls `each` per item: an array is a collection (of items or entries); when T itself is an array type, send one item as `send([item])`. */
function forEachItem<T>(
  items: T | readonly T[] | readonly TypedEntry<T>[],
  options: { readonly id?: bigint | undefined; readonly headers?: Uint8Array | undefined },
  each: (item: T, id?: bigint, headers?: Uint8Array) => void,
): void {
  if (Array.isArray(items)) {
    for (const entry of items as readonly unknown[]) {
      if (isEntry(entry)) each(entry[0] as T, entry[1], entry[2]);
      else each(entry as T);
    }
  } else {
    each(items as T, options.id, options.headers);
  }
}

function isEntry(value: unknown): value is TypedEntry<unknown> {
  return (
    Array.isArray(value) &&
    value.length === 3 &&
    (value[1] === undefined || typeof value[1] === 'bigint') &&
    (value[2] === undefined || value[2] instanceof Uint8Array)
  );
}

export class IggyTypedPublisher<T> implements AsyncDisposable {
  readonly publisher: IggyPublisher;
  readonly #serializer: Serializer<T>;
  readonly #pool: BufferPool;
  readonly #sizeHint: number;

  /** `sendBuffer`: the pool a `write` serializer's send buffers come from (default `sharedPool`) and their initial size (default 4096). */
  constructor(publisher: IggyPublisher, serializer: Serializer<T>, sendBuffer: { pool?: BufferPool; sizeHint?: number } = {}) {
    this.publisher = publisher;
    this.#serializer = serializer;
    this.#pool = sendBuffer.pool ?? sharedPool;
    this.#sizeHint = sendBuffer.sizeHint ?? 4096;
  }

  init(): Promise<void> {
    return this.publisher.init();
  }

  /** One item, with an optional message id and user-header bytes (C#: `SendAsync(data, messageId, userHeaders)`). */
  send(item: T, options?: { readonly id?: bigint | undefined; readonly headers?: Uint8Array | undefined }): Promise<void>;
  /** A collection of items, sent as one batch (C#: `SendAsync(IList<T>)`). */
  send(items: readonly T[]): Promise<void>;
  /** `[item, id, headers]` entries, for per-message ids or headers (C#: `SendAsync(IList<(T, Guid?, headers)>)`). */
  send(entries: readonly TypedEntry<T>[]): Promise<void>;
  send(
    items: T | readonly T[] | readonly TypedEntry<T>[],
    options: { readonly id?: bigint | undefined; readonly headers?: Uint8Array | undefined } = {},
  ): Promise<void> {
    const write = this.#serializer.write?.bind(this.#serializer);
    if (write) return this.#sendWritten(items, options, write);
    const list: PublisherMessage[] = [];
    const push = (item: T, id?: bigint, headers?: Uint8Array): void => {
      list.push({
        payload: this.#serializer.serialize(item),
        ...(id === undefined ? {} : { id }),
        ...(headers === undefined ? {} : { headers }),
      });
    };
    forEachItem(items, options, push);
    return this.publisher.sendMessages(list);
  }

  /** Serializes every item into one rented batch through `write` and hands the batch to the publisher (which owns it then). */
  #sendWritten(
    items: T | readonly T[] | readonly TypedEntry<T>[],
    options: { readonly id?: bigint | undefined; readonly headers?: Uint8Array | undefined },
    write: (item: T, writer: RentedPayloadWriter) => void,
  ): Promise<void> {
    const builder = new RentedMessageBatchBuilder(this.#sizeHint, this.#pool);
    try {
      forEachItem(items, options, (item, id, headers) => builder.add(item, write, id, headers));
    } catch (error) {
      builder.dispose();
      return Promise.reject(error);
    }
    const batch = builder.build();
    if (batch.length === 0) {
      batch.dispose();
      return Promise.resolve();
    }
    return this.publisher.send(batch);
  }

  waitUntilAllSends(): Promise<void> {
    return this.publisher.waitUntilAllSends();
  }

  dispose(): Promise<void> {
    return this.publisher.dispose();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.dispose();
  }
}

/**
 * Builds an {@link IggyTypedPublisher} (C#: `IggyPublisherBuilder<T>`). The typed builder keeps
 * its type through every fluent call, so `create(...).withRetry(...).build()` is typed.
 */
export class IggyTypedPublisherBuilder<T> {
  readonly #inner: IggyPublisherBuilder;
  readonly #serializer: Serializer<T>;
  #sendBuffer: { pool?: BufferPool; sizeHint?: number } = {};

  private constructor(inner: IggyPublisherBuilder, serializer: Serializer<T>) {
    this.#inner = inner;
    this.#serializer = serializer;
  }

  /** A typed builder over a connected client; the serializer defaults to {@link JsonSerializer}. */
  static create<T>(
    client: IggyClient,
    stream: Identifier,
    topic: Identifier,
    serializer: Serializer<T> = new JsonSerializer<T>(),
  ): IggyTypedPublisherBuilder<T> {
    return new IggyTypedPublisherBuilder(IggyPublisherBuilder.create(client, stream, topic), serializer);
  }

  withPartitioning(...args: Parameters<IggyPublisherBuilder['withPartitioning']>): this {
    this.#inner.withPartitioning(...args);
    return this;
  }

  createIfMissing(...args: Parameters<IggyPublisherBuilder['createIfMissing']>): this {
    this.#inner.createIfMissing(...args);
    return this;
  }

  withBackgroundSending(...args: Parameters<IggyPublisherBuilder['withBackgroundSending']>): this {
    this.#inner.withBackgroundSending(...args);
    return this;
  }

  withRetry(...args: Parameters<IggyPublisherBuilder['withRetry']>): this {
    this.#inner.withRetry(...args);
    return this;
  }

  /** Where a `write` serializer's send buffers come from (default `sharedPool`) and how big they start (default 4096 bytes). */
  withSendBuffer(options: { pool?: BufferPool; sizeHint?: number }): this {
    this.#sendBuffer = { ...this.#sendBuffer, ...options };
    return this;
  }

  build(): IggyTypedPublisher<T> {
    return new IggyTypedPublisher(this.#inner.build(), this.#serializer, this.#sendBuffer);
  }
}

/** How decoding a received message went (C#: `MessageStatus`; keiyaku has no message encryption, so no `DecryptionFailed`). */
export type MessageStatus = 'success' | 'deserialization-failed';

/**
 * A received message with its decoded value or why decoding failed (C#: `ReceivedMessage<T>`):
 * check `status` (or `data !== undefined`) before using `data`.
 */
export type DeserializedMessage<T> =
  | {
      readonly status: 'success';
      readonly data: T;
      readonly error?: undefined;
      readonly message: ReceivedMessage;
      readonly offset: bigint;
      readonly partition: number;
    }
  | {
      readonly status: 'deserialization-failed';
      readonly data?: undefined;
      readonly error: Error;
      readonly message: ReceivedMessage;
      readonly offset: bigint;
      readonly partition: number;
    };

function deserialized<T>(message: ReceivedMessage, deserializer: Deserializer<T>): DeserializedMessage<T> {
  const { offset, partition } = message;
  try {
    return { status: 'success', data: deserializer.deserialize(message.payload), message, offset, partition };
  } catch (error) {
    return {
      status: 'deserialization-failed',
      error: error instanceof Error ? error : new Error(String(error)),
      message,
      offset,
      partition,
    };
  }
}

/**
 * An {@link IggyConsumer} that also decodes (C#: `IggyConsumer<T>`): everything of the untyped
 * consumer (receive, receiveRented, storeOffset, deleteOffset, dispose) plus
 * {@link receiveDeserialized}.
 */
export class IggyTypedConsumer<T> extends IggyConsumer {
  readonly deserializer: Deserializer<T>;

  constructor(client: IggyClient, config: IggyConsumerConfig, deserializer: Deserializer<T>) {
    super(client, config);
    this.deserializer = deserializer;
  }

  /**
   * Every message with the outcome of decoding it, until `signal` aborts (C#:
   * `ReceiveDeserializedAsync`). A payload that does not decode is a `deserialization-failed`
   * status, never a throw; auto-commit treats it like any other received message.
   */
  async *receiveDeserialized(signal?: AbortSignal): AsyncGenerator<DeserializedMessage<T>> {
    for await (const message of this.receive(signal)) yield deserialized(message, this.deserializer);
  }
}

/**
 * Builds an {@link IggyTypedConsumer} (C#: `IggyConsumerBuilder<T>`). Every fluent method
 * returns the typed builder, so `create(...).withAutoCommit(...).build()` is typed.
 */
export class IggyTypedConsumerBuilder<T> {
  readonly #client: IggyClient;
  readonly #inner: IggyConsumerBuilder;
  readonly #deserializer: Deserializer<T>;

  private constructor(client: IggyClient, inner: IggyConsumerBuilder, deserializer: Deserializer<T>) {
    this.#client = client;
    this.#inner = inner;
    this.#deserializer = deserializer;
  }

  /** A typed builder over a connected client (C#: `IggyConsumerBuilder<T>.Create(client, streamId, topicId, consumer, deserializer)`). */
  static create<T>(
    client: IggyClient,
    stream: Identifier,
    topic: Identifier,
    consumer: Consumer,
    deserializer: Deserializer<T>,
  ): IggyTypedConsumerBuilder<T> {
    return new IggyTypedConsumerBuilder(client, IggyConsumerBuilder.create(client, stream, topic, consumer), deserializer);
  }

  withPollingStrategy(...args: Parameters<IggyConsumerBuilder['withPollingStrategy']>): this {
    this.#inner.withPollingStrategy(...args);
    return this;
  }

  withBatchSize(...args: Parameters<IggyConsumerBuilder['withBatchSize']>): this {
    this.#inner.withBatchSize(...args);
    return this;
  }

  withPollInterval(...args: Parameters<IggyConsumerBuilder['withPollInterval']>): this {
    this.#inner.withPollInterval(...args);
    return this;
  }

  withAutoCommit(...args: Parameters<IggyConsumerBuilder['withAutoCommit']>): this {
    this.#inner.withAutoCommit(...args);
    return this;
  }

  withPartitions(...args: Parameters<IggyConsumerBuilder['withPartitions']>): this {
    this.#inner.withPartitions(...args);
    return this;
  }

  withCreateGroupIfMissing(...args: Parameters<IggyConsumerBuilder['withCreateGroupIfMissing']>): this {
    this.#inner.withCreateGroupIfMissing(...args);
    return this;
  }

  withConsumerGroup(...args: Parameters<IggyConsumerBuilder['withConsumerGroup']>): this {
    this.#inner.withConsumerGroup(...args);
    return this;
  }

  build(): IggyTypedConsumer<T> {
    return new IggyTypedConsumer(this.#client, this.#inner.build().config, this.#deserializer);
  }
}

/**
 * A publisher builder for a connected client (C#: the `client.CreatePublisherBuilder(...)` extension);
 * with a serializer, a typed one.
 */
export function createPublisherBuilder(client: IggyClient, stream: Identifier, topic: Identifier): IggyPublisherBuilder;
export function createPublisherBuilder<T>(
  client: IggyClient,
  stream: Identifier,
  topic: Identifier,
  serializer: Serializer<T>,
): IggyTypedPublisherBuilder<T>;
export function createPublisherBuilder<T>(
  client: IggyClient,
  stream: Identifier,
  topic: Identifier,
  serializer?: Serializer<T>,
): IggyPublisherBuilder | IggyTypedPublisherBuilder<T> {
  return serializer === undefined
    ? IggyPublisherBuilder.create(client, stream, topic)
    : IggyTypedPublisherBuilder.create(client, stream, topic, serializer);
}

/**
 * A consumer builder for a connected client (C#: the `client.CreateConsumerBuilder(...)` extension);
 * with a deserializer, a typed one.
 */
export function createConsumerBuilder(client: IggyClient, stream: Identifier, topic: Identifier, consumer: Consumer): IggyConsumerBuilder;
export function createConsumerBuilder<T>(
  client: IggyClient,
  stream: Identifier,
  topic: Identifier,
  consumer: Consumer,
  deserializer: Deserializer<T>,
): IggyTypedConsumerBuilder<T>;
export function createConsumerBuilder<T>(
  client: IggyClient,
  stream: Identifier,
  topic: Identifier,
  consumer: Consumer,
  deserializer?: Deserializer<T>,
): IggyConsumerBuilder | IggyTypedConsumerBuilder<T> {
  return deserializer === undefined
    ? IggyConsumerBuilder.create(client, stream, topic, consumer)
    : IggyTypedConsumerBuilder.create(client, stream, topic, consumer, deserializer);
}
