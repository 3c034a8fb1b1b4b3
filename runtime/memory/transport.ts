/**
 * The in-memory transport: in-process partitioned logs with consumer groups. Every
 * group gets every record (fan-out); members of one group split the partitions
 * (competing consumers); a key always lands on the same partition (per-key order);
 * offsets are committed per group, and what a member acknowledged but did not commit
 * is redelivered to the next owner of its partitions.
 *
 * It is a product feature for users' tests (`published`, `drain`, `clear`), not a
 * stand-in for Kafka in keiyaku's own tests of Kafka.
 */

import { resolveAddress } from '../core/address.js';
import { systemClock } from '../core/clock.js';
import type { AnyChannel, AnyContractMessage, ChannelBindings } from '../core/contract.js';
import { openEnvelope, recordType } from '../core/envelope.js';
import { ClosedError, KeiyakuError } from '../core/errors.js';
import type {
  ConsumedOffset,
  ConsumerOptions,
  IncomingRecord,
  OutgoingRecord,
  PartitionPosition,
  TransactionalProducer,
  Transport,
  TransportCapabilities,
  TransportConsumer,
  TransportProducer,
} from '../core/transport.js';
import { type Waiter, waitForWake } from '../core/wake-up.js';
import { TransactionalIds } from './transactions.js';

export interface MemoryTransportOptions {
  /** Partitions of an address that was not provisioned (default 4). */
  readonly defaultPartitions?: number;
  /** How long an idle poll waits for a record before returning empty (default 50 ms). */
  readonly idleWaitMs?: number;
  /** Time source for record timestamps. */
  readonly now?: () => number;
  /**
   * `all` (default) keeps every record, so `published()` and `drain()` can return them;
   * `uncommitted` drops records every group has committed (long runs, benchmarks) and
   * keeps no history for the test helpers.
   */
  readonly retention?: 'all' | 'uncommitted';
}

interface Partition {
  /** Offset of records[0]. */
  base: number;
  readonly records: IncomingRecord[];
}

interface Log {
  readonly partitions: Partition[];
  /** Every record in publish order, for the test helpers. */
  readonly all: IncomingRecord[];
  roundRobin: number;
}

interface Group {
  readonly committed: number[];
  readonly members: MemoryConsumer[];
}

/** A published record with its decoded message, as the test helpers return it. */
export interface PublishedMessage<M> {
  readonly message: M;
  readonly type: string;
  readonly record: IncomingRecord;
}

/** Reads what `channel` needs before it can decode `records` (a Schema Registry's writer schemas), when it needs anything. */
async function prepareRecords(channel: AnyChannel, records: readonly IncomingRecord[]): Promise<void> {
  if (channel.prepareRecord === undefined) return;
  const pending: Promise<void>[] = [];
  for (const record of records) {
    const prepared = channel.prepareRecord(record.value, recordType(record, channel) ?? '');
    if (prepared !== undefined) pending.push(prepared);
  }
  await Promise.all(pending);
}

/** Fewest committed records `trim` drops at once (unless they are half the partition). */
const TRIM_RUN = 4096;

