#!/usr/bin/env node
// Removes every package's dist/ before a build, so a file that was moved or deleted in the
// sources does not live on in a published tarball (tsc -b never deletes outputs it no longer makes).
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
for (const dir of ['generator', 'runtime', 'runtime/kafka', 'runtime/iggy', 'runtime/sqlite', 'runtime/postgres'])
  rmSync(join(root, dir, 'dist'), { recursive: true, force: true });
