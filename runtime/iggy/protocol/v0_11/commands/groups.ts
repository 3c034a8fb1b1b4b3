/**
 * Consumer groups (fact sheet §3.9).
 *
 *   CREATE 602 → op 139: [stream id][topic id][name_len u8][name]   reply (result-framed): group details
 *   GET 600 NonReplicated, JOIN 604 → op 148, LEAVE 605 → op 149, SYNC 606 NonReplicated: [stream id][topic id][group id]
 *   group details  [id u32][partitions_count u32][members_count u32][name_len u8][name]
 *                  then members × [member_id u32][partitions_count u32][partition_id u32 × n]
 *   sync reply     [generation u64][partitions_count u32][partition_id u32 × n]; empty = not a member
 */
import { type Identifier, readName, writeIdentifier, writeName } from '../../primitives.js';
import type { GroupDetails, SyncReply } from '../../version.js';
import { IggyDecodeError, Reader, Writer } from '../../wire.js';

export type { GroupDetails, SyncReply };

export const CREATE_CONSUMER_GROUP = { code: 602, operation: 139 } as const;
export const GET_CONSUMER_GROUP = { code: 600, operation: 2 } as const;
export const JOIN_CONSUMER_GROUP = { code: 604, operation: 148 } as const;
export const LEAVE_CONSUMER_GROUP = { code: 605, operation: 149 } as const;
export const SYNC_CONSUMER_GROUP = { code: 606, operation: 2 } as const;

export function encodeCreateConsumerGroup(stream: Identifier, topic: Identifier, name: string): Uint8Array {
  const w = new Writer(48);
  writeIdentifier(w, stream);
  writeIdentifier(w, topic);
  writeName(w, name, 'group name');
  return w.finish();
}

/** GET, JOIN, LEAVE and SYNC share one body. */
export function encodeGroupRef(stream: Identifier, topic: Identifier, group: Identifier): Uint8Array {
  const w = new Writer(48);
  writeIdentifier(w, stream);
  writeIdentifier(w, topic);
  writeIdentifier(w, group);
  return w.finish();
}

export function decodeGroupDetails(payload: Uint8Array): GroupDetails | undefined {
  if (payload.length === 0) return undefined;
  const r = new Reader(payload);
  const id = r.u32('group id');
  const partitionsCount = r.u32('partitions_count');
  const membersCount = r.u32('members_count');
  const name = readName(r, 'group name');
  // Each member takes at least 8 bytes: a count beyond what the payload holds is refused before anything is allocated.
  if (membersCount * 8 > r.remaining) throw new IggyDecodeError(`group details announce ${membersCount} members in ${r.remaining} bytes`);
  const members = Array.from({ length: membersCount }, () => {
    const memberId = r.u32('member id');
    const count = r.u32('member partitions');
    if (count * 4 > r.remaining) throw new IggyDecodeError(`a member announces ${count} partitions in ${r.remaining} bytes`);
    return { id: memberId, partitions: Array.from({ length: count }, () => r.u32('partition id')) };
  });
  return { id, partitionsCount, name, members };
}

export function encodeGroupDetails(group: GroupDetails): Uint8Array {
  const w = new Writer(64);
  w.u32(group.id).u32(group.partitionsCount).u32(group.members.length);
  writeName(w, group.name, 'group name');
  for (const m of group.members) {
    w.u32(m.id).u32(m.partitions.length);
    for (const p of m.partitions) w.u32(p);
  }
  return w.finish();
}

/** Pollable partitions of the caller, or undefined when it is not a member (empty body). */
export function decodeSync(payload: Uint8Array): SyncReply | undefined {
  if (payload.length === 0) return undefined;
  const r = new Reader(payload);
  const generation = r.u64('generation');
  const count = r.u32('partitions_count');
  if (count * 4 > r.remaining) throw new IggyDecodeError(`sync reply announces ${count} partitions in ${r.remaining} bytes`);
  return { generation, partitions: Array.from({ length: count }, () => r.u32('partition id')) };
}

export function encodeSync(reply: SyncReply): Uint8Array {
  const w = new Writer(16 + 4 * reply.partitions.length).u64(reply.generation).u32(reply.partitions.length);
  for (const p of reply.partitions) w.u32(p);
  return w.finish();
}
