/**
 * IggyConsumer: the high-level consumer of keiyaku's Iggy SDK, modelled on the high-level
 * SDK of Iggy's C# client (guide: docs/iggy.md). `receive()` is an async iterator over
 * messages of every partition this consumer reads, with per-partition cursors:
 *
 * ```ts
 * await using consumer = IggyConsumerBuilder.create(client, Identifier.string('my-stream'), Identifier.string('my-topic'), Consumer.group('inventory'))
 *   .withPollingStrategy(PollingStrategy.next())
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
import { KeiyakuError } from '@keiyaku/runtime/adapter';
import type { IggyClient } from './client.js';
import { GroupMembership } from './group-membership.js';
import { MessageIterator } from './message-iterator.js';
import { type BufferPool, ObjectDisposedError, sharedPool } from './pooled-batches.js';
import { IggyError, isRecoverable } from './protocol/errors.js';
import type { Consumer, Identifier, PollingStrategy } from './protocol/primitives.js';
import { type PolledMessage, type PollReply, RESYNC_SENTINEL } from './protocol/version.js';

/**
 * The pooled reply buffer of one poll, shared by its messages: it goes back to the pool when the
 * last of them is released (disposed, or never handed out because the loop ended).
 */
export class RentedPollBuffer {
  #buffer: Uint8Array | undefined;
  readonly #pool: BufferPool;
  #outstanding: number;

  constructor(buffer: Uint8Array, pool: BufferPool, messages: number) {
    this.#buffer = buffer;
    this.#pool = pool;
    this.#outstanding = messages;
    if (messages === 0) this.#return();
  }

  /** Messages not yet released. */
  get outstanding(): number {
    return this.#outstanding;
  }

  get returned(): boolean {
    return this.#buffer === undefined;
  }

  release(count = 1): void {
    if (this.#buffer === undefined) return;
    this.#outstanding -= count;
    if (this.#outstanding <= 0) this.#return();
  }

  #return(): void {
    const buffer = this.#buffer;
    this.#buffer = undefined;
    if (buffer) this.#pool.give(buffer);
  }
}

interface Polled {
  readonly messages: ReceivedMessage[];
  readonly buffer?: RentedPollBuffer;
  /** The partition's cursor before and after this poll (to undo it when the poll is dropped unread). */
  readonly rewind?: { readonly partition: number; readonly before: bigint | undefined; readonly after: bigint };
}

/**
 * When offsets are stored (C# `AutoCommitMode`): `server-on-poll` (`Auto`: the server stores
 * the offset of what it served; at most once), `after-receive` (`AfterReceive`: keiyaku stores a
 * message's offset when the loop asks for the next one, after your code handled it; at least
 * once), `disabled` (`Disabled`: call `storeOffset` yourself).
 */
export type AutoCommit = 'server-on-poll' | 'after-receive' | 'disabled';

/** A polled message (C# `ReceivedMessage`): `offset` is C#'s `CurrentOffset`, `partition` its `PartitionId`. */
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
  /** Create a missing consumer group in init(). */
  readonly createGroup: boolean;
  /** The name to create the group with when the consumer addresses it by numeric id. */
  readonly groupName?: string;
  /** Join the group in init() (and again after an eviction); false: membership is managed elsewhere and the consumer reads what the server assigns to this client. */
  readonly joinGroup: boolean;
  /**
   * Send the next poll while the loop handles the messages of the current one (default true).
   * Only a single consumer (`Consumer.new`) polls ahead, and not with `server-on-poll`.
   */
  readonly pollAhead?: boolean;
}

