// docs/stores.md shows the MySQL migration SQL for teams that run their own migrations: it must be
// exactly what migrateMysql creates (no server needed).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { mysqlMigrationSql } from '@keiyaku/mysql';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers.js';

describe('docs/stores.md on MySQL', () => {
  const doc = readFileSync(join(repoRoot, 'docs', 'stores.md'), 'utf8');
  it('shows the MySQL migration SQL and the inbox SQL exactly', () => {
    expect(doc).toContain(`\`\`\`sql\n${mysqlMigrationSql().trimEnd()}\n\`\`\``);
    expect(doc).toContain(`\`\`\`sql\n${mysqlMigrationSql(['inbox']).trimEnd()}\n\`\`\``);
  });
});
