/**
 * What a generation of Iggy's binary protocol provides to the connection and the client.
 *
 * The building blocks every generation so far shares stay beside this file (the wire
 * reader/writer, identifiers, TLVs, checksums, the status table); a generation's framing,
 * login and command codecs live in a folder of their own (`v0_11/`). The connection and the
 * client only see this interface, so a later generation is added as another folder plus an
 * entry in `registry.ts`, and chosen with the client's `protocol` option.
 *
 * Frames and replies decode into the generation-independent shapes below; command replies
 * decode into the client's result types (StreamInfo, TopicInfo, …) defined here too, whatever
 * their layout. This file names no generation: the generations import it, never the reverse.
 */

import type { Consumer, Identifier, Partitioning, PollingStrategy, TlvValue } from './primitives.js';

/** The partition id of a poll reply that tells a group member to sync its assignment again (it carries no messages). */
export const RESYNC_SENTINEL = 0xffff_ffff;

/** What a login sends. */
export interface LoginRequest {
  readonly username: string;
  readonly password: string;
  readonly sdkName: string;
  readonly sdkVersion: string;
  readonly protocolVersion?: number;
  readonly context?: Uint8Array;
}

/** What a login answers. */
export interface LoginReply {
  readonly userId: number;
  readonly session: bigint;
  readonly serverProtocolVersion: string;
  readonly serverVersion: string;
}

export interface StreamInfo {
  readonly id: number;
  readonly createdAt: bigint;
  readonly topicsCount: number;
  readonly sizeBytes: bigint;
  readonly messagesCount: bigint;
  readonly name: string;
  readonly options: readonly [TlvValue, TlvValue][];
}

export interface PartitionInfo {
  readonly id: number;
  readonly createdAt: bigint;
  readonly segmentsCount: number;
  readonly currentOffset: bigint;
  readonly sizeBytes: bigint;
  readonly messagesCount: bigint;
}

export interface TopicInfo {
  readonly id: number;
  readonly createdAt: bigint;
  readonly partitionsCount: number;
  readonly messageExpiry: bigint;
  readonly compression: number;
  readonly maxTopicSize: bigint;
  readonly sizeBytes: bigint;
  readonly messagesCount: bigint;
  readonly name: string;
  readonly explicitOptions: readonly [TlvValue, TlvValue][];
  readonly derivedOptions: readonly [TlvValue, TlvValue][];
  readonly partitions: readonly PartitionInfo[];
}

export interface OutgoingMessage {
  /** 128-bit id; 0 or absent mints a random UUIDv4-shaped id before the checksum. */
  readonly id?: bigint;
  readonly payload: Uint8Array;
  /** Raw user-header bytes (TLV). */
  readonly headers?: Uint8Array;
  /** Producer time, µs since the epoch. */
  readonly originTimestamp: bigint;
}

/** One message laid out in wire order inside a batch's buffer: its frame-header bytes at `at`, then the payload, then the user headers. */
export interface FrameSlot {
  readonly at: number;
  readonly payloadLength: number;
  readonly headersLength: number;
  /** 0 or absent: minted when the batch is sealed. */
  readonly id?: bigint;
}

/** A batch whose frames already sit in wire order in `bytes` (a rented buffer), with room left for each frame header. */
export interface InPlaceBatch {
  readonly bytes: Uint8Array;
  readonly frames: readonly FrameSlot[];
  /** µs since the epoch, the origin timestamp of every message. */
  readonly originTimestamp: bigint;
}

export interface SendConfirmation {
  readonly streamId: number;
  readonly topicId: number;
  readonly partitionId: number;
  readonly baseOffset: bigint;
}

export interface PolledMessage {
  readonly offset: bigint;
  readonly id: bigint;
  /** Server append time (the batch's base_timestamp), µs. */
  readonly timestamp: bigint;
  readonly originTimestamp: bigint;
  readonly checksum: bigint;
  /** A view into the reply buffer: copy it to keep it past the buffer's life. */
  readonly payload: Uint8Array;
  readonly headers: Uint8Array;
}

export interface PollReply {
  /** {@link RESYNC_SENTINEL}: the "re-sync required" answer to a group member. */
  readonly partitionId: number;
  readonly currentOffset: bigint;
  readonly messages: PolledMessage[];
}

export interface OffsetTarget {
  readonly consumer: Consumer;
  readonly stream: Identifier;
  readonly topic: Identifier;
  /** Always send one for store and delete; without it the server answers status 20. */
  readonly partition?: number;
}

export interface ConsumerOffsetInfo {
  readonly partitionId: number;
  readonly currentOffset: bigint;
  readonly storedOffset: bigint;
}

export interface GroupDetails {
  readonly id: number;
  readonly partitionsCount: number;
  readonly name: string;
  readonly members: readonly { readonly id: number; readonly partitions: readonly number[] }[];
}

export interface SyncReply {
  readonly generation: bigint;
  readonly partitions: readonly number[];
}

/** A request as the connection builds it; the generation lays it out on the wire. */
export interface RequestFrame {
  readonly client: bigint;
  readonly request: bigint;
  readonly operation: number;
  readonly session: bigint;
  /** The command code (sent with non-replicated operations). */
  readonly code?: number;
  readonly body?: Uint8Array;
}

