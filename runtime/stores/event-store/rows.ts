/**
 * A `keiyaku_events` row as both SQL engines return it, and its reading back into a
 * {@link RecordedEvent}. PostgreSQL gives `bigint` positions as strings, `timestamptz` as a `Date`
 * and `jsonb` metadata as an object; SQLite gives numbers, milliseconds and JSON text.
 */
import type { EventSerializer, RecordedEvent } from './store.js';

export interface EventTableRow {
  readonly position: number | string;
  readonly stream_id: string;
  readonly version: number;
  readonly event_id: string;
  readonly data: string;
  readonly metadata: string | Record<string, string>;
  readonly correlation_id: string | null;
  readonly causation_id: string | null;
  readonly recorded_at: number | Date;
}

/** The stored event of `row` (frozen), its data through `serializer`. */
export function recordedEventFrom<D>(row: EventTableRow, serializer: EventSerializer<D>): RecordedEvent<D> {
  return Object.freeze({
    event: serializer.deserialize(row.data),
    aggregateId: row.stream_id,
    version: row.version,
    position: Number(row.position),
    timestamp: row.recorded_at instanceof Date ? row.recorded_at : new Date(row.recorded_at),
    eventId: row.event_id,
    ...(row.correlation_id === null ? {} : { correlationId: row.correlation_id }),
    ...(row.causation_id === null ? {} : { causationId: row.causation_id }),
    metadata: typeof row.metadata === 'string' ? (JSON.parse(row.metadata) as Record<string, string>) : row.metadata,
  });
}
