/** `keiyaku/sqlite`: the SQLite dead-letter store and transactional outbox (better-sqlite3), the embedded default. */
export { SqliteDeadLetterStore } from './dead-letter/sqlite.js';
export type { OutboxDispatcherOptions, OutboxDispatcherStatus } from './outbox/dispatcher.js';
export { OutboxDispatcher } from './outbox/dispatcher.js';
export type {
  OutboxAdmin,
  OutboxChannelOptions,
  OutboxCounts,
  OutboxDispatchStore,
  OutboxEventsOptions,
  OutboxFailure,
  OutboxFilter,
  OutboxRecord,
  OutboxRow,
  OutboxRowState,
  OutboxWriteOptions,
} from './outbox/outbox.js';
export { OUTBOX_SCHEMA_VERSION, OutboxEncoder, OutboxError, OutboxLockedError } from './outbox/outbox.js';
export type { SqliteOutboxOptions } from './outbox/sqlite.js';
export { SQLITE_OUTBOX_SCHEMA, SqliteOutbox, SqliteOutboxChannel } from './outbox/sqlite.js';
