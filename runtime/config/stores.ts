/**
 * The `deadLetters` section: where parked messages go. `memory` (default; lost on restart),
 * `sqlite` (a file, the embedded default for one process) or `postgres` (a server shared by the
 * service's instances). Each store kind has one factory in {@link DEAD_LETTER_STORES}; a store kind
 * that this build does not ship (or a factory given by the caller) plugs in there.
 */
import type { DeadLetterStore } from '../dead-letter/store.js';
import type { Problems } from './problems.js';
import { SectionReader } from './section.js';

export type DeadLetterStoreKind = 'memory' | 'sqlite' | 'postgres';

export interface DeadLetterSection {
  readonly store?: DeadLetterStoreKind;
  /** SQLite: the database file (created if missing) or `:memory:`. */
  readonly path?: string;
  /** PostgreSQL: `postgres://user:password@host:port/database` (secret: it usually holds a password). */
  readonly connectionString?: string;
  /** PostgreSQL: the schema of the store's table (default `public`). */
  readonly schema?: string;
}

export const DEAD_LETTER_SECTION_KEYS = ['store', 'path', 'connectionString', 'schema'] as const;

/** A validated dead-letter store choice. */
export type DeadLetterChoice =
  | { readonly store: 'memory' }
  | { readonly store: 'sqlite'; readonly path: string }
  | { readonly store: 'postgres'; readonly connectionString: string; readonly schema?: string };

export function deadLetterChoiceFrom(raw: unknown, path: string, problems: Problems): DeadLetterChoice | undefined {
  const section = new SectionReader(raw, path, DEAD_LETTER_SECTION_KEYS, problems);
  const before = problems.list.length;
  const store = section.oneOf('store', ['memory', 'sqlite', 'postgres'] as const) ?? (section.has('store') ? undefined : 'memory');
  const file = section.string('path');
  const connectionString = section.string('connectionString', { secret: true });
  const schema = section.string('schema');
  if (store === 'sqlite' && file === undefined)
    problems.add(section.at('path'), 'is required with store sqlite (a file path, or :memory:)');
  if (store === 'postgres' && connectionString === undefined)
    problems.add(section.at('connectionString'), 'is required with store postgres (postgres://user:password@host:port/database)');
  if (store !== 'sqlite' && file !== undefined) problems.add(section.at('path'), 'is only used with store sqlite');
  if (store !== 'postgres' && connectionString !== undefined)
    problems.add(section.at('connectionString'), 'is only used with store postgres');
  if (store !== 'postgres' && schema !== undefined) problems.add(section.at('schema'), 'is only used with store postgres');
  if (connectionString !== undefined && !/^postgres(ql)?:\/\//.test(connectionString))
    problems.add(section.at('connectionString'), 'must be a postgres:// or postgresql:// URL (value not shown)');
  if (problems.list.length > before || store === undefined) return undefined;
  if (store === 'sqlite') return { store, path: file! };
  if (store === 'postgres') return { store, connectionString: connectionString!, ...(schema === undefined ? {} : { schema }) };
  return { store };
}

/** Builds a store of one kind; given a validated choice. */
export type DeadLetterStoreFactory = (choice: DeadLetterChoice) => Promise<DeadLetterStore>;

/** The store kinds this build ships. Modules are loaded only when their kind is chosen. */
export const DEAD_LETTER_STORES: Readonly<Partial<Record<DeadLetterStoreKind, DeadLetterStoreFactory>>> = {
  memory: async () => new (await import('../dead-letter/store.js')).InMemoryDeadLetterStore(),
  sqlite: async (choice) => new (await import('../dead-letter/sqlite.js')).SqliteDeadLetterStore((choice as { path: string }).path),
};