export class IggyConsumer implements AsyncDisposable {
  readonly config: IggyConsumerConfig;
  readonly #client: IggyClient;
  #partitions: readonly number[] = [];
  /** Next offset to poll per partition; undefined = use the configured strategy. */
  readonly #cursors = new Map<number, bigint>();
  #initialized = false;
  #next = 0;
  /** For a group consumer: its membership (rejoined when the client logs in anew). */
  #membership: GroupMembership | undefined;

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
      const membership = new GroupMembership(this.#client, stream, topic, consumer.id, this.config.joinGroup);
      await membership.ensure(this.config.createGroup, this.config.groupName, 'consumer init');
      await membership.refresh();
      this.#membership = membership;
      this.#assign(membership.partitions);
    } else {
      this.#partitions = [...(this.config.partitions ?? info.partitions.map((p) => p.id))];
    }
    this.#initialized = true;
  }

  /** Takes a group assignment; cursors of partitions no longer assigned are dropped. */
  #assign(partitions: readonly number[]): void {
    this.#partitions = partitions;
    for (const p of [...this.#cursors.keys()]) if (!partitions.includes(p)) this.#cursors.delete(p);
  }

  /** Messages of every partition this consumer reads, in order per partition, until `signal` aborts. */
  receive(signal?: AbortSignal): AsyncGenerator<ReceivedMessage> {
    // Not an async generator: a message of the poll at hand is handed out as an already settled
    // promise, at a fraction of a generator's cost per message; only the polls go through one.
    return new MessageIterator(
      this.#polls(signal, undefined),
      this.config.autoCommit === 'after-receive' ? (message) => this.#storeAfterReceive(message) : undefined,
      signal,
    );
  }

  /**
   * Stores the offset of `message`, which the loop handled (it asked for the next one). False
   * when the store failed and the consumer recovered: the rest of the poll is dropped, and the
   * message comes again after the rejoin (at least once).
   */
  async #storeAfterReceive(message: ReceivedMessage): Promise<boolean> {
    try {
      await this.storeOffset(message.offset, message.partition);
      return true;
    } catch (error) {
      await this.#recover(error);
      return false;
    }
  }

  /**
   * The poll loop: polls (into a pooled reply buffer when `pool` is given) and yields each
   * non-empty poll; after an empty one it waits one poll interval. A recoverable failure of a poll
   * is recovered from here; the caller hands the messages out.
   *
   * A single consumer polls ahead (see {@link IggyConsumerConfig.pollAhead}): the next poll is
   * sent as soon as a poll is yielded, so its reply arrives while the caller handles the messages.
   * When the loop ends before that poll is handed out, its messages are dropped and the
   * partition's cursor goes back to where it was, so the next `receive` polls them again. Not with
   * `server-on-poll` (the server would store the offsets of messages a loop that ends never
   * sees), nor in a group (whose polls wait for its membership to be settled).
   */
  async *#polls(signal: AbortSignal | undefined, pool: BufferPool | undefined): AsyncGenerator<Polled> {
    if (!this.#initialized) throw new KeiyakuError('iggy_not_initialized', 'call init() on the Iggy consumer before receive()');
    const { pollAhead = true, autoCommit, consumer } = this.config;
    const ahead = pollAhead && autoCommit !== 'server-on-poll' && consumer.kind !== 'group';
    let next: Promise<Polled> | undefined;
    try {
      while (!signal?.aborted) {
        const pending = next ?? this.#pollOnce(pool);
        next = undefined;
        let polled: Polled;
        try {
          polled = await pending;
        } catch (error) {
          await this.#recover(error);
          continue;
        }
        if (polled.messages.length === 0) {
          // An abort ends the wait early; the loop condition then ends the loop.
          await this.#client.clock.sleep(this.config.pollIntervalMs, signal).catch(() => undefined);
          continue;
        }
        if (ahead) {
          next = this.#pollOnce(pool);
          // Its failure is handled where it is awaited (or dropped with it).
          next.catch(() => undefined);
        }
        yield polled;
      }
    } finally {
      if (next) await this.#drop(next);
    }
  }

  /** Drops a poll sent ahead that is never handed out: its buffer goes back, its partition's cursor back to where the poll started. */
  async #drop(poll: Promise<Polled>): Promise<void> {
    let polled: Polled;
    try {
      polled = await poll;
    } catch {
      return;
    }
    polled.buffer?.release(polled.messages.length);
    const { rewind } = polled;
    // Only if nothing moved the cursor since (storeOffset with resetLastPolled, deleteOffset, a rejoin).
    if (rewind && this.#cursors.get(rewind.partition) === rewind.after) {
      if (rewind.before === undefined) this.#cursors.delete(rewind.partition);
      else this.#cursors.set(rewind.partition, rewind.before);
    }
  }

  /**
   * After a recoverable error (eviction, dead connection, transient status): the next poll joins
   * the group again and resumes from stored offsets, after one poll interval. The client itself
   * reconnects on that poll; with its reconnection disabled, a dead connection is final.
   */
  async #recover(error: unknown): Promise<void> {
    if (!isRecoverable(error) || (!this.#client.connection.alive && !this.#client.reconnects)) throw error;
    this.#client.logger.warn('iggy: the consumer recovers from a failed poll or commit; it resumes from the stored offsets', {
      stream: String(this.config.stream),
      topic: String(this.config.topic),
      consumer: String(this.config.consumer.id),
      error: error instanceof Error ? error.message : String(error),
    });
    this.#membership?.invalidate();
    this.#cursors.clear();
    await this.#client.clock.sleep(this.config.pollIntervalMs);
  }

  /**
   * Like {@link receive}, but every message's payload stays a view into the poll reply's
   * buffer (no copy) and must be disposed (`for await (using message of consumer.receiveRented())`);
   * reading a disposed message throws {@link ObjectDisposedError}. Auto-commit applies as with `receive`.
   */
  async *receiveRented(signal?: AbortSignal, pool: BufferPool = sharedPool): AsyncGenerator<RentedReceivedMessage> {
    // Messages of a poll that are never handed out (the loop ended or broke off) are released here.
    const storeEach = this.config.autoCommit === 'after-receive';
    for await (const { messages, buffer } of this.#polls(signal, pool)) {
      let handedOut = 0;
      try {
        for (const message of messages) {
          handedOut++;
          yield new RentedReceivedMessage(message, buffer);
          if (storeEach && !(await this.#storeAfterReceive(message))) break;
          if (signal?.aborted) break;
        }
      } finally {
        buffer?.release(messages.length - handedOut);
      }
    }
  }

  /** One poll of the next partition in turn; with a pool, into a reply buffer rented from it. */
  async #pollOnce(pool: BufferPool | undefined): Promise<Polled> {
    const membership = this.#membership;
    if (membership && (await membership.refresh())) {
      this.#cursors.clear();
      this.#assign(membership.partitions);
    }
    if (this.#partitions.length === 0) {
      if (membership) this.#assign(await membership.sync());
      return { messages: [] };
    }
    const partition = this.#partitions[this.#next++ % this.#partitions.length]!;
    const cursor = this.#cursors.get(partition);
    const strategy: PollingStrategy = cursor === undefined ? this.config.strategy : { kind: 'offset', value: cursor };
    const request = {
      consumer: this.config.consumer,
      stream: this.config.stream,
      topic: this.config.topic,
      partition,
      strategy,
      count: this.config.batchSize,
      autoCommit: this.config.autoCommit === 'server-on-poll',
    };
    let reply: PollReply;
    let buffer: RentedPollBuffer | undefined;
    if (pool) {
      const pooled = await this.#client.pollMessagesPooled(request, pool);
      reply = pooled.reply;
      buffer = new RentedPollBuffer(pooled.buffer, pool, reply.partitionId === RESYNC_SENTINEL ? 0 : reply.messages.length);
    } else {
      reply = await this.#client.pollMessages(request);
    }
    if (reply.partitionId === RESYNC_SENTINEL) {
      if (membership) this.#assign(await membership.sync());
      return { messages: [] };
    }
    const last = reply.messages.at(-1);
    if (last === undefined) return buffer ? { messages: [], buffer } : { messages: [] };
    const after = last.offset + 1n;
    this.#cursors.set(partition, after);
    // Each message gets its partition in place: the decoded messages belong to this poll alone,
    // and adding one property is far cheaper than a copy of each message.
    const messages = reply.messages as (PolledMessage & { partition?: number })[];
    for (const message of messages) message.partition = partition;
    const rewind = { partition, before: cursor, after };
    return buffer ? { messages: messages as ReceivedMessage[], buffer, rewind } : { messages: messages as ReceivedMessage[], rewind };
  }

  /** Stores `offset` as consumed on `partition`; `resetLastPolled` also moves this consumer's cursor back to it. */
  async storeOffset(offset: bigint, partition: number, resetLastPolled = false): Promise<void> {
    await this.#client.storeConsumerOffset(
      { consumer: this.config.consumer, stream: this.config.stream, topic: this.config.topic, partition },
      offset,
    );
    if (resetLastPolled) this.#cursors.set(partition, offset + 1n);
  }

  /** Clears the stored offset of `partition` (the server answers ConsumerOffsetNotFound when none is stored); the next poll of it starts by the polling strategy again. */
  async deleteOffset(partition: number): Promise<void> {
    await this.#client.deleteConsumerOffset({
      consumer: this.config.consumer,
      stream: this.config.stream,
      topic: this.config.topic,
      partition,
    });
    this.#cursors.delete(partition);
  }

  /** Leaves the consumer group if this consumer joined it; safe to call twice. */
  async dispose(): Promise<void> {
    if (this.#initialized) await this.#membership?.leave();
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
      joinGroup: true,
    };
  }

  /** A builder over a connected client (C#: `IggyConsumerBuilder.Create(client, streamId, topicId, consumer)`). */
  static create(client: IggyClient, stream: Identifier, topic: Identifier, consumer: Consumer): IggyConsumerBuilder {
    return new IggyConsumerBuilder(client, stream, topic, consumer);
  }

  /** Where the first poll of each partition starts (default `PollingStrategy.next()`); later polls continue after the last message received. */
  withPollingStrategy(strategy: PollingStrategy): this {
    this.#config = { ...this.#config, strategy };
    return this;
  }

  /** Messages per poll (default 100). */
  withBatchSize(batchSize: number): this {
    if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 0xffff_ffff)
      throw new RangeError(`the batch size must be a positive u32, got ${batchSize}`);
    this.#config = { ...this.#config, batchSize };
    return this;
  }

  /** How long to wait after a poll that returned nothing (default 100 ms; C#: `WithPollingInterval`). */
  withPollInterval(ms: number): this {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`the poll interval must be a non-negative number of ms, got ${ms}`);
    this.#config = { ...this.#config, pollIntervalMs: ms };
    return this;
  }

  /** When offsets are stored (default `after-receive`; C#: `WithAutoCommitMode`); see {@link AutoCommit}. */
  withAutoCommit(mode: AutoCommit): this {
    this.#config = { ...this.#config, autoCommit: mode };
    return this;
  }

  /** The partitions a single consumer reads (default: all of the topic's; C#: `WithPartitionId` for one). Ignored by groups. */
  withPartitions(partitions: readonly number[]): this {
    this.#config = { ...this.#config, partitions };
    return this;
  }

  /**
   * Whether a single consumer sends its next poll while the loop handles the messages of the
   * current one (default true; never in a group, nor with `server-on-poll`). It holds two polls'
   * messages at once (with `receiveRented`, two pooled buffers).
   */
  withPollAhead(enabled = true): this {
    this.#config = { ...this.#config, pollAhead: enabled };
    return this;
  }

  /** Whether init() creates a missing consumer group (default true). */
  withCreateGroupIfMissing(create = true): this {
    this.#config = { ...this.#config, createGroup: create };
    return this;
  }

  /**
   * Consumer-group settings (C#: `WithConsumerGroup(groupName, createIfNotExists, joinGroup)`): the name to create the
   * group with when the consumer addresses it by numeric id, whether init() creates it when missing (default true) and
   * whether the consumer joins it (default true; with false, membership is managed elsewhere, e.g. by
   * `client.joinConsumerGroup`, and the consumer reads what the server assigns to its client). Has no effect on a
   * single consumer (`Consumer.new`).
   */
  withConsumerGroup(groupName: string, options: { createIfNotExists?: boolean; joinGroup?: boolean } = {}): this {
    this.#config = {
      ...this.#config,
      groupName,
      createGroup: options.createIfNotExists ?? true,
      joinGroup: options.joinGroup ?? true,
    };
    return this;
  }

  build(): IggyConsumer {
    return new IggyConsumer(this.#client, this.#config);
  }
}

