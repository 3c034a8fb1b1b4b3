// docs/stores.md and docs/outbox.md show the migration SQL for teams that run their own migrations: it must be
// exactly what migratePostgres / migrateSqlite create.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { POSTGRES_OUTBOX_SCHEMA, postgresMigrationSql } from '@keiyaku/postgres';
import { SQLITE_OUTBOX_SCHEMA, sqliteMigrationSql } from '@keiyaku/sqlite';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers.js';

describe('docs/stores.md', () => {
  const doc = readFileSync(join(repoRoot, 'docs', 'stores.md'), 'utf8');
  it('shows the PostgreSQL migration SQL exactly', () => {
    expect(doc).toContain(`\`\`\`sql\n${postgresMigrationSql().trimEnd()}\n\`\`\``);
  });
  it('shows the SQLite migration SQL exactly', () => {
    expect(doc).toContain(`\`\`\`sql\n${sqliteMigrationSql().trimEnd()}\n\`\`\``);
  });
  it('shows the inbox SQL of both engines exactly', () => {
    expect(doc).toContain(`\`\`\`sql\n${sqliteMigrationSql(['inbox']).trimEnd()}\n\`\`\``);
    expect(doc).toContain(`\`\`\`sql\n${postgresMigrationSql(['inbox']).trimEnd()}\n\`\`\``);
  });
});

describe('docs/outbox.md', () => {
  const doc = readFileSync(join(repoRoot, 'docs', 'outbox.md'), 'utf8');
  it('shows the outbox SQL of both engines exactly', () => {
    expect(doc).toContain(`\`\`\`sql\n${SQLITE_OUTBOX_SCHEMA.trimEnd()}\n\`\`\``);
    expect(doc).toContain(`\`\`\`sql\n${POSTGRES_OUTBOX_SCHEMA.trimEnd()}\n\`\`\``);
  });
});
