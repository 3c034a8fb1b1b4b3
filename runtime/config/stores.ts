/**
 * The `deadLetters` section: where parked messages go. `memory` (default; lost on restart),
 * `sqlite` (a file, the embedded default for one process) or `postgres` (a server shared by the
 * service's instances). Each store kind has one factory in {@link DEAD_LETTER_STORES}; a factory
 * given by the caller replaces it. Tables are never created silently: with `migrate: true` the
 * factory runs the store's migration (`migrateSqlite` / `migratePostgres`, dead-letters component)
 * before building it; without, an unmigrated database fails the first use with StoreNotMigratedError.
 */
import type { DeadLetterStore } from '../stores/dead-letter/store.js';
import { loadPackage } from './packages.js';
import type { Problems } from './problems.js';
import { SectionReader } from './section.js';

export type DeadLetterStoreKind = 'memory' | 'sqlite' | 'postgres';

export interface DeadLetterSection {
  readonly store?: DeadLetterStoreKind;
  /** SQLite: the database file (created if missing) or `:memory:`. */
  readonly path?: string;
  /** PostgreSQL: `postgres://user:password@host:port/database` (secret: it usually holds a password). */
  readonly connectionString?: string;
  /** PostgreSQL: the schema of the store's table (its connections' `search_path`; default the server's). */
  readonly schema?: string;
  /** Create or upgrade the store's table before building it (default false: migrate explicitly). */
  readonly migrate?: boolean | string;
}

export const DEAD_LETTER_SECTION_KEYS = ['store', 'path', 'connectionString', 'schema', 'migrate'] as const;

/** A validated dead-letter store choice. */
export type DeadLetterChoice =
  | { readonly store: 'memory' }
  | { readonly store: 'sqlite'; readonly path: string; readonly migrate: boolean }
  | { readonly store: 'postgres'; readonly connectionString: string; readonly schema?: string; readonly migrate: boolean };

export function deadLetterChoiceFrom(raw: unknown, path: string, problems: Problems): DeadLetterChoice | undefined {
  const section = new SectionReader(raw, path, DEAD_LETTER_SECTION_KEYS, problems);
  const before = problems.list.length;
  const store = section.oneOf('store', ['memory', 'sqlite', 'postgres'] as const) ?? (section.has('store') ? undefined : 'memory');
  const file = section.string('path');
  const connectionString = section.string('connectionString', { secret: true });
  const schema = section.string('schema');
  const migrateRaw = section.raw('migrate');
  let migrate = false;
  if (migrateRaw !== undefined) {
    const text = String(migrateRaw).trim().toLowerCase();
    if (migrateRaw === true || text === 'true') migrate = true;
    else if (migrateRaw !== false && text !== 'false')
      problems.add(section.at('migrate'), `must be true or false, got ${JSON.stringify(migrateRaw)}`);
    if (store === 'memory') problems.add(section.at('migrate'), 'is only used with store sqlite or postgres');
  }
  if (schema !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(schema))
    problems.add(section.at('schema'), 'must be a plain SQL identifier (letters, digits, _)');
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
  if (store === 'sqlite') return { store, path: file!, migrate };
  if (store === 'postgres') return { store, connectionString: connectionString!, ...(schema === undefined ? {} : { schema }), migrate };
  return { store };
}

/** Builds a store of one kind; given a validated choice. */
export type DeadLetterStoreFactory = (choice: DeadLetterChoice) => Promise<DeadLetterStore>;

/** The store kinds this build ships. Modules are loaded only when their kind is chosen. */
export const DEAD_LETTER_STORES: Readonly<Partial<Record<DeadLetterStoreKind, DeadLetterStoreFactory>>> = {
  memory: async () => new (await import('../stores/dead-letter/store.js')).InMemoryDeadLetterStore(),
  sqlite: async (choice) => {
    const { path, migrate } = choice as Extract<DeadLetterChoice, { store: 'sqlite' }>;
    const { openDeadLetterStore } = await loadPackage('@keiyaku/sqlite', 'deadLetters.store');
    return openDeadLetterStore({ path, migrate });
  },
  postgres: async (choice) => {
    const { connectionString, schema, migrate } = choice as Extract<DeadLetterChoice, { store: 'postgres' }>;
    const { openDeadLetterStore } = await loadPackage('@keiyaku/postgres', 'deadLetters.store');
    return openDeadLetterStore({ connectionString, ...(schema === undefined ? {} : { schema }), migrate });
  },
};