/**
 * A received message whose payload is a view into its poll's pooled reply buffer (C#:
 * `ReceivedRentedMessage`). It must be disposed: the buffer goes back to the pool when the last
 * message of its poll is disposed, and from then on every view taken of it (`payload`, `headers`,
 * or a `subarray` of them) has length 0 and refuses `slice`/`set`/`subarray` — it never reads the
 * reused memory. `payload` and `headers` throw {@link ObjectDisposedError} as soon as this message
 * is disposed. Copy out what you keep (`message.payload.slice()`).
 */
export class RentedReceivedMessage implements Disposable {
  #message: ReceivedMessage | undefined;
  readonly #buffer: RentedPollBuffer | undefined;
  readonly offset: bigint;
  readonly partition: number;
  readonly id: bigint;

  constructor(message: ReceivedMessage, buffer?: RentedPollBuffer) {
    this.#message = message;
    this.#buffer = buffer;
    this.offset = message.offset;
    this.partition = message.partition;
    this.id = message.id;
  }

  get payload(): Uint8Array {
    if (this.#message === undefined)
      throw new ObjectDisposedError('this rented message was disposed; copy the payload if you need it longer');
    return this.#message.payload;
  }

  get headers(): Uint8Array {
    if (this.#message === undefined)
      throw new ObjectDisposedError('this rented message was disposed; copy the headers if you need them longer');
    return this.#message.headers;
  }

  get disposed(): boolean {
    return this.#message === undefined;
  }

  /** Releases this message's share of the poll buffer; safe to call twice. */
  dispose(): void {
    if (this.#message === undefined) return;
    this.#message = undefined;
    this.#buffer?.release();
  }

  [Symbol.dispose](): void {
    this.dispose();
  }
}
