/**
 * IggyPublisher: the high-level publisher of keiyaku's Iggy SDK, modelled on the high-level
 * SDK of Iggy's C# client (guide: docs/iggy.md). Built from a connected {@link IggyClient}:
 *
 * ```ts
 * await using publisher = IggyPublisherBuilder.create(client, Identifier.string('my-stream'), Identifier.string('my-topic'))
 *   .withPartitioning(Partitioning.none())
 *   .withBackgroundSending({ enabled: true, batchSize: 100 })
 *   .withRetry({ maxAttempts: 3 })
 *   .build();
 * await publisher.init();
 * await publisher.sendMessages([{ id: 0n, payload }]);
 * await publisher.waitUntilAllSends();
 * ```
 *
 * Background sending batches by count and by bytes (default 256 KiB; 0 disables the byte
 * gate) with a linger interval, retries with exponential backoff (the runtime's `retry()`, on
 * the client's clock), and reports a batch that finally failed to `onError` and to the caller
 * of `waitUntilAllSends` — never silently. A listener that throws is logged through the
 * client's logger; the other listeners are still told.
 */
import { ClosedError, exponentialBackoff, KeiyakuError, retry } from '@keiyaku/runtime/adapter';
import type { IggyClient } from './client.js';
import { IGGY_PLACEMENT_DEFAULTS, resolvePartitioning } from './placement.js';
import { ObjectDisposedError, RentedMessageBatch } from './pooled-batches.js';
import type { Identifier, Partitioning } from './protocol/primitives.js';
import type { OutgoingMessage } from './protocol/version.js';
import { ensureTopic } from './topics.js';

/** A queued item of the background sender: one message, or a rented batch that goes out whole from its own buffer. */
type Queued = OutgoingMessage | RentedMessageBatch;

export interface PublisherMessage {
  /** 128-bit id; 0 or absent mints one. */
  readonly id?: bigint;
  readonly payload: Uint8Array;
  readonly headers?: Uint8Array;
}

export interface IggyPublisherConfig {
  readonly stream: Identifier;
  readonly topic: Identifier;
  readonly partitioning: Partitioning;
  readonly createStream: boolean;
  readonly createTopic: boolean;
  readonly topicPartitions: number;
  readonly background: { readonly enabled: boolean; readonly batchSize: number; readonly lingerMs: number; readonly queueCapacity: number };
  /** Flush a background batch at this many payload bytes (default 256 KiB; 0 disables the byte gate). */
  readonly backgroundMaxBatchBytes: number;
  readonly retry: {
    readonly enabled: boolean;
    readonly maxAttempts: number;
    readonly initialDelayMs: number;
    readonly maxDelayMs: number;
    readonly multiplier: number;
  };
}

export class IggyPublisherError extends KeiyakuError {
  override readonly name = 'IggyPublisherError';
  readonly messages: number;

