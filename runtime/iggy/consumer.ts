/**
 * IggyConsumer: the high-level consumer of the Iggy SDK (seed: iggy-high-level-sdk), in
 * TypeScript. `receive()` is an async iterator over messages of every partition this
 * consumer reads, with per-partition cursors:
 *
 * ```ts
 * const consumer = IggyConsumerBuilder.create(client, 'my-stream', 'my-topic', { kind: 'group', id: 'inventory' })
 *   .withPollingStrategy({ kind: 'next' })
 *   .withBatchSize(100)
 *   .withAutoCommit('after-receive')
 *   .build();
 * await consumer.init();
 * for await (const message of consumer.receive(signal)) { … }
 * ```
 *
 * Auto-commit modes: `server-on-poll` (the server stores the offset when it serves the
 * poll: at most once), `after-receive` (keiyaku stores each offset when the loop asks for
 * the next message, i.e. after your code handled it: at least once), `disabled` (call
 * `storeOffset` yourself). Consumer groups are created if missing, joined and synced; an
 * empty poll with the re-sync sentinel triggers a re-sync, an eviction a re-join.
 */
import type { IggyClient } from './client.js';
import { IggyError, isRecoverable } from './protocol/errors.js';
import type { Consumer, Identifier, PollingStrategy } from './protocol/primitives.js';
import { type PolledMessage, RESYNC_SENTINEL } from './protocol/v0_11/commands/messages.js';

export type AutoCommit = 'server-on-poll' | 'after-receive' | 'disabled';

export interface ReceivedMessage extends PolledMessage {
  readonly partition: number;
}

export interface IggyConsumerConfig {
  readonly stream: Identifier;
  readonly topic: Identifier;
  readonly consumer: Consumer;
  readonly strategy: PollingStrategy;
  readonly batchSize: number;
  readonly pollIntervalMs: number;
  readonly autoCommit: AutoCommit;
  /** Partitions a single consumer reads (default: all of the topic's). Groups get theirs from the server. */
  readonly partitions?: readonly number[];
  readonly createGroup: boolean;
}

export class IggyConsumer implements AsyncDisposable {
  readonly config: IggyConsumerConfig;
  readonly #client: IggyClient;
  #partitions: number[] = [];
  /** Next offset to poll per partition; undefined = use the configured strategy. */
  readonly #cursors = new Map<number, bigint>();
  #initialized = false;
  #next = 0;
  /** The client generation this consumer joined its group at. */
  #joinedAt = 0;

  constructor(client: IggyClient, config: IggyConsumerConfig) {
    this.#client = client;
    this.config = config;
  }

  get partitions(): readonly number[] {
    return this.#partitions;
  }

