/**
 * A protocol test double of an Iggy 0.11 server — NOT Iggy: a small TCP server written from
 * the published wire format (fact sheet) that implements just what keiyaku's client needs
 * for its tests: framing, PING, LOGIN_REGISTER (user iggy/iggy, evictions for bad
 * credentials and other protocol versions), streams, topics, SEND_MESSAGES (silence on a
 * bad batch checksum), POLL_MESSAGES (offset/first/next strategies, single consumers),
 * consumer offsets (get, store, delete), and unsolicited evictions on demand.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { xxh3_64 } from '../../runtime/iggy/protocol/checksum.js';
import { type Identifier, readIdentifier, readName } from '../../runtime/iggy/protocol/primitives.js';
import { encodeLoginReply } from '../../runtime/iggy/protocol/v0_11/commands/login-register.js';
import { encodeStreamInfo } from '../../runtime/iggy/protocol/v0_11/commands/streams.js';
import { encodeTopicInfo } from '../../runtime/iggy/protocol/v0_11/commands/topics.js';
import {
  decodeFrame,
  encodeEviction,
  encodeReply,
  frameSize,
  HEADER_SIZE,
  VERSION as PROTOCOL_VERSION,
  type RequestFrame,
} from '../../runtime/iggy/protocol/v0_11/header.js';
import { Reader, Writer } from '../../runtime/iggy/protocol/wire.js';

interface Group {
  id: number;
  name: string;
  members: bigint[];
  generation: bigint;
}
interface Topic {
  id: number;
  name: string;
  partitions: { records: Uint8Array[]; base: bigint[] }[];
  groups: Group[];
}
interface Stream {
  id: number;
  name: string;
  topics: Topic[];
}

export class IggyProtocolDouble {
  readonly #server: Server;
  readonly #streams: Stream[] = [];
  readonly #offsets = new Map<string, bigint>();
  readonly #sockets = new Set<Socket>();
  /** Requests seen, for assertions: [code or operation, client, request, session]. */
  readonly seen: { code?: number; operation: number; client: bigint; request: bigint; session: bigint }[] = [];
  /** When set, requests with this code get no reply at all. */
  silenceCode: number | undefined;
  /** The next this-many SEND_MESSAGES get status 58 (TransientNotAccepted, safe to re-send). */
  failSends = 0;
  /** The next this-many POLL_MESSAGES get status 57 (TransientNotCommitted, retriable) on a live connection. */
  failPolls = 0;
  /**
   * When set, the next request of this operation (for operation 2, of this code) is answered with an eviction of its
   * client instead of its reply, and every group member is dropped: the server's evictor firing while that request is
   * in flight.
   */
  evictOn: number | undefined;
  /** Message count of every batch stored, with its partition. */
  readonly sentBatches: { partition: number; messages: number }[] = [];
  port = 0;

  constructor() {
    this.#server = createServer((socket) => this.#accept(socket));
  }

  /** Listens on `port` (default: a free one). After {@link stop}, starting again on the same port keeps the stored data, as a restarted server does. */
  async start(port = 0): Promise<number> {
    await new Promise<void>((resolve) => this.#server.listen(port, '127.0.0.1', resolve));
    this.port = (this.#server.address() as { port: number }).port;
    return this.port;
  }

  async stop(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    this.#sockets.clear();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  /** Sends an unsolicited eviction (stale client) to every connection and drops every group member, as the server's evictor does. */
  evictAll(reason = 13): void {
    this.#dropMembers();
    for (const socket of this.#sockets) socket.write(encodeEviction({ client: 1n, reason }));
  }

  #dropMembers(): void {
    for (const stream of this.#streams)
      for (const topic of stream.topics)
        for (const group of topic.groups) {
          group.members = [];
          group.generation++;
        }
  }

  #accept(socket: Socket): void {
    this.#sockets.add(socket);
    socket.on('close', () => this.#sockets.delete(socket));
    let buffer = Buffer.alloc(0);
    let session = 0n;
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      while (buffer.length >= HEADER_SIZE) {
        const size = frameSize(buffer.subarray(0, HEADER_SIZE));
        if (buffer.length < size) return;
        const decoded = decodeFrame(new Uint8Array(buffer.subarray(0, size)));
        buffer = buffer.subarray(size);
        if (decoded.kind !== 'request') continue;
        const request = decoded.frame;
        this.seen.push({
          ...(request.code === undefined ? {} : { code: request.code }),
          operation: request.operation,
          client: request.client,
          request: request.request,
          session: request.session,
        });
        if (request.client === 0n) continue; // dropped without a reply
        const out = this.#handle(request, session, (s) => {
          session = s;
        });
        if (out) socket.write(out);
      }
    });
  }

  #reply(request: RequestFrame, status: number, body?: Uint8Array): Uint8Array {
    return encodeReply({
      client: request.client,
      request: request.request,
      // As the server does, a CreateTopic (132) is answered as the internal CreateTopicWithAssignments (64).
      operation: request.operation === 132 ? 64 : request.operation,
      status,
      ...(body ? { body } : {}),
    });
  }

  #result(request: RequestFrame, code: number, payload: Uint8Array = new Uint8Array(0)): Uint8Array {
    if (code !== 0) return this.#reply(request, 0, new Writer().u32(1).u32(0).u32(code).finish());
    return this.#reply(request, 0, new Writer().u32(0).bytes(payload).finish());
  }

  #stream(id: Identifier): Stream | undefined {
    return this.#streams.find((s) => s.id === id || s.name === id);
  }

  #handle(request: RequestFrame, session: bigint, bind: (session: bigint) => void): Uint8Array | undefined {
    const body = request.body ?? new Uint8Array(0);
    const r = new Reader(body);
    const code = request.operation === 2 ? request.code : undefined;
    if (code !== undefined && code === this.silenceCode) return undefined;
    if (request.operation === 1) {
      const version = r.u32();
      if (version >> 10 !== PROTOCOL_VERSION >> 10)
        return encodeEviction({
          client: request.client,
          reason: 14,
          serverProtocolVersion: PROTOCOL_VERSION,
          serverProtocolVersionMin: PROTOCOL_VERSION,
        });
      readName(r);
      readName(r);
      const user = readName(r);
      const password = readName(r);
      if (user !== 'iggy' || password !== 'iggy') return encodeEviction({ client: request.client, reason: 9 });
      bind(42n);
      return this.#reply(
        request,
        0,
        encodeLoginReply({ userId: 0, session: 42n, serverProtocolVersion: PROTOCOL_VERSION, serverVersion: 'protocol-double' }),
      );
    }
    if (code === 1) return this.#reply(request, 0);
    if (session === 0n) return request.operation === 2 ? this.#reply(request, 40) : encodeEviction({ client: request.client, reason: 1 });
    const kind = request.operation === 2 ? code : request.operation;
    if (kind !== undefined && kind === this.evictOn) {
      this.evictOn = undefined;
      this.#dropMembers();
      return encodeEviction({ client: request.client, reason: 13 });
    }
    switch (kind) {
      case 200: {
        const stream = this.#stream(readIdentifier(r));
        return this.#reply(
          request,
          0,
          stream
            ? encodeStreamInfo({
                id: stream.id,
                createdAt: 0n,
                topicsCount: stream.topics.length,
                sizeBytes: 0n,
                messagesCount: 0n,
                name: stream.name,
              })
            : new Uint8Array(0),
        );
      }
      case 128: {
        const name = readName(r);
        if (this.#streams.some((s) => s.name === name)) return this.#result(request, 1012);
        const stream = { id: this.#streams.length, name, topics: [] };
        this.#streams.push(stream);
        return this.#result(
          request,
          0,
          encodeStreamInfo({ id: stream.id, createdAt: 0n, topicsCount: 0, sizeBytes: 0n, messagesCount: 0n, name }),
        );
      }
      case 300: {
        const stream = this.#stream(readIdentifier(r));
        if (!stream) return this.#reply(request, 1009);
        const id = readIdentifier(r);
        const topic = stream.topics.find((t) => t.id === id || t.name === id);
        return this.#reply(request, 0, topic ? this.#topicInfo(topic) : new Uint8Array(0));
      }
      case 132: {
        const stream = this.#stream(readIdentifier(r));
        if (!stream) return this.#result(request, 1009);
        const partitions = r.u32();
        const name = readName(r);
        if (stream.topics.some((t) => t.name === name)) return this.#result(request, 2013);
        const topic: Topic = {
          id: stream.topics.length,
          name,
          partitions: Array.from({ length: partitions }, () => ({ records: [], base: [] })),
          groups: [],
        };
        stream.topics.push(topic);
        return this.#result(request, 0, this.#topicInfo(topic));
      }
      case 160:
        return this.#send(request, r, body);
      case 139:
      case 600:
      case 148:
      case 149:
      case 606:
        return this.#group(request, r, request.operation === 2 ? (code ?? 0) : request.operation);
      case 100:
        if (this.failPolls > 0) {
          this.failPolls--;
          return this.#reply(request, 57);
        }
        return this.#poll(request, r);
      case 120:
      case 161:
      case 162: {
        const key = this.#offsetKey(r);
        if (request.operation === 2) {
          const stored = this.#offsets.get(key.id);
          return this.#reply(
            request,
            0,
            stored === undefined ? new Uint8Array(0) : new Writer().u32(key.partition).u64(key.current).u64(stored).finish(),
          );
        }
        if (!key.explicit) return this.#reply(request, 20);
        if (request.operation === 162) return this.#result(request, this.#offsets.delete(key.id) ? 0 : 3021); // ConsumerOffsetNotFound
        const offset = r.u64();
        if (offset > key.current || key.empty) return this.#reply(request, 4100);
        this.#offsets.set(key.id, offset);
        return this.#result(request, 0);
      }
      default:
        return this.#reply(request, 3);
    }
  }

  /** Partitions owned by `client` in `group`: round-robin over members in join order. */
  owned(topic: Topic, group: Group, client: bigint): number[] {
    const index = group.members.indexOf(client);
    if (index === -1) return [];
    return topic.partitions.map((_, p) => p).filter((p) => p % group.members.length === index);
  }

  #group(request: RequestFrame, r: Reader, op: number): Uint8Array {
    const stream = this.#stream(readIdentifier(r));
    if (!stream) return op === 600 || op === 606 ? this.#reply(request, 1009) : this.#result(request, 1009);
    const topicId = readIdentifier(r);
    const topic = stream.topics.find((t) => t.id === topicId || t.name === topicId);
    if (!topic) return op === 600 || op === 606 ? this.#reply(request, 2010) : this.#result(request, 2010);
    const details = (group: Group): Uint8Array => {
      const w = new Writer()
        .u32(group.id)
        .u32(topic.partitions.length)
        .u32(group.members.length)
        .u8(Buffer.byteLength(group.name))
        .bytes(new TextEncoder().encode(group.name));
      group.members.forEach((member, i) => {
        const owned = this.owned(topic, group, member);
        w.u32(i).u32(owned.length);
        for (const p of owned) w.u32(p);
      });
      return w.finish();
    };
    if (op === 139) {
      const name = readName(r);
      if (topic.groups.some((g) => g.name === name)) return this.#result(request, 5004);
      const group: Group = { id: topic.groups.length, name, members: [], generation: 0n };
      topic.groups.push(group);
      return this.#result(request, 0, details(group));
    }
    const id = readIdentifier(r);
    const group = topic.groups.find((g) => g.id === id || g.name === id);
    if (op === 600) return this.#reply(request, 0, group ? details(group) : new Uint8Array(0));
    if (!group) return op === 606 ? this.#reply(request, 0, new Uint8Array(0)) : this.#result(request, 5000);
    if (op === 148) {
      if (!group.members.includes(request.client)) {
        group.members.push(request.client);
        group.generation++;
      }
      return this.#result(request, 0);
    }
    if (op === 149) {
      if (!group.members.includes(request.client)) return this.#result(request, 5006);
      group.members = group.members.filter((m) => m !== request.client);
      group.generation++;
      return this.#result(request, 0);
    }
    if (!group.members.includes(request.client)) return this.#reply(request, 0, new Uint8Array(0));
    const owned = this.owned(topic, group, request.client);
    const w = new Writer().u64(group.generation).u32(owned.length);
    for (const p of owned) w.u32(p);
    return this.#reply(request, 0, w.finish());
  }

  #topicInfo(topic: Topic): Uint8Array {
    return encodeTopicInfo({
      id: topic.id,
      name: topic.name,
      partitions: topic.partitions.map((p, id) => ({
        id,
        currentOffset: BigInt(Math.max(0, p.records.length - 1)),
        messagesCount: BigInt(p.records.length),
      })),
    });
  }

  #offsetKey(r: Reader) {
    const kind = r.u8();
    const consumer = readIdentifier(r);
    const stream = this.#stream(readIdentifier(r));
    const topicId = readIdentifier(r);
    const topic = stream?.topics.find((t) => t.id === topicId || t.name === topicId);
    const explicit = r.u8() === 1;
    const partition = r.u32();
    const records = topic?.partitions[partition]?.records.length ?? 0;
    return {
      id: `${kind}:${String(consumer)}:${stream?.id}:${topic?.id}:${partition}`,
      partition,
      explicit,
      current: BigInt(Math.max(0, records - 1)),
      empty: records === 0,
    };
  }

  #send(request: RequestFrame, r: Reader, body: Uint8Array): Uint8Array | undefined {
    if (this.failSends > 0) {
      this.failSends--;
      return this.#reply(request, 58);
    }
    const metadataLength = r.u32();
    const stream = this.#stream(readIdentifier(r));
    const topicId = readIdentifier(r);
    const kind = r.u8();
    const length = r.u8();
    const value = r.bytes(length);
    const count = r.u32();
    const topic = stream?.topics.find((t) => t.id === topicId || t.name === topicId);
    if (!stream || !topic) return this.#reply(request, 20);
    const batch = body.subarray(4 + metadataLength);
    const view = new DataView(batch.buffer, batch.byteOffset, batch.byteLength);
    const messageCount = view.getUint32(48, true);
    const checksum = view.getBigUint64(40, true);
    const covered = new Writer().bytes(batch.subarray(0, 40)).bytes(batch.subarray(48, 52));
    let at = 256;
    const frames: Uint8Array[] = [];
    for (let i = 0; i < messageCount; i++) {
      const frameView = new DataView(batch.buffer, batch.byteOffset + at, 48);
      const size = 48 + frameView.getUint32(32, true) + frameView.getUint32(36, true);
      const frame = batch.subarray(at, at + size);
      if (frameView.getBigUint64(0, true) !== xxh3_64(frame.subarray(8))) return undefined; // silence
      covered.bytes(frame.subarray(0, 8));
      frames.push(frame);
      at += size;
    }
    if (messageCount !== count || xxh3_64(covered.finish()) !== checksum) return undefined; // silence, as the server does
    const partition = kind === 2 ? new DataView(value.buffer, value.byteOffset).getUint32(0, true) : 0;
    const target = topic.partitions[partition];
    if (!target) return this.#reply(request, 20);
    const baseOffset = BigInt(target.records.length);
    for (const frame of frames) target.records.push(frame);
    this.sentBatches.push({ partition, messages: frames.length });
    return this.#reply(request, 0, new Writer().u32(1).u32(stream.id).u32(topic.id).u32(partition).u64(baseOffset).finish());
  }

  #poll(request: RequestFrame, r: Reader): Uint8Array {
    const kind = r.u8();
    const consumer = readIdentifier(r);
    const stream = this.#stream(readIdentifier(r));
    const topicId = readIdentifier(r);
    const topic = stream?.topics.find((t) => t.id === topicId || t.name === topicId);
    r.u8();
    const partition = r.u32();
    const strategy = r.u8();
    const value = r.u64();
    const count = r.u32();
    const autoCommit = r.u8() === 1;
    const records = topic?.partitions[partition]?.records;
    if (!stream) return this.#reply(request, 1009);
    if (!topic) return this.#reply(request, 2010);
    if (!records) return this.#reply(request, 3007);
    if (kind === 2) {
      const group = topic.groups.find((g) => g.id === consumer || g.name === consumer);
      if (!group || !this.owned(topic, group, request.client).includes(partition))
        return this.#reply(request, 0, new Writer().u32(0xffff_ffff).u64(0n).u32(0).finish());
    }
    const key = `${kind}:${String(consumer)}:${stream.id}:${topic.id}:${partition}`;
    const stored = this.#offsets.get(key);
    const start =
      strategy === 1
        ? Number(value)
        : strategy === 3
          ? 0
          : strategy === 5
            ? stored === undefined
              ? 0
              : Number(stored) + 1
            : Math.max(0, records.length - count);
    const slice = records.slice(start, start + count);
    const current = BigInt(Math.max(0, records.length - 1));
    const out = new Writer().u32(partition).u64(current).u32(slice.length);
    if (slice.length > 0) {
      const length = 256 + slice.reduce((n, f) => n + f.length, 0);
      out.u64(BigInt(partition)).u64(BigInt(start)).u64(1_000_000n).u64(0n).u64(BigInt(length)).u64(0n).u32(slice.length).zeros(204);
      slice.forEach((frame, i) => {
        const copy = new Uint8Array(frame);
        new DataView(copy.buffer).setUint32(24, i, true);
        out.bytes(copy);
      });
      if (autoCommit) this.#offsets.set(key, BigInt(start + slice.length - 1));
    }
    return this.#reply(request, 0, out.finish());
  }
}
