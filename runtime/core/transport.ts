import type { AnyChannel, ChannelBindings } from './contract.js';
import type { Logger } from './logger.js';

/**
 * The Transport interface that the memory, Kafka and Iggy transports implement. Shared
 * code (publisher, subscription, messaging host) never branches on which transport it runs
 * over; it relies only on this interface.
 */

/** One record as it travels: bytes, a key, and string headers (CloudEvents binary mode). */
export interface WireRecord {
  /** Partition key: the aggregate id, so one aggregate's events stay in order. */
  readonly key?: string;
  readonly value: Uint8Array;
  readonly headers: Readonly<Record<string, string>>;
}

export interface OutgoingRecord extends WireRecord {
  /** Concrete address (topic, stream/topic) of the channel. */
  readonly address: string;
}

export interface IncomingRecord extends WireRecord {
  readonly address: string;
  readonly partition: number;
  /** Transport offset, as a decimal string (Kafka offsets exceed 2^53). */
  readonly offset: string;
  /** When the transport stored the record (ms since the epoch). */
  readonly timestamp: number;
}

/**
 * What a transport guarantees, as each transport declares it for applications to inspect.
 * Descriptive only: nothing in the runtime reads it to decide what to do.
 */
export interface TransportCapabilities {
  /** Records of one key keep their order within a partition. */
  readonly orderedPartitions: boolean;
  /** Records survive a restart of the process. */
  readonly durable: boolean;
  /** Consumers can pause and resume single partitions. */
  readonly pausablePartitions: boolean;
}

export interface TransportProducer {
  /** Resolves when every record is acknowledged by the transport; rejects if any is not. */
  send(records: readonly OutgoingRecord[]): Promise<void>;
  close(): Promise<void>;
}

export interface ConsumerOptions {
  readonly address: string;
  /** Consumer group: competing consumers within it, every group gets every record. */
  readonly groupId: string;
  /** Most records one poll returns. */
  readonly batchSize: number;
  /**
   * Whether records of transactions not yet committed (or aborted) are read: `read_committed`
   * (the default where the transport has transactions) reads only committed ones.
   */
  readonly isolation?: 'read_committed' | 'read_uncommitted';
  /**
   * Where a group with no committed position starts: `earliest` (the default, or the transport's
   * own setting) reads what the address already holds; `latest` reads only records written after
   * the consumer is positioned ({@link TransportConsumer.positioned}). A requester reads its
   * replies from `latest`: a fresh instance never reads old replies.
   */
  readonly start?: 'earliest' | 'latest';
}

/** A consumed position a transaction commits for a consumer group: the next offset to read. */
export interface ConsumedOffset {
  readonly address: string;
  readonly partition: number;
  /** Offset after the last record processed, as a decimal string. */
  readonly offset: string;
}

/**
 * One open transaction of a {@link TransactionalProducer}: records sent in it and consumed
 * offsets given to it become visible (to `read_committed` readers) together on `commit`, or never.
 */
export interface TransportTransaction {
  send(records: readonly OutgoingRecord[]): Promise<void>;
  /** Commits `offsets` for consumer group `groupId` (as the subscription names it) with this transaction. */
  sendOffsets(groupId: string, offsets: readonly ConsumedOffset[]): Promise<void>;
  commit(): Promise<void>;
  /** Aborts: nothing sent in the transaction is ever read by a `read_committed` reader. Never throws for a transaction already ended. */
  abort(): Promise<void>;
  /**
   * Stores `value` in the transaction for its transactional id: on commit it becomes the id's last
   * note ({@link TransactionalProducer.lastNote}), like the source position Kafka Connect commits
   * with its records. Only the last note of a transaction counts.
   */
  note?(value: string): Promise<void>;
}

/**
 * A producer that writes in transactions (Kafka). One transaction at a time. A second producer
 * with the same `transactionalId` fences this one: its open transaction is aborted and its later
 * calls fail.
 */
export interface TransactionalProducer {
  readonly transactionalId: string;
  begin(): Promise<TransportTransaction>;
  /**
   * The note of the last committed transaction of this transactional id that carried one, from
   * any producer of the id (undefined if none). Call it before `begin()` on a new producer: it first
   * takes the id over, so what a predecessor left open is finished (committed or aborted) before
   * the note is read. Transports with notes implement it together with `TransportTransaction.note`.
   */
  lastNote?(): Promise<string | undefined>;
  close(): Promise<void>;
}

