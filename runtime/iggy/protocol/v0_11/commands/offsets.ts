/**
 * Consumer offsets (fact sheet §3.8). All carry [consumer][stream id][topic id][partition flag u8][partition_id u32].
 *
 *   GET_CONSUMER_OFFSET    120 NonReplicated    reply [partition_id u32][current_offset u64][stored_offset u64], empty = none
 *   STORE_CONSUMER_OFFSET  121 → partition op 161, + [offset u64][ack u8]; result-framed
 *   DELETE_CONSUMER_OFFSET 122 → partition op 162, + [ack u8]; result-framed
 */
import { writeConsumer, writeIdentifier, writeOptionalPartition } from '../../primitives.js';
import type { ConsumerOffsetInfo, OffsetTarget } from '../../version.js';
import { Reader, Writer } from '../../wire.js';

export type { ConsumerOffsetInfo, OffsetTarget };

export const GET_CONSUMER_OFFSET = { code: 120, operation: 2 } as const;
export const STORE_CONSUMER_OFFSET = { code: 121, operation: 161 } as const;
export const DELETE_CONSUMER_OFFSET = { code: 122, operation: 162 } as const;

/** Ack level of explicit offset writes: 1 = Quorum (the default). */
export const ACK_QUORUM = 1;

function common(w: Writer, target: OffsetTarget): Writer {
  writeConsumer(w, target.consumer);
  writeIdentifier(w, target.stream);
  writeIdentifier(w, target.topic);
  writeOptionalPartition(w, target.partition);
  return w;
}

export function encodeGetConsumerOffset(target: OffsetTarget): Uint8Array {
  return common(new Writer(48), target).finish();
}

export function encodeStoreConsumerOffset(target: OffsetTarget, offset: bigint, ack = ACK_QUORUM): Uint8Array {
  if (target.partition === undefined) throw new RangeError('store a consumer offset with an explicit partition id');
  return common(new Writer(64), target).u64(offset).u8(ack).finish();
}

export function encodeDeleteConsumerOffset(target: OffsetTarget, ack = ACK_QUORUM): Uint8Array {
  if (target.partition === undefined) throw new RangeError('delete a consumer offset with an explicit partition id');
  return common(new Writer(48), target).u8(ack).finish();
}

export function decodeConsumerOffset(payload: Uint8Array): ConsumerOffsetInfo | undefined {
  if (payload.length === 0) return undefined;
  const r = new Reader(payload);
  return { partitionId: r.u32('partition_id'), currentOffset: r.u64('current_offset'), storedOffset: r.u64('stored_offset') };
}