  constructor(messages: number, cause: unknown) {
    super(
      'iggy_publish_failed',
      `a batch of ${messages} message${messages === 1 ? '' : 's'} could not be sent: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
    this.messages = messages;
  }
}

/** The wire form of a publisher message, stamped `now` (one object literal per shape, no spreads). */
function outgoing(m: PublisherMessage, now: bigint): OutgoingMessage {
  if (m.id === undefined)
    return m.headers ? { payload: m.payload, headers: m.headers, originTimestamp: now } : { payload: m.payload, originTimestamp: now };
  return m.headers
    ? { id: m.id, payload: m.payload, headers: m.headers, originTimestamp: now }
    : { id: m.id, payload: m.payload, originTimestamp: now };
}

export class IggyPublisher implements AsyncDisposable {
  readonly config: IggyPublisherConfig;
  readonly #client: IggyClient;
  #partitions = 0;
  #initialized = false;
  #queue: Queued[] = [];
  /** Messages queued (a rented batch counts its messages) and their payload bytes. */
  #queuedMessages = 0;
  #queuedBytes = 0;
  /** The pending linger wait (aborted when a flush comes first). */
  #linger: AbortController | undefined;
  #inFlight = new Set<Promise<void>>();
  #failures: IggyPublisherError[] = [];
  #listeners = new Set<(error: IggyPublisherError) => void>();
  #disposed = false;
  readonly #roundRobin = { value: 0 };

  constructor(client: IggyClient, config: IggyPublisherConfig) {
    this.#client = client;
    this.config = config;
  }

  /** Validates (and, if configured, creates) the stream and topic. An "already exists" race counts as success. */
  async init(): Promise<void> {
    const { stream, topic, createStream, createTopic, topicPartitions } = this.config;
    const info = await ensureTopic(
      this.#client,
      stream,
      topic,
      { stream: createStream, topic: createTopic, partitions: topicPartitions },
      'publisher init',
    );
    this.#partitions = info.partitionsCount;
    this.#initialized = true;
  }

  /** Heard for every batch that finally failed; returns an unsubscribe function. */
  onError(listener: (error: IggyPublisherError) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Sends now (no background), or queues for the background sender. */
  async sendMessages(messages: readonly PublisherMessage[]): Promise<void> {
    if (this.#disposed) throw new ClosedError('the Iggy publisher');
    if (!this.#initialized) throw new KeiyakuError('iggy_not_initialized', 'call init() on the Iggy publisher before sending');
    const now = BigInt(this.#client.clock.now()) * 1000n;
    if (!this.config.background.enabled) {
      await this.#sendWithRetry(messages.map((m) => outgoing(m, now)));
      return;
    }
    if (this.#queuedMessages + messages.length <= this.config.background.queueCapacity) {
      // The queue has room for all of them (the common case): queued in one go, then flushed in
      // the batches that flushing after each one would have made.
      for (let i = 0; i < messages.length; i++) {
        const message = outgoing(messages[i]!, now);
        this.#queue.push(message);
        this.#queuedBytes += message.payload.length;
      }
      this.#queuedMessages += messages.length;
      if (this.#gateReached()) this.#flush(false);
    } else {
      // Waited on message by message while the queue is full.
      for (let i = 0; i < messages.length; i++) {
        const message = outgoing(messages[i]!, now);
        if (this.#full(1)) await this.#enqueue(message, 1, message.payload.length);
        else this.#enqueueNow(message, 1, message.payload.length);
      }
    }
    this.#armLinger();
  }

  /**
   * Sends a rented batch and takes ownership of it. Its payloads are never copied out: the frame
   * headers are written in place in the batch's buffer and the buffer itself goes to the socket.
   * It returns to the pool once the batch was sent or finally failed — right away when sending
   * directly, after the background flush that carried it otherwise.
   */
  async send(batch: RentedMessageBatch): Promise<void> {
    try {
      if (this.#disposed) throw new ClosedError('the Iggy publisher');
      if (!this.#initialized) throw new KeiyakuError('iggy_not_initialized', 'call init() on the Iggy publisher before sending');
      if (batch.disposed) throw new ObjectDisposedError('this rented batch was disposed before it was sent');
    } catch (error) {
      batch.dispose();
      throw error;
    }
    if (batch.length === 0) {
      batch.dispose();
      return;
    }
    if (!this.config.background.enabled) {
      try {
        await this.#sendWithRetry(batch);
      } finally {
        batch.dispose();
      }
      return;
    }
    await this.#enqueue(batch, batch.length, batch.payloadBytes);
    this.#armLinger();
  }

  /** Queues one item (waiting while the queue is full), and flushes when a gate is reached. */
  async #enqueue(item: Queued, messages: number, bytes: number): Promise<void> {
    while (this.#full(messages)) await this.#drainOne();
    this.#enqueueNow(item, messages, bytes);
  }

  /** Whether `messages` more would overflow the queue (an empty queue takes any item, however large). */
  #full(messages: number): boolean {
    return this.#queuedMessages > 0 && this.#queuedMessages + messages > this.config.background.queueCapacity;
  }

  /** Queues one item now (the queue has room for it), and flushes when a gate is reached. */
  #enqueueNow(item: Queued, messages: number, bytes: number): void {
    this.#queue.push(item);
    this.#queuedMessages += messages;
    this.#queuedBytes += bytes;
    if (this.#gateReached()) this.#flush(false);
  }

  #armLinger(): void {
    if (this.#queue.length > 0 && this.#linger === undefined) {
      const linger = new AbortController();
      this.#linger = linger;
      this.#client.clock.sleep(this.config.background.lingerMs, linger.signal).then(
        () => {
          if (this.#linger !== linger) return;
          this.#linger = undefined;
          this.#flush();
        },
        () => undefined, // cancelled: a flush came first
      );
    }
  }

  #gateReached(): boolean {
    return (
      this.#queuedMessages >= this.config.background.batchSize ||
      (this.config.backgroundMaxBatchBytes > 0 && this.#queuedBytes >= this.config.backgroundMaxBatchBytes)
    );
  }

  /** Waits until everything queued has been sent or has failed; rejects with the first failure. */
  async waitUntilAllSends(): Promise<void> {
    this.#linger?.abort();
    this.#linger = undefined;
    this.#flush();
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
    const failure = this.#failures.shift();
    if (failure) throw failure;
  }

  async dispose(): Promise<void> {
    if (this.#disposed) return;
    try {
      await this.waitUntilAllSends();
    } finally {
      this.#disposed = true;
    }
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.dispose();
  }

  async #drainOne(): Promise<void> {
    this.#flush();
    if (this.#inFlight.size > 0) await Promise.race([...this.#inFlight]);
  }

  /**
   * Sends queued items in batches: all of them, or (`all` false) only while a gate is reached.
   * Plain messages go out together up to the batch size and byte limit; a rented batch goes out
   * whole, from its own buffer, and is disposed once it was sent or finally failed.
   */
  #flush(all = true): void {
    while (this.#queue.length > 0 && (all || this.#gateReached())) {
      const head = this.#queue[0]!;
      let batch: OutgoingMessage[] | RentedMessageBatch;
      let count: number;
      let bytes: number;
      if (head instanceof RentedMessageBatch) {
        this.#queue.shift();
        batch = head;
        count = head.length;
        bytes = head.payloadBytes;
      } else {
        // The plain messages at the head, up to the batch size and byte limit, taken in one splice.
        const queue = this.#queue;
        const limit = Math.min(queue.length, this.config.background.batchSize);
        const maxBytes = this.config.backgroundMaxBatchBytes;
        bytes = 0;
        count = 0;
        while (count < limit) {
          const next = queue[count]!;
          if (next instanceof RentedMessageBatch) break;
          if (count > 0 && maxBytes > 0 && bytes + next.payload.length > maxBytes) break;
          bytes += next.payload.length;
          count++;
        }
        batch = queue.splice(0, count) as OutgoingMessage[];
      }
      this.#queuedMessages -= count;
      this.#queuedBytes -= bytes;
      const sending = this.#sendWithRetry(batch)
        .catch((error: unknown) => {
          const failure = new IggyPublisherError(count, error);
          this.#failures.push(failure);
          this.#announce(failure);
        })
        .finally(() => {
          if (batch instanceof RentedMessageBatch) batch.dispose();
          this.#inFlight.delete(sending);
        });
      this.#inFlight.add(sending);
    }
  }

  /** Tells every `onError` listener; one that throws is logged and does not keep the others from hearing it. */
  #announce(failure: IggyPublisherError): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(failure);
      } catch (thrown) {
        this.#client.logger.error('iggy: an onError listener of the publisher threw', {
          stream: String(this.config.stream),
          topic: String(this.config.topic),
          messages: failure.messages,
          error: thrown instanceof Error ? thrown.message : String(thrown),
        });
      }
    }
  }

  #partitioningFor(): Partitioning {
    return resolvePartitioning(this.config.partitioning, this.#partitions, this.#roundRobin);
  }

  async #sendWithRetry(batch: readonly OutgoingMessage[] | RentedMessageBatch): Promise<void> {
    const settings = this.config.retry;
    const { stream, topic } = this.config;
    const partitioning = this.#partitioningFor();
    await retry(
      async () => {
        if (batch instanceof RentedMessageBatch) await this.#client.sendRentedBatch(stream, topic, partitioning, batch);
        else await this.#client.sendMessages(stream, topic, partitioning, batch);
      },
      {
        // Disabled, or fewer than one attempt: send once.
        maxAttempts: settings.enabled ? Math.max(1, settings.maxAttempts) : 1,
        // Doubling (by `multiplier`) from the initial delay up to the cap, without jitter: the delays withRetry documents.
        backoff: exponentialBackoff({
          initialMs: settings.initialDelayMs,
          maxMs: settings.maxDelayMs,
          multiplier: settings.multiplier,
          jitter: 0,
        }),
        clock: this.#client.clock,
        onRetry: (error, attempt, delayMs) =>
          this.#client.logger.debug('iggy: sending a batch failed; trying again', {
            stream: String(stream),
            topic: String(topic),
            attempt,
            delayMs,
            error: error instanceof Error ? error.message : String(error),
          }),
      },
    );
  }
}

/** Fluent configuration; every method returns the builder. */
export class IggyPublisherBuilder {
  #config: IggyPublisherConfig;
  readonly #client: IggyClient;

  private constructor(client: IggyClient, stream: Identifier, topic: Identifier) {
    this.#client = client;
    this.#config = {
      stream,
      topic,
      partitioning: { kind: 'balanced' },
      createStream: false,
      createTopic: false,
      topicPartitions: IGGY_PLACEMENT_DEFAULTS.topicPartitions,
      background: { enabled: false, batchSize: 100, lingerMs: 100, queueCapacity: 10_000 },
      backgroundMaxBatchBytes: 256 * 1024,
      retry: { enabled: true, maxAttempts: 3, initialDelayMs: 100, maxDelayMs: 10_000, multiplier: 2 },
    };
  }

  static create(client: IggyClient, stream: Identifier, topic: Identifier): IggyPublisherBuilder {
    return new IggyPublisherBuilder(client, stream, topic);
  }

  /** Where batches go (default `Partitioning.none()`: balanced, resolved round-robin on the client). */
  withPartitioning(partitioning: Partitioning): this {
    this.#config = { ...this.#config, partitioning };
    return this;
  }

  /** Create the stream and topic in init() when missing (C#: `CreateStreamIfNotExists` / `CreateTopicIfNotExists`); the topic gets `partitions` (default 1). */
  createIfMissing(options: { stream?: boolean; topic?: boolean; partitions?: number } = {}): this {
    this.#config = {
      ...this.#config,
      createStream: options.stream ?? true,
      createTopic: options.topic ?? true,
      topicPartitions: options.partitions ?? this.#config.topicPartitions,
    };
    return this;
  }

  /**
   * Queue messages and send them from the background in batches (C#: `WithBackgroundSending(enabled, queueCapacity,
   * batchSize, flushInterval)` plus `BackgroundMaxBatchBytes`). A batch goes out when it holds `batchSize` messages
   * (default 100) or `maxBatchBytes` payload bytes (default 256 KiB; 0 disables the byte gate), whichever comes first,
   * or `lingerMs` (default 100) after the first queued message; `sendMessages` waits while `queueCapacity` (default
   * 10 000) messages are queued. `enabled` defaults to true here; the publisher sends directly until this is called.
   */
  withBackgroundSending(
    options: { enabled?: boolean; batchSize?: number; lingerMs?: number; queueCapacity?: number; maxBatchBytes?: number } = {},
  ): this {
    this.#config = {
      ...this.#config,
      background: {
        enabled: options.enabled ?? true,
        batchSize: options.batchSize ?? this.#config.background.batchSize,
        lingerMs: options.lingerMs ?? this.#config.background.lingerMs,
        queueCapacity: options.queueCapacity ?? this.#config.background.queueCapacity,
      },
      backgroundMaxBatchBytes: options.maxBatchBytes ?? this.#config.backgroundMaxBatchBytes,
    };
    return this;
  }

  /**
   * Retry a failed send of a batch (C#: `WithRetry(enabled, maxAttempts, initialDelay, maxDelay, backoffMultiplier)`):
   * up to `maxAttempts` attempts in all (default 3), waiting `initialDelayMs` (default 100) and then `multiplier` (default 2)
   * times longer each time, at most `maxDelayMs` (default 10 000). Errors marked not retriable are not retried. On by
   * default; `{ enabled: false }` sends once.
   */
  withRetry(
    options: { enabled?: boolean; maxAttempts?: number; initialDelayMs?: number; maxDelayMs?: number; multiplier?: number } = {},
  ): this {
    this.#config = { ...this.#config, retry: { ...this.#config.retry, enabled: options.enabled ?? true, ...options } };
    return this;
  }

  build(): IggyPublisher {
    return new IggyPublisher(this.#client, this.#config);
  }
}
