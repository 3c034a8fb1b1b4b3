/**
 * The inbox: the consumer's half of effectively-once delivery. An inbox subscription runs its
 * handler inside a transaction of the service's own database that also records
 * `(group, message id)` in `keiyaku_inbox`; a message whose id is already recorded for the group
 * is acknowledged without calling the handler. The handler's own writes (and any outbox rows it
 * writes) commit or roll back with the inbox row: consume → change state → publish, once per
 * message, whatever crashes in between.
 *
 * The message id is the envelope's `ce_id` (fixed when an outbox row is written, so a row
 * published twice keeps it). A record without one (a foreign producer) is keyed by
 * `address/partition/offset`, as the envelope names it: a broker redelivery of that record is
 * still recognised, a foreign producer's own retry (a second record) is not.
 */
import type { MessageContext } from '../core/context.js';
import { KeiyakuError } from '../core/errors.js';

/** Version of the inbox tables this runtime reads and writes (`keiyaku_schema_versions`, component `inbox`). */
export const INBOX_SCHEMA_VERSION = 1;

/** How long inbox rows are kept when the store is given no retention (7 days, as NServiceBus keeps deduplication records). */
export const DEFAULT_INBOX_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

/** The inbox was used in a way it does not support (no transaction here, missing tables, another schema version). */
export class InboxError extends KeiyakuError {
  override readonly name = 'InboxError';
}

/** What {@link InboxStore.process} did with a message: ran the handler and committed, or found it recorded and skipped it. */
export type InboxOutcome = 'processed' | 'duplicate';

/** One recorded message. */
export interface InboxEntry {
  readonly groupId: string;
  readonly messageId: string;
  /** When its transaction recorded it (ms since the epoch). */
  readonly receivedAt: number;
}

/**
 * An inbox in a database. `Tx` is the transaction handle the handler receives: a `pg` client
 * inside `BEGIN … COMMIT`, a better-sqlite3 `Database` inside a transaction, or the memory
 * inbox's own handle.
 */
export interface InboxStore<Tx = unknown> {
  /** Names the database in errors and logs (`sqlite:<file>`, `postgres:<host>`, `memory`). */
  readonly description: string;
  /** How long recorded ids are kept (ms); the host deletes older rows in batches. A message redelivered after that is processed again. */
  readonly retentionMs: number;
  /**
   * In one transaction: records `(groupId, messageId)` and runs `work` with the transaction
   * handle, then commits. When the pair is recorded already, resolves `duplicate` without calling
   * `work`. When `work` throws (or the commit fails) the transaction rolls back — no inbox row,
   * none of the handler's writes — and the error propagates. A store may answer without a promise
   * when `work` does (SQLite), which keeps the belt's synchronous path.
   */
  process(groupId: string, messageId: string, work: (tx: Tx) => unknown): InboxOutcome | Promise<InboxOutcome>;
  /** Whether `(groupId, messageId)` is recorded. */
  has(groupId: string, messageId: string): Promise<boolean>;
  /** Deletes at most `limit` rows recorded before `before` (ms since the epoch); returns how many. */
  purge(before: number, limit: number): Promise<number>;
  /** Rows recorded, for health and tests. */
  count(): Promise<number>;
}

/**
 * The inbox transaction the handler runs in, typed by its store. Throws {@link InboxError} when
 * the handler runs outside an inbox transaction (its subscription has no `inbox`).
 *
 * ```ts
 * handle: (event, context) => {
 *   const db = inboxTransaction(inbox, context); // better-sqlite3 Database, inside the transaction
 *   db.prepare('insert into loans …').run(…);
 * }
 * ```
 */
export function inboxTransaction<Tx>(_inbox: InboxStore<Tx>, context: MessageContext): Tx {
  if (context.transaction === undefined)
    throw new InboxError(
      'inbox_no_transaction',
      `the handler of ${context.channel} runs outside an inbox transaction: subscribe it with { inbox } to get one`,
    );
  return context.transaction as Tx;
}
