/**
 * The Iggy transport behind keiyaku's Transport interface.
 *
 * - Address → stream/topic: the channel's `x-iggy` binding (`stream`, `topic`, `partitions`)
 *   when provisioned with it; otherwise stream `options.stream` (default `keiyaku`) and topic =
 *   the address. Streams and topics are created when missing, never altered.
 * - Publishing: the partition is resolved on the client (XXH32 of the key mod partitions; no
 *   key: round-robin); the message id is the event id (`ce_id`, a UUID) as a u128; the key and
 *   every CloudEvents header travel as string user headers.
 * - Consuming: one connection (and so one client id) per consumer, joined to the consumer
 *   group named after the handler's `groupId`; polls without server auto-commit; `commit`
 *   stores the last acknowledged offset per partition (at least once).
 */
import type {
  ChannelBindings,
  ConsumerOptions,
  IncomingRecord,
  OutgoingRecord,
  PartitionPosition,
  Transport,
  TransportCapabilities,
  TransportConsumer,
  TransportHealth,
  TransportProducer,
} from '@keiyaku/runtime/adapter';
import {
  type Clock,
  ClosedError,
  forwardingLogger,
  type Logger,
  stderrLogger,
  systemClock,
  TransportError,
} from '@keiyaku/runtime/adapter';
import { IggyClient, type IggyClientOptions } from './client.js';
import { encodeHeaders, messageIdOf, recordFromIggy } from './envelope-headers.js';
import { GroupMembership } from './group-membership.js';
import { IGGY_PLACEMENT_DEFAULTS, partitionForKey } from './placement.js';
import { isRecoverable } from './protocol/errors.js';
import { RESYNC_SENTINEL } from './protocol/version.js';
import { ensureTopic } from './topics.js';

/** @internal Kept here for the decoders' fuzz targets; lives in envelope-headers.ts. */
export { recordFromIggy };

export interface IggyTransportOptions extends IggyClientOptions {
  /** Stream of addresses without an `x-iggy` binding (default `keiyaku`). */
  readonly stream?: string;
  /** Partitions of topics created without a binding (default 3). */
  readonly defaultPartitions?: number;
  /** How long an idle poll waits before polling again (default 50 ms). */
  readonly idleWaitMs?: number;
}

interface Placement {
  readonly stream: string;
  readonly topic: string;
  partitions: number;
}

export class IggyTransport implements Transport {
  readonly name = 'iggy';
  readonly capabilities: TransportCapabilities = Object.freeze({ orderedPartitions: true, durable: true, pausablePartitions: true });
  readonly options: IggyTransportOptions;
  /** Where the transport and its clients report reconnects, evictions and rejoins: `options.logger`, else the host's (see {@link useLogger}), else `stderrLogger`. */
  readonly logger: Logger = forwardingLogger(() => this.#logger);
  #logger: Logger;
  readonly clock: Clock;
  readonly #placements = new Map<string, Placement>();
  readonly #ready = new Map<string, Promise<Placement>>();
  readonly #clients = new Set<IggyClient>();
  readonly #roles = new WeakMap<IggyClient, string>();
  #admin: Promise<IggyClient> | undefined;

  constructor(options: IggyTransportOptions) {
    this.options = options;
    this.#logger = options.logger ?? stderrLogger;
    this.clock = options.clock ?? systemClock;
  }

  /** Speaks through the host's logger from now on (every client too), unless the options gave a logger of its own. */
  useLogger(logger: Logger): void {
    if (this.options.logger === undefined) this.#logger = logger;
  }

  /** A connected, logged-in client on its own connection. */
  async newClient(role: 'admin' | 'producer' | 'consumer' | 'client' = 'client'): Promise<IggyClient> {
    const client = new IggyClient({ ...this.options, logger: this.logger, clock: this.clock });
    await client.connect();
    this.#clients.add(client);
    this.#roles.set(client, role);
    return client;
  }

  #adminClient(): Promise<IggyClient> {
    this.#admin ??= this.newClient('admin');
    return this.#admin;
  }

