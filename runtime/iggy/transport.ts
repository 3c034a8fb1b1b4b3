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
import { randomUUID } from 'node:crypto';
import type { ChannelBindings } from '../codegen-v1.js';
import { ClosedError } from '../core/errors.js';
import type {
  ConsumerOptions,
  IncomingRecord,
  OutgoingRecord,
  PartitionPosition,
  Transport,
  TransportCapabilities,
  TransportConsumer,
  TransportProducer,
} from '../core/transport.js';
import { IggyClient, type IggyClientOptions, messageIdFromUuid } from './client.js';
import { xxh32Seed0 } from './protocol/checksum.js';
import { IggyError, isRecoverable } from './protocol/errors.js';
import { readTlv, tlv, writeTlv } from './protocol/primitives.js';
import { RESYNC_SENTINEL } from './protocol/v0_11/commands/messages.js';
import { Reader, Writer } from './protocol/wire.js';

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

const KEY_HEADER = 'keiyaku_key';

function encodeHeaders(headers: Readonly<Record<string, string>>, key: string | undefined): Uint8Array | undefined {
  const entries = Object.entries(headers).filter(([, v]) => v.length > 0);
  if (key !== undefined && key.length > 0) entries.push([KEY_HEADER, key]);
  if (entries.length === 0) return undefined;
  const w = new Writer(256);
  writeTlv(
    w,
    entries.map(([k, v]) => [tlv.string(k), tlv.string(v)] as const),
  );
  return w.finish();
}

function decodeHeaders(bytes: Uint8Array): Record<string, string> {
  if (bytes.length === 0) return {};
  const decoder = new TextDecoder();
  return Object.fromEntries(readTlv(new Reader(bytes), bytes.length).map(([k, v]) => [decoder.decode(k.value), decoder.decode(v.value)]));
}

export class IggyTransport implements Transport {
  readonly name = 'iggy';
  readonly capabilities: TransportCapabilities = Object.freeze({ orderedPartitions: true, durable: true, pausablePartitions: true });
  readonly options: IggyTransportOptions;
  readonly #placements = new Map<string, Placement>();
  readonly #ready = new Map<string, Promise<Placement>>();
  readonly #clients = new Set<IggyClient>();
  #admin: Promise<IggyClient> | undefined;

  constructor(options: IggyTransportOptions) {
    this.options = options;
  }

  /** A connected, logged-in client on its own connection. */
  async newClient(): Promise<IggyClient> {
    const client = new IggyClient(this.options);
    await client.connect();
    this.#clients.add(client);
    return client;
  }

