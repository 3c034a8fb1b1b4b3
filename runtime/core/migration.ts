/** Versioned table definitions shared by the SQLite and PostgreSQL migrations. */

/** One component's tables: step i moves the component from version i to i + 1. */
export interface Migration {
  readonly component: string;
  readonly steps: readonly string[];
}

export interface MigrationResult {
  /** Components whose version changed, with the versions before and after. */
  readonly applied: readonly { readonly component: string; readonly from: number; readonly to: number }[];
}

export interface MigrateOptions {
  /** Only these components (default: all). */
  readonly components?: readonly string[];
}

/** The migrations of the named components (all when none are named); an unknown name is a RangeError listing the known ones. */
export function selectMigrations(components: readonly string[] | undefined, migrations: readonly Migration[]): readonly Migration[] {
  if (components === undefined) return migrations;
  const unknown = components.filter((c) => !migrations.some((m) => m.component === c));
  if (unknown.length > 0)
    throw new RangeError(`unknown keiyaku component ${unknown.join(', ')} (known: ${migrations.map((m) => m.component).join(', ')})`);
  return migrations.filter((m) => components.includes(m.component));
}
