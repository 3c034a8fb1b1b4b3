/** `keiyaku/sqlite`: the SQLite dead-letter store (better-sqlite3), the embedded default. */
export { DeadLetterRecordError, SqliteDeadLetterStore } from './dead-letter/sqlite.js';
