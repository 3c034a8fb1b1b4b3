#!/usr/bin/env node
// Removes every workspace package's dist/ before a build, so a file that was moved or deleted in
// the sources does not live on in a published tarball (tsc -b never deletes outputs it no longer makes).
import { readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { workspaces } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
for (const dir of workspaces) rmSync(join(root, dir, 'dist'), { recursive: true, force: true });
