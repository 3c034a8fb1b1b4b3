/**
 * The `keiyaku_dead_letters` table as both SQL engines lay it out: the columns a parked message
 * is inserted into (in order, with engine-neutral values), the summary columns, and the error for
 * a table still at version 1. The engines keep their SQL, their parameter style and their claim.
 */
import { StoreNotMigratedError } from '../event-store/store.js';
import { deadLetterColumns } from './records.js';
import type { ParkRequest } from './types.js';

/**
 * The values of one inserted row, keyed by parameter name in the order of
 * {@link DEAD_LETTER_INSERT_COLUMNS}. Times are `Date`s and `escaped` a boolean; an engine
 * converts them to its column types (SQLite: milliseconds and 0/1).
 */
export interface DeadLetterInsert {
  readonly id: string;
  readonly channel: string;
  readonly address: string;
  readonly topic: string | null;
  readonly groupId: string;
  readonly type: string;
  readonly payload: Buffer;
  readonly headers: string;
  readonly key: string | null;
  readonly partition: number | null;
  readonly offset: string | null;
  readonly errorName: string;
  readonly errorMessage: string;
  readonly errorStack: string | null;
  readonly attempts: number;
  readonly firstFailureAt: Date;
  readonly lastFailureAt: Date;
  readonly parkedAt: Date;
  readonly escaped: boolean;
}

/** The inserted columns, in the order of {@link DeadLetterInsert}'s keys. */
export const DEAD_LETTER_INSERT_COLUMNS =
  'id, channel, address, topic, group_id, type, payload, headers, record_key, partition, record_offset, ' +
  'error_name, error_message, error_stack, attempts, first_failure_at, last_failure_at, parked_at, escaped';

/** The row `park` inserts for `request` (texts escaped when any needs it; the payload a view of the request's bytes). */
export function deadLetterInsert(id: string, request: ParkRequest, parkedAt: Date): DeadLetterInsert {
  const c = deadLetterColumns(request);
  return {
    id,
    channel: c.channel,
    address: c.address,
    topic: c.topic,
    groupId: c.groupId,
    type: c.type,
    payload: Buffer.from(request.payload.buffer, request.payload.byteOffset, request.payload.byteLength),
    headers: c.headers,
    key: c.key,
    partition: request.partition ?? null,
    offset: c.offset,
    errorName: c.errorName,
    errorMessage: c.errorMessage,
    errorStack: c.errorStack,
    attempts: request.attempts,
    firstFailureAt: request.firstFailureAt,
    lastFailureAt: request.lastFailureAt,
    parkedAt,
    escaped: c.escaped,
  };
}

/** The columns of a summary; `byteLength` is the engine's function for the payload's size (`length`, `octet_length`). */
export function deadLetterSummaryColumns(byteLength: string): string {
  return `id, channel, address, topic, group_id, type, record_key, partition, record_offset, error_name, error_message,
  attempts, first_failure_at, last_failure_at, parked_at, escaped, ${byteLength}(payload) AS payload_bytes`;
}

/** The columns version 2 of the table added; an engine's "no such column" naming one means the table is at version 1. */
export const DEAD_LETTER_V2_COLUMN = /\b(topic|escaped|claimed_at)\b/;

/** The error for a table at version 1; `fix` names the migration (`migrateSqlite(db) from @keiyaku/sqlite`). */
export function deadLetterTableOutdated(fix: string, cause: unknown): StoreNotMigratedError {
  return new StoreNotMigratedError('keiyaku_dead_letters at version 2 (topic, escaped, claimed_at)', fix, cause);
}