/** One frame from the peer. */
export type DecodedFrame =
  | {
      readonly kind: 'reply';
      readonly request: bigint;
      readonly operation: number;
      readonly status: number;
      readonly client: bigint;
      readonly body: Uint8Array;
    }
  | {
      readonly kind: 'eviction';
      readonly client: bigint;
      readonly reason: number;
      readonly serverProtocolVersion: number;
      readonly serverProtocolVersionMin: number;
    }
  | { readonly kind: 'request'; readonly frame: RequestFrame };

/** One command: its code and operation, a pure encoder of the request body and a decoder of the reply payload. */
export interface CommandCodec<A extends readonly unknown[], R> {
  /** Lower-case name used in errors ("get stream"). */
  readonly name: string;
  readonly code: number;
  readonly operation: number;
  encode(...args: A): Uint8Array;
  decode(payload: Uint8Array): R;
}

export type TlvOptions = readonly (readonly [TlvValue, TlvValue])[];

export interface PollRequest {
  readonly consumer: Consumer;
  readonly stream: Identifier;
  readonly topic: Identifier;
  readonly partition?: number;
  readonly strategy: PollingStrategy;
  readonly count: number;
  readonly autoCommit: boolean;
}

export interface IggyCommands {
  readonly ping: CommandCodec<[], void>;
  readonly getStream: CommandCodec<[stream: Identifier], StreamInfo | undefined>;
  readonly createStream: CommandCodec<[name: string, options?: TlvOptions], StreamInfo | undefined>;
  readonly getTopic: CommandCodec<[stream: Identifier, topic: Identifier], TopicInfo | undefined>;
  readonly createTopic: CommandCodec<[stream: Identifier, name: string, partitions: number, options?: TlvOptions], TopicInfo | undefined>;
  readonly sendMessages: CommandCodec<
    [stream: Identifier, topic: Identifier, partitioning: Partitioning, messages: readonly OutgoingMessage[]],
    SendConfirmation[]
  >;
  readonly pollMessages: CommandCodec<[request: PollRequest], PollReply>;
  readonly getConsumerOffset: CommandCodec<[target: OffsetTarget], ConsumerOffsetInfo | undefined>;
  readonly storeConsumerOffset: CommandCodec<[target: OffsetTarget, offset: bigint], void>;
  readonly deleteConsumerOffset: CommandCodec<[target: OffsetTarget], void>;
  readonly createConsumerGroup: CommandCodec<[stream: Identifier, topic: Identifier, name: string], GroupDetails | undefined>;
  readonly getConsumerGroup: CommandCodec<[stream: Identifier, topic: Identifier, group: Identifier], GroupDetails | undefined>;
  readonly joinConsumerGroup: CommandCodec<[stream: Identifier, topic: Identifier, group: Identifier], void>;
  readonly leaveConsumerGroup: CommandCodec<[stream: Identifier, topic: Identifier, group: Identifier], void>;
  readonly syncConsumerGroup: CommandCodec<[stream: Identifier, topic: Identifier, group: Identifier], SyncReply | undefined>;
}

export interface IggyProtocol {
  /** The packed version announced at login (`major << 20 | minor << 10 | patch`). */
  readonly version: number;
  /** "0.11". */
  readonly label: string;
  /** Whether a server announcing this packed version speaks this generation. */
  accepts(serverVersion: number): boolean;
  /** Bytes to read before {@link frameSize} can tell a frame's length. */
  readonly headerSize: number;
  frameSize(header: Uint8Array): number;
  encodeRequest(frame: RequestFrame): Uint8Array;
  /** The header alone of a request whose body of `bodyLength` bytes is written after it in parts (never joined). */
  encodeRequestHead(frame: RequestFrame, bodyLength: number): Uint8Array;
  decodeFrame(bytes: Uint8Array): DecodedFrame;
  /** A reply's payload, or a thrown IggyError for evictions, statuses and rejections. */
  payloadOf(frame: DecodedFrame, command: string): Uint8Array;
  /** The request number an operation carries, given the session's counter (which it may advance). */
  requestNumber(operation: number, counter: { value: bigint }): bigint;
  /** The operation codes with a meaning for the connection itself. */
  readonly operations: { readonly register: number; readonly nonReplicated: number };
  /** The eviction reason a server sends to a client of another protocol version. */
  readonly incompatibleVersionReason: number;
  readonly login: CommandCodec<[request: LoginRequest], LoginReply>;
  readonly commands: IggyCommands;
  /**
   * SEND_MESSAGES for a batch already laid out in wire order in a rented buffer: `seal` writes the
   * frame headers in place and returns the batch header (once: it mints missing ids), `encodeParts`
   * returns the body as parts, the last of which is the batch's own buffer (no payload is copied).
   */
  readonly sendInPlace: {
    readonly name: string;
    readonly code: number;
    readonly operation: number;
    /** Bytes to reserve before each payload for its frame header. */
    readonly frameHeaderSize: number;
    seal(batch: InPlaceBatch): Uint8Array;
    encodeParts(stream: Identifier, topic: Identifier, partitioning: Partitioning, batch: InPlaceBatch, sealed: Uint8Array): Uint8Array[];
    decode(payload: Uint8Array): SendConfirmation[];
  };
}
