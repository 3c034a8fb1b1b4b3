/**
 * Typed publishing and consuming on top of {@link IggyPublisher} and {@link IggyConsumer}:
 * a serializer turns items into payload bytes, a deserializer turns them back; the typed
 * consumer yields a status per message (the value, or why decoding failed) instead of
 * throwing. Unlike the C# SDK, the typed builder's fluent methods keep the typed builder,
 * so `IggyTypedPublisherBuilder.create(...).withX().build()` yields a typed publisher.
 */
import type { IggyClient } from './client.js';
import type { IggyConsumer, ReceivedMessage } from './consumer.js';
import type { Identifier } from './protocol/primitives.js';
import { type IggyPublisher, IggyPublisherBuilder, type PublisherMessage } from './publisher.js';

export interface Serializer<T> {
  serialize(item: T): Uint8Array;
}

export interface Deserializer<T> {
  /** Returns the value or throws; the typed consumer turns a throw into a failed status. */
  deserialize(payload: Uint8Array): T;
}

/** JSON (UTF-8) both ways. */
export class JsonSerializer<T> implements Serializer<T>, Deserializer<T> {
  readonly #encoder = new TextEncoder();
  readonly #decoder = new TextDecoder('utf-8', { fatal: true });

  serialize(item: T): Uint8Array {
    return this.#encoder.encode(JSON.stringify(item));
  }

  deserialize(payload: Uint8Array): T {
    return JSON.parse(this.#decoder.decode(payload)) as T;
  }
}

export class IggyTypedPublisher<T> implements AsyncDisposable {
  readonly publisher: IggyPublisher;
  readonly #serializer: Serializer<T>;

  constructor(publisher: IggyPublisher, serializer: Serializer<T>) {
    this.publisher = publisher;
    this.#serializer = serializer;
  }

  init(): Promise<void> {
    return this.publisher.init();
  }

  /** One item, a collection, or `[item, id, headers]` tuples. */
  send(
    items: T | readonly T[] | readonly (readonly [T, bigint | undefined, Uint8Array | undefined])[],
    options: { id?: bigint; headers?: Uint8Array } = {},
  ): Promise<void> {
    const list: PublisherMessage[] = [];
    const push = (item: T, id?: bigint, headers?: Uint8Array): void => {
      list.push({
        payload: this.#serializer.serialize(item),
        ...(id === undefined ? {} : { id }),
        ...(headers === undefined ? {} : { headers }),
      });
    };
    if (Array.isArray(items)) {
      for (const entry of items as readonly unknown[]) {
        if (Array.isArray(entry) && entry.length === 3 && (typeof entry[1] === 'bigint' || entry[1] === undefined))
          push(entry[0] as T, entry[1] as bigint | undefined, entry[2] as Uint8Array | undefined);
        else push(entry as T);
      }
    } else {
      push(items as T, options.id, options.headers);
    }
    return this.publisher.sendMessages(list);
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

/** The typed builder keeps its type through every fluent call. */
export class IggyTypedPublisherBuilder<T> {
  readonly #inner: IggyPublisherBuilder;
  readonly #serializer: Serializer<T>;

  private constructor(inner: IggyPublisherBuilder, serializer: Serializer<T>) {
    this.#inner = inner;
    this.#serializer = serializer;
  }

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

  build(): IggyTypedPublisher<T> {
    return new IggyTypedPublisher(this.#inner.build(), this.#serializer);
  }
}

export type TypedReceived<T> =
  | { readonly ok: true; readonly value: T; readonly message: ReceivedMessage }
  | { readonly ok: false; readonly error: Error; readonly message: ReceivedMessage };

/** Every message with the outcome of deserializing it; a bad payload is a status, not a throw. */
export async function* receiveTyped<T>(
  consumer: IggyConsumer,
  deserializer: Deserializer<T>,
  signal?: AbortSignal,
): AsyncGenerator<TypedReceived<T>> {
  for await (const message of consumer.receive(signal)) {
    try {
      yield { ok: true, value: deserializer.deserialize(message.payload), message };
    } catch (error) {
      yield { ok: false, error: error instanceof Error ? error : new Error(String(error)), message };
    }
  }
}
