/**
 * Where Iggy messages go: the placement defaults (the stream of addresses without an `x-iggy`
 * binding, the partition counts of topics created when missing) and the choice of a partition
 * on the client (XXH32 of the key, or round-robin), shared by the high-level publisher and the
 * transport so both put a key on the same partition.
 */
import { xxh32 } from '@node-rs/xxhash';
import type { Partitioning } from './protocol/primitives.js';

export const IGGY_PLACEMENT_DEFAULTS = Object.freeze({
  /** The stream of addresses without an `x-iggy` stream (`keiyaku generate` writes the same default into generated/iggy.ts). */
  stream: 'keiyaku',
  /** Partitions of a topic the transport creates for an address without `x-iggy` partitions. */
  transportPartitions: 3,
  /** Partitions of a topic the high-level publisher creates when missing (`createIfMissing`), and of a generated channel without `partitions`. */
  topicPartitions: 1,
});

const utf8 = new TextEncoder();

/** The partition a key goes to among `partitions`: XXH32 (seed 0) of its UTF-8 bytes, modulo the count (what Iggy's SDKs compute). */
export function partitionForKey(key: string | Uint8Array, partitions: number): number {
  return xxh32(typeof key === 'string' ? utf8.encode(key) : key, 0) % partitions;
}

/**
 * Resolves `partitioning` on the client to one partition of `partitions`, as the SDKs do:
 * a key hashes ({@link partitionForKey}), balanced takes the next of `counter` round-robin, an
 * explicit partition stays. With `partitions` unknown (0), the server resolves it.
 */
export function resolvePartitioning(partitioning: Partitioning, partitions: number, counter: { value: number }): Partitioning {
  if (partitions === 0) return partitioning;
  if (partitioning.kind === 'balanced') return { kind: 'partition', id: counter.value++ % partitions };
  if (partitioning.kind === 'key') return { kind: 'partition', id: partitionForKey(partitioning.key, partitions) };
  return partitioning;
}
