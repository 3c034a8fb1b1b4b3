/**
 * What the SQL inbox stores (`@keiyaku/sqlite`, `@keiyaku/postgres`) share: the typed errors for
 * a database without the inbox table or with another schema version, and telling a promise from
 * a plain value (a store answers without a promise when the handler does).
 */
import { INBOX_SCHEMA_VERSION, InboxError } from './inbox.js';

/** The error for a database without the inbox table; `fix` names what creates it. */
export function inboxNotMigrated(description: string, fix: string, cause?: unknown): InboxError {
  return new InboxError('inbox_not_migrated', `the inbox table (keiyaku_inbox) does not exist in ${description}: run ${fix} first`, {
    cause,
  });
}

/** Throws {@link inboxNotMigrated} for no recorded version, `inbox_schema_version` for another one than this runtime's. */
export function assertInboxSchemaVersion(description: string, version: number | undefined, fix: string): void {
  if (version === undefined) throw inboxNotMigrated(description, fix);
  if (version !== INBOX_SCHEMA_VERSION)
    throw new InboxError(
      'inbox_schema_version',
      `${description} holds inbox schema version ${version}; this keiyaku reads version ${INBOX_SCHEMA_VERSION}: upgrade keiyaku, or migrate with the release that matches`,
    );
}

// Telling a handler's later answer from a value now: the runtime's one check, for the stores too.
export { isThenable } from '../core/thenable.js';
