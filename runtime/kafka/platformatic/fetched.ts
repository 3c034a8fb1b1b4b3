/**
 * One partition of a fetch response as the consumer's records. Per batch, not per record: offsets
 * and timestamps are derived once per batch and each record becomes one transport record.
 *
 * - `read_committed`: records of aborted transactions are dropped as the Java client drops them,
 *   from the response's list of aborted transactions, even when the abort marker is not in the
 *   same response (the client library keeps such records "for safety", which would hand a
 *   `read_committed` reader what was never committed).
 * - Offsets that carry nothing for the belt (transaction markers, dropped records, compacted
 *   offsets) are reported as gaps, so acknowledging the record before a gap steps over it and the
 *   committed offset reaches the end of the partition (no lag of one behind each transaction).
 */
import type { IncomingRecord } from '@keiyaku/runtime/adapter';
import type { fetchV17, RecordsBatch } from '@platformatic/kafka';
import { recordFromPlatformatic } from './record.js';

type FetchResponsePartition = fetchV17.FetchResponsePartition;

const TRANSACTIONAL = 0x10;
const CONTROL = 0x20;

/** What one partition of a fetch response gave. */
export interface FetchedPartition {
  /** The offset to fetch next. */
  readonly next: number;
  /** The last offset handed to the belt (or `delivered` as given, when none). */
  readonly delivered: number;
}

/**
 * Appends the records of `partition` to `out`: those at or after `from` (the broker answers from
 * the start of a batch) and after `delivered` (already handed to the belt by this client).
 * `gap(from, to)` is told of every stretch of offsets in between that holds no record for the belt.
 */
export function takeFetched(
  partition: FetchResponsePartition,
  from: number,
  delivered: number,
  readCommitted: boolean,
  address: string,
  out: IncomingRecord[],
  gap: (from: number, to: number) => void,
): FetchedPartition {
  const batches = partition.records;
  if (batches === undefined || batches.length === 0) return { next: from, delivered };
  const index = partition.partitionIndex;
  const aborted = readCommitted && partition.abortedTransactions.length > 0 ? abortedBatches(partition) : undefined;
  let next = from;
  let covered = from;
  let last = delivered;
  for (const batch of batches) {
    const first = Number(batch.firstOffset);
    const end = first + batch.lastOffsetDelta + 1;
    if (end > next) next = end;
    if ((batch.attributes & CONTROL) !== 0 || aborted?.has(batch) === true) continue;
    const timestamp = Number(batch.firstTimestamp);
    const records = batch.records;
    for (let i = 0; i < records.length; i++) {
      const record = records[i]!;
      const offset = first + record.offsetDelta;
      if (offset < from) continue;
      if (offset > covered) gap(covered, offset);
      covered = offset + 1;
      if (offset <= delivered) continue;
      out.push(recordFromPlatformatic(record, address, index, String(offset), timestamp + Number(record.timestampDelta)));
      last = offset;
    }
  }
  if (next > covered) gap(covered, next);
  return { next, delivered: last };
}

/** The batches of `partition` that belong to aborted transactions (the Java consumer's rule). */
function abortedBatches(partition: FetchResponsePartition): Set<RecordsBatch> {
  const pending = [...partition.abortedTransactions].sort((a, b) =>
    a.firstOffset < b.firstOffset ? -1 : a.firstOffset > b.firstOffset ? 1 : 0,
  );
  const open = new Set<bigint>();
  const dropped = new Set<RecordsBatch>();
  for (const batch of partition.records ?? []) {
    const lastOffset = batch.firstOffset + BigInt(batch.lastOffsetDelta);
    while (pending.length > 0 && pending[0]!.firstOffset <= lastOffset) open.add(pending.shift()!.producerId);
    if ((batch.attributes & CONTROL) !== 0) {
      // An abort marker (control type 0) ends the producer's aborted transaction.
      const key = batch.records[0]?.key;
      if (key !== null && key !== undefined && key.length >= 4 && key.readInt16BE(2) === 0) open.delete(batch.producerId);
      continue;
    }
    if ((batch.attributes & TRANSACTIONAL) !== 0 && open.has(batch.producerId)) dropped.add(batch);
  }
  return dropped;
}

/** The broker no longer has (or does not yet have) the offset a fetch asked for: the partition starts over from the group's start. */
export function isOffsetOutOfRange(error: unknown, depth = 0): boolean {
  if (error === null || typeof error !== 'object' || depth > 6) return false;
  const e = error as { apiId?: unknown; errors?: unknown; cause?: unknown };
  if (e.apiId === 'OFFSET_OUT_OF_RANGE') return true;
  if (Array.isArray(e.errors) && e.errors.some((inner) => isOffsetOutOfRange(inner, depth + 1))) return true;
  return isOffsetOutOfRange(e.cause, depth + 1);
}