  #adminClient(): Promise<IggyClient> {
    this.#admin ??= this.newClient();
    return this.#admin;
  }

  placement(address: string): Placement {
    let placement = this.#placements.get(address);
    if (placement === undefined) {
      placement = { stream: this.options.stream ?? 'keiyaku', topic: address, partitions: this.options.defaultPartitions ?? 3 };
      this.#placements.set(address, placement);
    }
    return placement;
  }

  async provision(address: string, bindings: ChannelBindings): Promise<void> {
    const iggy = bindings.iggy;
    if (!this.#placements.has(address) && iggy) {
      this.#placements.set(address, {
        stream: iggy.stream ?? this.options.stream ?? 'keiyaku',
        topic: iggy.topic ?? address,
        partitions: iggy.partitions ?? this.options.defaultPartitions ?? 3,
      });
    }
    await this.ensure(address);
  }

  /** Creates the stream and topic of `address` if missing ("already exists" races are fine); learns the partition count. */
  ensure(address: string): Promise<Placement> {
    let pending = this.#ready.get(address);
    if (pending === undefined) {
      pending = (async () => {
        const placement = this.placement(address);
        const client = await this.#adminClient();
        if ((await client.getStream(placement.stream)) === undefined) {
          await client.createStream(placement.stream).catch((e: unknown) => {
            if (!(e instanceof IggyError && e.status === 1012)) throw e;
          });
        }
        let topic = await client.getTopic(placement.stream, placement.topic);
        if (topic === undefined) {
          await client.createTopic(placement.stream, placement.topic, placement.partitions).catch((e: unknown) => {
            if (!(e instanceof IggyError && e.status === 2013)) throw e;
          });
          topic = await client.getTopic(placement.stream, placement.topic);
        }
        placement.partitions = topic?.partitionsCount ?? placement.partitions;
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
        client ??= this.newClient();
        const connection = await client;
        const groups = new Map<string, { address: string; partition: number; records: OutgoingRecord[] }>();
        for (const record of records) {
          const placement = await this.ensure(record.address);
          const partition =
            record.key === undefined
              ? roundRobin++ % placement.partitions
              : xxh32Seed0(new TextEncoder().encode(record.key)) % placement.partitions;
          const key = `${record.address}\u0000${partition}`;
          const group = groups.get(key) ?? { address: record.address, partition, records: [] };
          group.records.push(record);
          groups.set(key, group);
        }
        const now = BigInt(Date.now()) * 1000n;
        for (const group of groups.values()) {
          const placement = this.placement(group.address);
          await this.#sendOrReconnect(connection, () =>
            connection.sendMessages(
              placement.stream,
              placement.topic,
              { kind: 'partition', id: group.partition },
              group.records.map((r) => {
                const headers = encodeHeaders(r.headers, r.key);
                let id: bigint;
                try {
                  id = messageIdFromUuid(r.headers['ce_id'] ?? randomUUID());
                } catch {
                  id = messageIdFromUuid(randomUUID());
                }
                if (r.value.length === 0) throw new IggyError(4025, 'send messages', { detail: 'Iggy cannot carry an empty payload' });
                return { id, payload: r.value, ...(headers ? { headers } : {}), originTimestamp: now };
              }),
            ),
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

  /** A send on a dead connection reconnects it and fails, so the publisher's retry goes out on the new one. */
  async #sendOrReconnect(client: IggyClient, send: () => Promise<unknown>): Promise<void> {
    try {
      await send();
    } catch (error) {
      const name = (error as { name?: unknown }).name;
      if (name === 'ClosedError' || (name === 'IggyError' && (error as { status?: unknown }).status === 30) || name === 'TransportError') {
        await client.reconnect().catch(() => undefined);
      }
      throw error;
    }
  }

  consumer(options: ConsumerOptions): TransportConsumer {
    return new IggyTransportConsumer(this, options);
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
  #partitions: number[] = [];
  #next = 0;
  #client: Promise<IggyClient>;
  #closed = false;
  /** The client generation the group was joined at; a reconnect anywhere means joining again. */
  #joinedAt = 0;

  constructor(transport: IggyTransport, options: ConsumerOptions) {
    this.#transport = transport;
    this.#options = options;
    this.#client = this.#join();
    this.#client.catch(() => undefined);
  }

  async #join(): Promise<IggyClient> {
    const placement = await this.#transport.ensure(this.#options.address);
    const client = await this.#transport.newClient();
    const group = this.#options.groupId;
    if ((await client.getConsumerGroup(placement.stream, placement.topic, group)) === undefined) {
      await client.createConsumerGroup(placement.stream, placement.topic, group).catch((e: unknown) => {
        if (!(e instanceof IggyError && e.status === 5004)) throw e;
      });
    }
    await client.joinConsumerGroup(placement.stream, placement.topic, group);
    this.#joinedAt = client.generation;
    await this.#sync(client);
    return client;
  }

  async #sync(client: IggyClient): Promise<void> {
    const placement = this.#transport.placement(this.#options.address);
    const sync = await client.syncConsumerGroup(placement.stream, placement.topic, this.#options.groupId);
    this.#partitions = [...(sync?.partitions ?? [])];
    for (const p of [...this.#cursor.keys()]) if (!this.#partitions.includes(p)) this.#cursor.delete(p);
  }

  async poll(signal: AbortSignal): Promise<readonly IncomingRecord[]> {
    if (this.#closed) throw new ClosedError(`the Iggy consumer of ${this.#options.groupId}`);
    try {
      return await this.#poll(signal);
    } catch (error) {
      if (!isRecoverable(error) || this.#closed) throw error;
      // The connection died or the member was evicted: reconnect, log in and rejoin; at least once holds
      // because the group's stored offsets decide where polling resumes.
      const old = await this.#client.catch(() => undefined);
      this.#cursor.clear();
      this.#client = (async () => {
        await old?.reconnect();
        const client = old ?? (await this.#transport.newClient());
        const placement = this.#transport.placement(this.#options.address);
        await client.joinConsumerGroup(placement.stream, placement.topic, this.#options.groupId);
        this.#joinedAt = client.generation;
        await this.#sync(client);
        return client;
      })();
      await this.#client.catch(() => undefined);
      return [];
    }
  }

  async #poll(signal: AbortSignal): Promise<readonly IncomingRecord[]> {
    const client = await this.#client;
    const placement = this.#transport.placement(this.#options.address);
    if (this.#joinedAt !== client.generation) {
      await client.joinConsumerGroup(placement.stream, placement.topic, this.#options.groupId);
      this.#joinedAt = client.generation;
      this.#cursor.clear();
      await this.#sync(client);
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
        await this.#sync(client);
        return [];
      }
      this.#high.set(partition, reply.currentOffset);
      if (reply.messages.length === 0) continue;
      this.#cursor.set(partition, reply.messages.at(-1)!.offset + 1n);
      return reply.messages.map((m) => {
        const headers = decodeHeaders(m.headers);
        const key = headers[KEY_HEADER];
        delete headers[KEY_HEADER];
        return {
          address: this.#options.address,
          partition,
          offset: String(m.offset),
          timestamp: Number(m.timestamp / 1000n),
          headers,
          value: new Uint8Array(m.payload),
          ...(key === undefined ? {} : { key }),
        };
      });
    }
    if (this.#partitions.length === 0) await this.#sync(client);
    await new Promise((resolve) => setTimeout(resolve, this.#transport.options.idleWaitMs ?? 50));
    return [];
  }

  ack(record: IncomingRecord): void {
    const offset = BigInt(record.offset);
    if (offset >= (this.#acked.get(record.partition) ?? -1n)) this.#acked.set(record.partition, offset);
  }

  async commit(): Promise<void> {
    const client = await this.#client;
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
    const client = await this.#client.catch(() => undefined);
    if (client === undefined) return;
    const placement = this.#transport.placement(this.#options.address);
    await client.leaveConsumerGroup(placement.stream, placement.topic, this.#options.groupId).catch(() => undefined);
    await client.close();
  }
}
