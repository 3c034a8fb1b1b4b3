#!/usr/bin/env node
// The keiyaku command. The TypeScript sources are compiled to dist/ by `npm run build`
// (run automatically by `npm ci` / `npm install` through the "prepare" script).
import { existsSync } from 'node:fs';

const entry = new URL('../dist/cli/run.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('keiyaku: dist/ is missing; run `npm run build` in the keiyaku package first\n');
  process.exit(2);
}
await import(entry.href);
