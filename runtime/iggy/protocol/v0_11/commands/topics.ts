/**
 * GET_TOPIC (300, NonReplicated) and CREATE_TOPIC (302 → operation 132).
 *
 *   get request     [stream id][topic id]
 *   create request  [stream id][partitions_count u32][name_len u8][name][options TLV to the end]
 *   reply           [topic header][partition × partitions_count]   (get: empty body = missing)
 *   topic header    0 id u32 | 4 created_at u64 | 12 partitions_count u32 | 16 message_expiry u64
 *                   24 compression u8 | 25 max_topic_size u64 | 33 size_bytes u64 | 41 messages_count u64
 *                   49 name_len u8, name | explicit_options_len u32, TLV | derived_options_len u32, TLV
 *   partition       [id u32][created_at u64][segments_count u32][current_offset u64][size_bytes u64][messages_count u64]
 */
import { type Identifier, readName, readTlv, type TlvValue, writeIdentifier, writeName, writeTlv } from '../../primitives.js';
import type { PartitionInfo, TopicInfo } from '../../version.js';
import { IggyDecodeError, Reader, Writer } from '../../wire.js';

export type { PartitionInfo, TopicInfo };

export const GET_TOPIC = { code: 300, operation: 2 } as const;
export const CREATE_TOPIC = { code: 302, operation: 132 } as const;

export function encodeGetTopic(stream: Identifier, topic: Identifier): Uint8Array {
  const w = new Writer(32);
  writeIdentifier(w, stream);
  writeIdentifier(w, topic);
  return w.finish();
}

export function encodeCreateTopic(
  stream: Identifier,
  name: string,
  partitions: number,
  options: readonly (readonly [TlvValue, TlvValue])[] = [],
): Uint8Array {
  if (!Number.isInteger(partitions) || partitions < 0 || partitions > 1000)
    throw new RangeError(`partitions must be 0..1000, got ${partitions}`);
  const w = new Writer(48);
  writeIdentifier(w, stream);
  w.u32(partitions);
  writeName(w, name, 'topic name');
  writeTlv(w, options);
  return w.finish();
}

export function readTopicHeader(r: Reader): Omit<TopicInfo, 'partitions'> {
  const id = r.u32('topic id');
  const createdAt = r.u64('created_at');
  const partitionsCount = r.u32('partitions_count');
  const messageExpiry = r.u64('message_expiry');
  const compression = r.u8('compression');
  const maxTopicSize = r.u64('max_topic_size');
  const sizeBytes = r.u64('size_bytes');
  const messagesCount = r.u64('messages_count');
  const name = readName(r, 'topic name');
  const explicitOptions = readTlv(r, r.u32('explicit_options_len'));
  const derivedOptions = readTlv(r, r.u32('derived_options_len'));
  return {
    id,
    createdAt,
    partitionsCount,
    messageExpiry,
    compression,
    maxTopicSize,
    sizeBytes,
    messagesCount,
    name,
    explicitOptions,
    derivedOptions,
  };
}

/** A topic with its partitions, or undefined for the empty body of a missing topic. */
export function decodeTopic(payload: Uint8Array): TopicInfo | undefined {
  if (payload.length === 0) return undefined;
  const r = new Reader(payload);
  const header = readTopicHeader(r);
  if (header.partitionsCount * 40 > r.remaining)
    throw new IggyDecodeError(`topic announces ${header.partitionsCount} partitions in ${r.remaining} bytes`);
  const partitions = Array.from(
    { length: header.partitionsCount },
    (): PartitionInfo => ({
      id: r.u32('partition id'),
      createdAt: r.u64(),
      segmentsCount: r.u32(),
      currentOffset: r.u64(),
      sizeBytes: r.u64(),
      messagesCount: r.u64(),
    }),
  );
  return { ...header, partitions };
}

/** Encodes a topic reply payload (for the protocol test double). */
export function encodeTopicInfo(topic: {
  id: number;
  name: string;
  partitions: readonly { id: number; currentOffset: bigint; messagesCount: bigint }[];
}): Uint8Array {
  const w = new Writer(128);
  w.u32(topic.id).u64(0n).u32(topic.partitions.length).u64(0xffff_ffff_ffff_ffffn).u8(1).u64(0xffff_ffff_ffff_ffffn).u64(0n).u64(0n);
  writeName(w, topic.name, 'topic name');
  w.u32(0).u32(0);
  for (const p of topic.partitions) w.u32(p.id).u64(0n).u32(1).u64(p.currentOffset).u64(0n).u64(p.messagesCount);
  return w.finish();
}