  placement(address: string): Placement {
    let placement = this.#placements.get(address);
    if (placement === undefined) {
      placement = {
        stream: this.options.stream ?? IGGY_PLACEMENT_DEFAULTS.stream,
        topic: address,
        partitions: this.options.defaultPartitions ?? IGGY_PLACEMENT_DEFAULTS.transportPartitions,
      };
      this.#placements.set(address, placement);
    }
    return placement;
  }

  async provision(address: string, bindings: ChannelBindings): Promise<void> {
    this.destination(address, bindings);
    await this.ensure(address);
  }

  /** `stream/topic` of `address` from its channel's `x-iggy` binding (else the defaults), remembered for sends. Creates nothing. */
  destination(address: string, bindings: ChannelBindings): string {
    const iggy = bindings.iggy;
    if (!this.#placements.has(address) && iggy) {
      this.#placements.set(address, {
        stream: iggy.stream ?? this.options.stream ?? IGGY_PLACEMENT_DEFAULTS.stream,
        topic: iggy.topic ?? address,
        partitions: iggy.partitions ?? this.options.defaultPartitions ?? IGGY_PLACEMENT_DEFAULTS.transportPartitions,
      });
    }
    const placement = this.placement(address);
    return `${placement.stream}/${placement.topic}`;
  }

  /** Whether the stream and topic of `address` exist (asked of the server; nothing is created). */
  async destinationExists(address: string, bindings: ChannelBindings): Promise<boolean> {
    this.destination(address, bindings);
    const placement = this.placement(address);
    const admin = await this.#adminClient();
    if ((await admin.getStream(placement.stream)) === undefined) return false;
    return (await admin.getTopic(placement.stream, placement.topic)) !== undefined;
  }

  /** Creates the stream and topic of `address` if missing ("already exists" races are fine); learns the partition count. */
  ensure(address: string): Promise<Placement> {
    let pending = this.#ready.get(address);
    if (pending === undefined) {
      pending = (async () => {
        const placement = this.placement(address);
        const topic = await ensureTopic(
          await this.#adminClient(),
          placement.stream,
          placement.topic,
          { stream: true, topic: true, partitions: placement.partitions },
          'provision',
        );
        placement.partitions = topic.partitionsCount;
        return placement;
      })();
      this.#ready.set(address, pending);
      pending.catch(() => this.#ready.delete(address));
    }
    return pending;
  }

  producer(): TransportProducer {
    let client: Promise<IggyClient> | undefined;
    let roundRobin = 0;
    let closed = false;
    return {
      send: async (records: readonly OutgoingRecord[]) => {
        if (closed) throw new ClosedError('the Iggy producer');
        const empty = records.find((r) => r.value.length === 0);
        if (empty) throw new TransportError('iggy', 'Iggy cannot carry an empty payload', { address: empty.address, retriable: false });
        // Headers first: one Iggy cannot carry (over 255 bytes) fails the whole send at once
        // (IggyHeaderError, not retriable), before any connection or any message goes out.
        const headers = records.map((r) => encodeHeaders(r.headers, r.key, r.address));
        client ??= this.newClient('producer');
        const connection = await client;
        const groups = new Map<
          string,
          { address: string; partition: number; records: OutgoingRecord[]; headers: (Uint8Array | undefined)[] }
        >();
        for (const [index, record] of records.entries()) {
          const placement = await this.ensure(record.address);
          const partition =
            record.key === undefined ? roundRobin++ % placement.partitions : partitionForKey(record.key, placement.partitions);
          const key = `${record.address}\u0000${partition}`;
          const group = groups.get(key) ?? { address: record.address, partition, records: [], headers: [] };
          group.records.push(record);
          group.headers.push(headers[index]);
          groups.set(key, group);
        }
        const now = BigInt(Date.now()) * 1000n;
        for (const group of groups.values()) {
          const placement = this.placement(group.address);
          await connection.sendMessages(
            placement.stream,
            placement.topic,
            { kind: 'partition', id: group.partition },
            group.records.map((r, i) => {
              const encoded = group.headers[i];
              return {
                id: messageIdOf(r.headers['ce_id']),
                payload: r.value,
                ...(encoded ? { headers: encoded } : {}),
                originTimestamp: now,
              };
            }),
          );
        }
      },
      close: async () => {
        closed = true;
        if (client) {
          const c = await client.catch(() => undefined);
          await c?.close();
        }
      },
    };
  }

  consumer(options: ConsumerOptions): TransportConsumer {
    return new IggyTransportConsumer(this, options);
  }

  /**
   * Every client's connection: its role, generation (logins), reconnects, whether it is
   * connected. Not ready while a consumer's client has lost its connection (consumers poll all
   * the time, so they reconnect at once when the server is back); producer and admin clients
   * are reported but reconnect on their next command, which a quiet service may not send.
   */
  health(): TransportHealth {
    const clients = [...this.#clients]
      .filter((c) => !c.closed)
      .map((c) => ({
        role: this.#roles.get(c) ?? 'client',
        clientId: String(c.connection.clientId),
        generation: c.generation,
        reconnects: c.reconnectCount,
        connected: c.connection.alive,
        reconnecting: c.reconnecting,
      }));
    const lost = clients.filter((c) => c.role === 'consumer' && !c.connected && c.generation > 0);
    return {
      name: this.name,
      ready: lost.length === 0,
      ...(lost.length === 0
        ? {}
        : {
            reason: `${lost.length} Iggy consumer client(s) lost the connection to ${this.options.host}:${this.options.port}; reconnecting`,
          }),
      details: { clients, reconnects: clients.reduce((n, c) => n + c.reconnects, 0) },
    };
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.#clients].map((c) => c.close()));
  }
}

class IggyTransportConsumer implements TransportConsumer {
  readonly #transport: IggyTransport;
  readonly #options: ConsumerOptions;
  readonly #acked = new Map<number, bigint>();
  readonly #committed = new Map<number, bigint>();
  readonly #cursor = new Map<number, bigint>();
  readonly #high = new Map<number, bigint>();
  readonly #paused = new Set<number>();
  #partitions: readonly number[] = [];
  #next = 0;
  /** The group membership on this consumer's own client (its connection reconnects by itself). */
  #membership: Promise<GroupMembership>;
  #closed = false;

  constructor(transport: IggyTransport, options: ConsumerOptions) {
    this.#transport = transport;
    this.#options = options;
    this.#membership = this.#join();
    this.#membership.catch(() => undefined);
  }

  async #join(): Promise<GroupMembership> {
    const placement = await this.#transport.ensure(this.#options.address);
    const client = await this.#transport.newClient('consumer');
    const membership = new GroupMembership(client, placement.stream, placement.topic, this.#options.groupId);
    await membership.ensure(true, undefined, 'subscribe');
    await membership.refresh();
    this.#assign(membership.partitions);
    if (this.#options.start === 'latest') await this.#startAtEnd(membership);
    return membership;
  }

  /** `start: 'latest'`: each partition the group has no stored offset for starts after its last message (stored as consumed). */
  async #startAtEnd(membership: GroupMembership): Promise<void> {
    const { client } = membership;
    const placement = this.#transport.placement(this.#options.address);
    const consumer = { kind: 'group', id: this.#options.groupId } as const;
    // A member the join left without partitions yet gets them now: each must start at its end.
    if (this.#partitions.length === 0) this.#assign(await membership.sync());
    for (const partition of this.#partitions) {
      const target = { consumer, stream: placement.stream, topic: placement.topic, partition };
      if ((await client.getConsumerOffset(target)) !== undefined) continue;
      const last = await client.pollMessages({ ...target, strategy: { kind: 'last' }, count: 1, autoCommit: false });
      const message = last.messages.at(-1);
      if (message === undefined) continue;
      await client.storeConsumerOffset(target, message.offset);
      this.#committed.set(partition, message.offset);
    }
  }

  /** Resolves once the consumer joined its group and, with `start: 'latest'`, stored where each partition starts. */
  positioned(): Promise<void> {
    return this.#membership.then(
      () => undefined,
      () => undefined,
    );
  }

  #assign(partitions: readonly number[]): void {
    this.#partitions = partitions;
    for (const p of [...this.#cursor.keys()]) if (!partitions.includes(p)) this.#cursor.delete(p);
  }

  async poll(signal: AbortSignal): Promise<readonly IncomingRecord[]> {
    if (this.#closed) throw new ClosedError(`the Iggy consumer of ${this.#options.groupId}`);
    try {
      return await this.#poll(signal);
    } catch (error) {
      if (!isRecoverable(error) || this.#closed) throw error;
      this.#transport.logger.warn('iggy: a subscription recovers from a failed poll; it joins its group again', {
        address: this.#options.address,
        groupId: this.#options.groupId,
        error: error instanceof Error ? error.message : String(error),
      });
      // The connection died, the member was evicted or the server said "not now": join again on the next
      // poll (the client reconnects by itself); at least once holds because the group's stored offsets
      // decide where polling resumes. A join that never succeeded starts over.
      const membership = await this.#membership.catch(() => undefined);
      if (membership) membership.invalidate();
      else {
        this.#membership = this.#join();
        this.#membership.catch(() => undefined);
      }
      this.#cursor.clear();
      await this.#idle(signal);
      return [];
    }
  }

  /** Waits before polling again; an abort ends the wait early. */
  #idle(signal: AbortSignal): Promise<void> {
    return this.#transport.clock.sleep(this.#transport.options.idleWaitMs ?? 50, signal).catch(() => undefined);
  }

  async #poll(signal: AbortSignal): Promise<readonly IncomingRecord[]> {
    const membership = await this.#membership;
    const { client } = membership;
    const placement = this.#transport.placement(this.#options.address);
    if (await membership.refresh()) {
      this.#cursor.clear();
      this.#assign(membership.partitions);
    }
    const candidates = this.#partitions.filter((p) => !this.#paused.has(p));
    for (let tried = 0; tried < candidates.length && !signal.aborted; tried++) {
      const partition = candidates[this.#next++ % candidates.length]!;
      const cursor = this.#cursor.get(partition);
      const reply = await client.pollMessages({
        consumer: { kind: 'group', id: this.#options.groupId },
        stream: placement.stream,
        topic: placement.topic,
        partition,
        strategy: cursor === undefined ? { kind: 'next' } : { kind: 'offset', value: cursor },
        count: this.#options.batchSize,
        autoCommit: false,
      });
      if (reply.partitionId === RESYNC_SENTINEL) {
        this.#assign(await membership.sync());
        return [];
      }
      this.#high.set(partition, reply.currentOffset);
      if (reply.messages.length === 0) continue;
      this.#cursor.set(partition, reply.messages.at(-1)!.offset + 1n);
      return reply.messages.map((m) => recordFromIggy(m, this.#options.address, partition));
    }
    if (this.#partitions.length === 0) this.#assign(await membership.sync());
    await this.#idle(signal);
    return [];
  }

  ack(record: IncomingRecord): void {
    const offset = BigInt(record.offset);
    if (offset >= (this.#acked.get(record.partition) ?? -1n)) this.#acked.set(record.partition, offset);
  }

  async commit(): Promise<void> {
    const { client } = await this.#membership;
    const placement = this.#transport.placement(this.#options.address);
    for (const [partition, offset] of this.#acked) {
      if (!this.#partitions.includes(partition) || offset <= (this.#committed.get(partition) ?? -1n)) continue;
      await client.storeConsumerOffset(
        { consumer: { kind: 'group', id: this.#options.groupId }, stream: placement.stream, topic: placement.topic, partition },
        offset,
      );
      this.#committed.set(partition, offset);
    }
  }

  pause(partition: number): void {
    this.#paused.add(partition);
  }

  resume(partition: number): void {
    this.#paused.delete(partition);
  }

  positions(): readonly PartitionPosition[] {
    return this.#partitions.map((partition) => {
      const committed = this.#committed.get(partition);
      const acked = this.#acked.get(partition);
      const high = this.#high.get(partition);
      return {
        partition,
        ...(committed === undefined ? {} : { committed: String(committed + 1n) }),
        ...(acked === undefined ? {} : { acknowledged: String(acked + 1n) }),
        ...(high === undefined ? {} : { highWatermark: String(high + 1n) }),
      };
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const membership = await this.#membership.catch(() => undefined);
    if (membership === undefined) return;
    await membership.leave();
    await membership.client.close();
  }
}