/** FNV-1a, so a key maps to the same partition in every process. */
function hashKey(key: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    hash ^= key.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

export class InMemoryTransport implements Transport {
  readonly name = 'memory';
  readonly capabilities: TransportCapabilities = Object.freeze({ orderedPartitions: true, durable: false, pausablePartitions: true });
  readonly #logs = new Map<string, Log>();
  readonly #groups = new Map<string, Group>();
  readonly #waiters = new Set<Waiter>();
  readonly #defaultPartitions: number;
  readonly #idleWaitMs: number;
  readonly #now: () => number;
  readonly #retention: 'all' | 'uncommitted';
  readonly #transactional = new TransactionalIds(this);
  #closed = false;

  constructor(options: MemoryTransportOptions = {}) {
    this.#defaultPartitions = options.defaultPartitions ?? 4;
    this.#idleWaitMs = options.idleWaitMs ?? 50;
    this.#now = options.now ?? (() => systemClock.now());
    this.#retention = options.retention ?? 'all';
  }

  /** @internal With `retention: 'uncommitted'`, drops what every group of `address` has committed. */
  trim(address: string): void {
    if (this.#retention !== 'uncommitted') return;
    const log = this.#logs.get(address);
    if (log === undefined) return;
    const prefix = `${address}\u0000`;
    const groups: Group[] = [];
    for (const [key, group] of this.#groups) if (key.startsWith(prefix)) groups.push(group);
    if (groups.length === 0) return;
    for (let p = 0; p < log.partitions.length; p++) {
      const partition = log.partitions[p]!;
      let floor = Number.POSITIVE_INFINITY;
      for (const group of groups) floor = Math.min(floor, group.committed[p] ?? 0);
      const records = partition.records;
      const drop = Math.min(records.length, floor - partition.base);
      // Dropped in runs (at least 4096 records, or half of what is kept): shifting the rest of the
      // array on every commit cost more than the records it freed.
      if (drop > 0 && (drop >= TRIM_RUN || drop * 2 >= records.length)) {
        records.splice(0, drop);
        partition.base += drop;
      }
    }
  }

  async provision(address: string, bindings: ChannelBindings): Promise<void> {
    const partitions = bindings.kafka?.partitions ?? bindings.iggy?.partitions ?? this.#defaultPartitions;
    if (!this.#logs.has(address))
      this.#logs.set(address, {
        partitions: Array.from({ length: Math.max(1, partitions) }, () => ({ base: 0, records: [] })),
        all: [],
        roundRobin: 0,
      });
  }

  /** The address itself: memory has no names of its own. */
  destination(address: string, _bindings?: ChannelBindings): string {
    return address;
  }

  /** Whether `address` is known: provisioned, published to or read from. */
  async destinationExists(address: string, _bindings?: ChannelBindings): Promise<boolean> {
    return this.#logs.has(address);
  }

  /** @internal */
  log(address: string): Log {
    let log = this.#logs.get(address);
    if (log === undefined) {
      log = { partitions: Array.from({ length: this.#defaultPartitions }, () => ({ base: 0, records: [] })), all: [], roundRobin: 0 };
      this.#logs.set(address, log);
    }
    return log;
  }

  /** @internal Appends `records` (one send: one timestamp). */
  append(records: readonly OutgoingRecord[]): void {
    if (this.#closed) throw new ClosedError('the in-memory transport');
    const timestamp = this.#now();
    const keepAll = this.#retention === 'all';
    let address: string | undefined;
    let log: Log | undefined;
    for (const record of records) {
      if (record.address !== address || log === undefined) {
        address = record.address;
        log = this.log(address);
      }
      const partition = record.key === undefined ? log.roundRobin++ % log.partitions.length : hashKey(record.key) % log.partitions.length;
      const target = log.partitions[partition]!;
      const offset = String(target.base + target.records.length);
      const stored: IncomingRecord =
        record.key === undefined
          ? { address, value: record.value, headers: record.headers, partition, offset, timestamp }
          : { address, key: record.key, value: record.value, headers: record.headers, partition, offset, timestamp };
      target.records.push(stored);
      if (keepAll) log.all.push(stored);
    }
  }

  /** @internal */
  notify(): void {
    for (const wake of [...this.#waiters]) wake();
  }

  /** @internal */
  waitForRecords(signal: AbortSignal): Promise<void> {
    return waitForWake(this.#waiters, { timeoutMs: this.#idleWaitMs, signal });
  }

  /** @internal */
  group(address: string, groupId: string): Group {
    const key = `${address}\u0000${groupId}`;
    let group = this.#groups.get(key);
    if (group === undefined) {
      group = { committed: [], members: [] };
      this.#groups.set(key, group);
    }
    return group;
  }

  /** @internal Reassigns the partitions of `address` round-robin over the group's members. */
  rebalance(address: string, group: Group): void {
    const partitions = this.log(address).partitions.length;
    const assignment = new Map<MemoryConsumer, number[]>(group.members.map((m) => [m, []]));
    for (let p = 0; p < partitions; p++) {
      const member = group.members[p % Math.max(1, group.members.length)];
      if (member) assignment.get(member)!.push(p);
    }
    // A member keeps its progress on partitions it keeps; moved partitions restart at the committed offset.
    for (const [member, owned] of assignment) member.assign(owned);
  }

  producer(): TransportProducer {
    let closed = false;
    return {
      send: async (records) => {
        if (closed) throw new ClosedError('the in-memory producer');
        this.append(records);
        this.notify();
      },
      close: async () => {
        closed = true;
      },
    };
  }

  /**
   * A producer writing in transactions: records sent in one are appended when it commits (as one
   * send), consumed offsets given to it are committed for their group then, an abort drops both.
   * A second producer with the same id fences this one (its open transaction is aborted, its later
   * calls throw ProducerFencedError).
   */
  transactionalProducer(transactionalId: string): TransactionalProducer {
    if (this.#closed) throw new ClosedError('the in-memory transport');
    return this.#transactional.producer(transactionalId);
  }

  /** @internal Commits `offset` for `groupId` on a partition of `address` (a transaction's offsets). */
  commitOffset(address: string, groupId: string, partition: number, offset: number): void {
    this.group(address, groupId).committed[partition] = offset;
    this.trim(address);
  }

  consumer(options: ConsumerOptions): TransportConsumer {
    if (this.#closed) throw new ClosedError('the in-memory transport');
    const group = this.group(options.address, options.groupId);
    // A new group that starts at the end: its position is the end of each partition, now.
    if (options.start === 'latest' && group.members.length === 0 && group.committed.length === 0)
      for (const [p, partition] of this.log(options.address).partitions.entries())
        group.committed[p] = partition.base + partition.records.length;
    const consumer = new MemoryConsumer(this, options, group);
    group.members.push(consumer);
    this.rebalance(options.address, group);
    return consumer;
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.notify();
  }

  // ---- test helpers -------------------------------------------------------------

  /**
   * Every record published to `channel` (a descriptor, or an address), decoded, in publish order per partition.
   * A channel framed for a Schema Registry decodes only what its schemas were read for: use {@link drain}, which reads them.
   */
  published<M extends AnyContractMessage>(channel: AnyChannel<M>, address?: string): PublishedMessage<M>[];
  published(address: string): IncomingRecord[];
  published<M extends AnyContractMessage>(channel: AnyChannel<M> | string, address?: string): PublishedMessage<M>[] | IncomingRecord[] {
    if (typeof channel === 'string') return this.#records(channel);
    return this.#records(resolveAddress(channel, address)).map((record) => {
      const opened = openEnvelope(channel, record);
      if (!opened.decoded.ok) throw opened.decoded.error;
      return { message: opened.decoded.value, type: opened.type, record };
    });
  }

  #records(address: string): IncomingRecord[] {
    return [...(this.#logs.get(address)?.all ?? [])];
  }

  /** Waits until `channel` holds at least `expected` messages (async producers catch up), then returns them. */
  async drain<M extends AnyContractMessage>(
    channel: AnyChannel<M>,
    expected: number,
    timeoutMs = 5_000,
    address?: string,
  ): Promise<PublishedMessage<M>[]> {
    const deadline = Date.now() + timeoutMs;
    while (true) {
      await prepareRecords(channel, this.#records(resolveAddress(channel, address)));
      const messages = this.published(channel, address);
      if (messages.length >= expected) return messages;
      if (Date.now() >= deadline) {
        throw new KeiyakuError(
          'drain_timeout',
          `expected ${expected} messages on ${channel.id} within ${timeoutMs} ms, found ${messages.length}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  /** Forgets every record and every group's committed offsets (between tests). */
  clear(): void {
    for (const log of this.#logs.values()) {
      log.all.length = 0;
      for (const p of log.partitions) {
        p.records.length = 0;
        p.base = 0;
      }
    }
    for (const group of this.#groups.values()) {
      group.committed.length = 0;
      for (const member of group.members) member.reset();
    }
  }
}

class MemoryConsumer implements TransportConsumer {
  readonly #transport: InMemoryTransport;
  readonly #options: ConsumerOptions;
  readonly #group: Group;
  /** Next offset to read, per owned partition. */
  readonly #cursor = new Map<number, number>();
  /** Offset after the last acknowledged record, per partition. */
  readonly #acked = new Map<number, number>();
  readonly #paused = new Set<number>();
  #owned: number[] = [];
  #closed = false;

  constructor(transport: InMemoryTransport, options: ConsumerOptions, group: Group) {
    this.#transport = transport;
    this.#options = options;
    this.#group = group;
  }

  assign(partitions: number[]): void {
    // Uncommitted progress on partitions that move away is dropped: the next owner starts at the committed offset.
    for (const p of this.#owned) if (!partitions.includes(p)) this.#cursor.delete(p);
    this.#owned = partitions;
    for (const p of partitions) if (!this.#cursor.has(p)) this.#cursor.set(p, this.#group.committed[p] ?? 0);
  }

  reset(): void {
    this.#cursor.clear();
    this.#acked.clear();
    this.assign(this.#owned);
  }

  async poll(signal: AbortSignal): Promise<readonly IncomingRecord[]> {
    if (this.#closed) throw new ClosedError(`the in-memory consumer of ${this.#options.groupId}`);
    const batch = this.#take();
    if (batch.length > 0 || signal.aborted) return batch;
    await this.#transport.waitForRecords(signal);
    return this.#closed || signal.aborted ? [] : this.#take();
  }

  #take(): IncomingRecord[] {
    const log = this.#transport.log(this.#options.address);
    const limit = this.#options.batchSize;
    const out: IncomingRecord[] = [];
    // Rounds over the partitions, a run of at most an even share from each, so one busy
    // partition does not starve the others.
    const share = Math.max(1, Math.ceil(limit / Math.max(1, this.#owned.length)));
    let progressed = true;
    while (out.length < limit && progressed) {
      progressed = false;
      for (const p of this.#owned) {
        const partition = log.partitions[p];
        if (partition === undefined || out.length >= limit || this.#paused.has(p)) continue;
        const records = partition.records;
        // A group that joins after records were trimmed starts at the oldest one kept.
        let at = Math.max(this.#cursor.get(p) ?? 0, partition.base) - partition.base;
        const end = Math.min(records.length, at + share, at + limit - out.length);
        if (at >= end) continue;
        while (at < end) out.push(records[at++]!);
        this.#cursor.set(p, partition.base + at);
        progressed = true;
      }
    }
    return out;
  }

  ack(record: IncomingRecord): void {
    const next = Number(record.offset) + 1;
    if (next > (this.#acked.get(record.partition) ?? 0)) this.#acked.set(record.partition, next);
  }

  async commit(): Promise<void> {
    for (const [p, next] of this.#acked) {
      if (this.#owned.includes(p) && next > (this.#group.committed[p] ?? 0)) this.#group.committed[p] = next;
    }
    this.#transport.trim(this.#options.address);
  }

  uncommitted(): readonly ConsumedOffset[] {
    const out: ConsumedOffset[] = [];
    for (const [p, next] of this.#acked) {
      if (this.#owned.includes(p) && next > (this.#group.committed[p] ?? 0))
        out.push({ address: this.#options.address, partition: p, offset: String(next) });
    }
    return out;
  }

  committed(offsets: readonly ConsumedOffset[]): void {
    // The transaction committed them for the group already; a late one never moves the group back.
    for (const { address, partition, offset } of offsets) {
      const next = Number(offset);
      if (address === this.#options.address && next > (this.#group.committed[partition] ?? 0)) this.#group.committed[partition] = next;
    }
  }

  pause(partition: number): void {
    this.#paused.add(partition);
  }

  resume(partition: number): void {
    this.#paused.delete(partition);
    this.#transport.notify();
  }

  positions(): readonly PartitionPosition[] {
    const log = this.#transport.log(this.#options.address);
    return this.#owned.map((p) => {
      const partition = log.partitions[p];
      const high = partition === undefined ? 0 : partition.base + partition.records.length;
      const committed = this.#group.committed[p] ?? 0;
      const acked = this.#acked.get(p);
      return {
        partition: p,
        committed: String(committed),
        ...(acked === undefined ? {} : { acknowledged: String(acked) }),
        highWatermark: String(high),
        lag: high - committed,
      };
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const members = this.#group.members;
    members.splice(members.indexOf(this), 1);
    this.#transport.rebalance(this.#options.address, this.#group);
    this.#transport.notify();
  }
}