export interface PartitionPosition {
  readonly partition: number;
  /** Next offset the group will read after a restart (committed), if any. */
  readonly committed?: string;
  /** Offset after the last record acknowledged in this process. */
  readonly acknowledged?: string;
  /** Offset after the newest record in the partition. */
  readonly highWatermark?: string;
  /** Records not yet committed by the group. */
  readonly lag?: number;
}

export interface TransportConsumer {
  /** Up to `batchSize` records from assigned, unpaused partitions; empty after an idle wait or when `signal` aborts. */
  poll(signal: AbortSignal): Promise<readonly IncomingRecord[]>;
  /** Marks `record` processed: its offset (+1) will be committed. Never commits by itself. */
  ack(record: IncomingRecord): void;
  /** Commits what was acknowledged. */
  commit(): Promise<void>;
  /**
   * What is acknowledged and not yet committed, per partition (for a transaction to commit through
   * {@link TransportTransaction.sendOffsets}). Transports with transactions implement it.
   */
  uncommitted?(): readonly ConsumedOffset[];
  /** `offsets` were committed by a transaction: the consumer treats them as committed. */
  committed?(offsets: readonly ConsumedOffset[]): void;
  pause(partition: number): void;
  resume(partition: number): void;
  /** Assigned partitions with their positions, for health and telemetry. */
  positions(): readonly PartitionPosition[];
  /**
   * Resolves once the consumer holds its partitions and knows where it reads each from: a record
   * written after it resolves is read (with `start: 'latest'`, one written before is not).
   * Transports that position a consumer when it is made may leave it out.
   */
  positioned?(): Promise<void>;
  /** Leaves the group; unacknowledged records are redelivered to the next member. */
  close(): Promise<void>;
}

/** A transport's own view of its connections, part of the host's health and readiness. */
export interface TransportHealth {
  readonly name: string;
  /** False while the transport is cut off from its brokers/server; `reason` then says why. */
  readonly ready: boolean;
  readonly reason?: string;
  /** Transport-specific figures (cut-offs and rebuilds, reconnects and generations, …). */
  readonly details?: Readonly<Record<string, unknown>>;
}

export interface Transport {
  readonly name: string;
  readonly capabilities: TransportCapabilities;
  producer(): TransportProducer;
  consumer(options: ConsumerOptions): TransportConsumer;
  /**
   * Creates the address if missing, sized from the channel's bindings for this transport
   * (Kafka partitions, Iggy partitions, …). Never alters an existing address.
   */
  provision?(address: string, bindings: ChannelBindings): Promise<void>;
  /**
   * The broker's name of `address`, where consumers read it (Kafka: the binding's `topic`, else the
   * address, with the namespace; Iggy: `stream/topic`), resolved from the channel's bindings as
   * `provision` resolves it and remembered for sends as `provision` remembers it. Creates nothing.
   * Redrive reads it; a transport without it is taken to send to the address itself.
   */
  destination?(address: string, bindings: ChannelBindings): string;
  /**
   * Throws a KeiyakuError naming the fix when the transport cannot carry `channel`'s messages at
   * `address` as configured (a Kafka channel in structured content mode whose payloads are Avro or
   * Protobuf). Publishers and subscriptions call it when they are made.
   */
  checkChannel?(channel: AnyChannel, address: string): void;
  /** Whether {@link destination} exists on the broker now. Never creates it (a redrive must not auto-create a topic). */
  destinationExists?(address: string, bindings: ChannelBindings): Promise<boolean>;
  /** The state of the transport's connections, when it tracks them. */
  health?(): TransportHealth;
  /**
   * A producer writing in transactions under `transactionalId` (stable across restarts of the same
   * instance, so a restarted one fences and aborts what its predecessor left open). Transports
   * without transactions leave it out.
   */
  transactionalProducer?(transactionalId: string): TransactionalProducer;
  /**
   * The host's logger: a transport built without a logger of its own speaks through it from now
   * on (its clients included); one given to the transport's own options is kept. `Messaging` calls
   * it when it is given a logger.
   */
  useLogger?(logger: Logger): void;
  close(): Promise<void>;
}