  async init(): Promise<void> {
    const { stream, topic, consumer } = this.config;
    const info = await this.#client.getTopic(stream, topic);
    if (info === undefined) throw new IggyError(2010, 'consumer init', { stream: String(stream), topic: String(topic) });
    if (consumer.kind === 'group') {
      const existing = await this.#client.getConsumerGroup(stream, topic, consumer.id);
      if (existing === undefined) {
        if (!this.config.createGroup || typeof consumer.id !== 'string')
          throw new IggyError(5000, 'consumer init', { stream: String(stream), topic: String(topic) });
        await this.#client.createConsumerGroup(stream, topic, consumer.id).catch((error: unknown) => {
          if (!(error instanceof IggyError && error.status === 5004)) throw error;
        });
      }
      await this.#client.joinConsumerGroup(stream, topic, consumer.id);
      this.#joinedAt = this.#client.generation;
      await this.#sync();
    } else {
      this.#partitions = [...(this.config.partitions ?? info.partitions.map((p) => p.id))];
    }
    this.#initialized = true;
  }

  async #sync(): Promise<void> {
    const { stream, topic, consumer } = this.config;
    const sync = await this.#client.syncConsumerGroup(stream, topic, consumer.id);
    if (sync === undefined) {
      // Not a member (evicted): join again.
      await this.#client.joinConsumerGroup(stream, topic, consumer.id);
      this.#partitions = [...((await this.#client.syncConsumerGroup(stream, topic, consumer.id))?.partitions ?? [])];
    } else {
      this.#partitions = [...sync.partitions];
    }
    for (const p of [...this.#cursors.keys()]) if (!this.#partitions.includes(p)) this.#cursors.delete(p);
  }

  /** Messages of every partition this consumer reads, in order per partition, until `signal` aborts. */
  async *receive(signal?: AbortSignal): AsyncGenerator<ReceivedMessage> {
    if (!this.#initialized) throw new Error('call init() before receive()');
    while (!signal?.aborted) {
      let batch: ReceivedMessage[];
      try {
        batch = await this.#pollOnce();
      } catch (error) {
        await this.#recover(error);
        continue;
      }
      if (batch.length === 0) {
        await new Promise((resolve) => setTimeout(resolve, this.config.pollIntervalMs));
        continue;
      }
      for (const message of batch) {
        yield message;
        if (this.config.autoCommit === 'after-receive') {
          try {
            await this.storeOffset(message.offset, message.partition);
          } catch (error) {
            // Not stored: after the rejoin the message comes again (at least once).
            await this.#recover(error);
            break;
          }
        }
        if (signal?.aborted) return;
      }
    }
  }

  /** After an eviction or a dead connection: a new connection and login; the next poll rejoins the group. */
  async #recover(error: unknown): Promise<void> {
    if (!isRecoverable(error)) throw error;
    if (!this.#client.connection.alive) await this.#client.reconnect();
    this.#cursors.clear();
  }

  /**
   * Like {@link receive}, but every message's payload stays a view into the poll reply's
   * buffer (no copy) and must be disposed; reading a disposed message throws.
   */
  async *receiveRented(signal?: AbortSignal): AsyncGenerator<RentedReceivedMessage> {
    for await (const message of this.receive(signal)) yield new RentedReceivedMessage(message);
  }

  /** One poll of the next partition in turn. */
  async #pollOnce(): Promise<ReceivedMessage[]> {
    const { consumer } = this.config;
    if (consumer.kind === 'group' && this.#joinedAt !== this.#client.generation) {
      // The client reconnected since the join (here or elsewhere): membership went with the old connection.
      await this.#client.joinConsumerGroup(this.config.stream, this.config.topic, consumer.id);
      this.#joinedAt = this.#client.generation;
      this.#cursors.clear();
      await this.#sync();
    }
    if (this.#partitions.length === 0) {
      if (this.config.consumer.kind === 'group') await this.#sync();
      return [];
    }
    const partition = this.#partitions[this.#next++ % this.#partitions.length]!;
    const cursor = this.#cursors.get(partition);
    const strategy: PollingStrategy = cursor === undefined ? this.config.strategy : { kind: 'offset', value: cursor };
    const reply = await this.#client.pollMessages({
      consumer: this.config.consumer,
      stream: this.config.stream,
      topic: this.config.topic,
      partition,
      strategy,
      count: this.config.batchSize,
      autoCommit: this.config.autoCommit === 'server-on-poll',
    });
    if (reply.partitionId === RESYNC_SENTINEL) {
      await this.#sync();
      return [];
    }
    const last = reply.messages.at(-1);
    if (last) this.#cursors.set(partition, last.offset + 1n);
    return reply.messages.map((m) => ({ ...m, partition }));
  }

  /** Stores `offset` as consumed on `partition`; `resetLastPolled` also moves this consumer's cursor back to it. */
  async storeOffset(offset: bigint, partition: number, resetLastPolled = false): Promise<void> {
    await this.#client.storeConsumerOffset(
      { consumer: this.config.consumer, stream: this.config.stream, topic: this.config.topic, partition },
      offset,
    );
    if (resetLastPolled) this.#cursors.set(partition, offset + 1n);
  }

  async deleteOffset(partition: number): Promise<void> {
    await this.#client.deleteConsumerOffset({
      consumer: this.config.consumer,
      stream: this.config.stream,
      topic: this.config.topic,
      partition,
    });
    this.#cursors.delete(partition);
  }

  async dispose(): Promise<void> {
    if (this.config.consumer.kind === 'group' && this.#initialized) {
      await this.#client.leaveConsumerGroup(this.config.stream, this.config.topic, this.config.consumer.id).catch(() => undefined);
    }
    this.#initialized = false;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.dispose();
  }
}

export class IggyConsumerBuilder {
  #config: IggyConsumerConfig;
  readonly #client: IggyClient;

  private constructor(client: IggyClient, stream: Identifier, topic: Identifier, consumer: Consumer) {
    this.#client = client;
    this.#config = {
      stream,
      topic,
      consumer,
      strategy: { kind: 'next' },
      batchSize: 100,
      pollIntervalMs: 100,
      autoCommit: 'after-receive',
      createGroup: true,
    };
  }

  static create(client: IggyClient, stream: Identifier, topic: Identifier, consumer: Consumer): IggyConsumerBuilder {
    return new IggyConsumerBuilder(client, stream, topic, consumer);
  }

  withPollingStrategy(strategy: PollingStrategy): this {
    this.#config = { ...this.#config, strategy };
    return this;
  }

  withBatchSize(batchSize: number): this {
    this.#config = { ...this.#config, batchSize };
    return this;
  }

  withPollInterval(ms: number): this {
    this.#config = { ...this.#config, pollIntervalMs: ms };
    return this;
  }

  withAutoCommit(mode: AutoCommit): this {
    this.#config = { ...this.#config, autoCommit: mode };
    return this;
  }

  withPartitions(partitions: readonly number[]): this {
    this.#config = { ...this.#config, partitions };
    return this;
  }

  withCreateGroupIfMissing(create = true): this {
    this.#config = { ...this.#config, createGroup: create };
    return this;
  }

  build(): IggyConsumer {
    return new IggyConsumer(this.#client, this.#config);
  }
}

/** A received message whose payload view must not outlive `dispose()`. */
export class RentedReceivedMessage implements Disposable {
  #message: ReceivedMessage | undefined;
  readonly offset: bigint;
  readonly partition: number;
  readonly id: bigint;

  constructor(message: ReceivedMessage) {
    this.#message = message;
    this.offset = message.offset;
    this.partition = message.partition;
    this.id = message.id;
  }

  get payload(): Uint8Array {
    if (this.#message === undefined) throw new Error('this rented message was disposed; copy the payload if you need it longer');
    return this.#message.payload;
  }

  get headers(): Uint8Array {
    if (this.#message === undefined) throw new Error('this rented message was disposed');
    return this.#message.headers;
  }

  dispose(): void {
    this.#message = undefined;
  }

  [Symbol.dispose](): void {
    this.dispose();
  }
}
