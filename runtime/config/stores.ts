/**
 * The `deadLetters` section: where parked messages go. `memory` (default; lost on restart),
 * `sqlite` (a file, the embedded default for one process), `postgres` or `mysql` (a server shared
 * by the service's instances; `mysql` is MySQL 8.0+ or MariaDB 10.6+). Each store kind has one factory in {@link DEAD_LETTER_STORES}; a factory
 * given by the caller replaces it. Tables are never created silently: with `migrate: true` the
 * factory runs the store's migration (`migrateSqlite` / `migratePostgres` / `migrateMysql`, dead-letters component)
 * before building it; without, an unmigrated database fails the first use with StoreNotMigratedError.
 */
import type { DeadLetterStore } from '../stores/dead-letter/store.js';
import { loadPackage } from './packages.js';
import type { Problems } from './problems.js';
import { SectionReader } from './section.js';

export type DeadLetterStoreKind = 'memory' | 'sqlite' | 'postgres' | 'mysql';

export interface DeadLetterSection {
  readonly store?: DeadLetterStoreKind;
  /** SQLite: the database file (created if missing) or `:memory:`. */
  readonly path?: string;
  /**
   * PostgreSQL: `postgres://user:password@host:port/database`; MySQL: `mysql://user:password@host:port/database`
   * (secret: it usually holds a password).
   */
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
  | { readonly store: 'postgres'; readonly connectionString: string; readonly schema?: string; readonly migrate: boolean }
  | { readonly store: 'mysql'; readonly connectionString: string; readonly migrate: boolean };

/** The URL schemes each server store takes, and how its connection string is written. */
const SERVER_URLS = {
  postgres: {
    pattern: /^postgres(ql)?:\/\//,
    shape: 'postgres://user:password@host:port/database',
    schemes: 'a postgres:// or postgresql://',
  },
  mysql: { pattern: /^(mysql|mariadb):\/\//, shape: 'mysql://user:password@host:port/database', schemes: 'a mysql:// or mariadb://' },
} as const;

export function deadLetterChoiceFrom(raw: unknown, path: string, problems: Problems): DeadLetterChoice | undefined {
  const section = new SectionReader(raw, path, DEAD_LETTER_SECTION_KEYS, problems);
  const before = problems.list.length;
  const store = section.oneOf('store', ['memory', 'sqlite', 'postgres', 'mysql'] as const) ?? (section.has('store') ? undefined : 'memory');
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
    if (store === 'memory') problems.add(section.at('migrate'), 'is only used with store sqlite, postgres or mysql');
  }
  if (schema !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(schema))
    problems.add(section.at('schema'), 'must be a plain SQL identifier (letters, digits, _)');
  if (store === 'sqlite' && file === undefined)
    problems.add(section.at('path'), 'is required with store sqlite (a file path, or :memory:)');
  const server = store === 'postgres' || store === 'mysql' ? SERVER_URLS[store] : undefined;
  if (server !== undefined && connectionString === undefined)
    problems.add(section.at('connectionString'), `is required with store ${store} (${server.shape})`);
  if (store !== 'sqlite' && file !== undefined) problems.add(section.at('path'), 'is only used with store sqlite');
  if (server === undefined && connectionString !== undefined)
    problems.add(section.at('connectionString'), 'is only used with store postgres or mysql');
  if (store !== 'postgres' && schema !== undefined)
    problems.add(
      section.at('schema'),
      `is only used with store postgres${store === 'mysql' ? ' (MySQL: name the database in the URL)' : ''}`,
    );
  if (server !== undefined && connectionString !== undefined && !server.pattern.test(connectionString))
    problems.add(section.at('connectionString'), `must be ${server.schemes} URL (value not shown)`);
  else if (
    server === undefined &&
    connectionString !== undefined &&
    !Object.values(SERVER_URLS).some((u) => u.pattern.test(connectionString))
  )
    problems.add(section.at('connectionString'), 'must be a postgres:// or mysql:// URL (value not shown)');
  if (problems.list.length > before || store === undefined) return undefined;
  if (store === 'sqlite') return { store, path: file!, migrate };
  if (store === 'postgres') return { store, connectionString: connectionString!, ...(schema === undefined ? {} : { schema }), migrate };
  if (store === 'mysql') return { store, connectionString: connectionString!, migrate };
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
  mysql: async (choice) => {
    const { connectionString, migrate } = choice as Extract<DeadLetterChoice, { store: 'mysql' }>;
    const { openDeadLetterStore } = await loadPackage('@keiyaku/mysql', 'deadLetters.store');
    return openDeadLetterStore({ connectionString, migrate });
  },
};
