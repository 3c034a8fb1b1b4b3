#!/usr/bin/env node
// Precompiles the Handlebars templates in templates/ into generator/emit/templates.generated.ts, the
// module the generator renders with (handlebars' small runtime, no template read from disk at run
// time). `--check` exits 1 when the committed module differs from what templates/ would give.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Handlebars from 'handlebars';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dir = join(root, 'templates');
const target = join(root, 'generator', 'emit', 'templates.generated.ts');
const options = { noEscape: true, strict: true };

const entries = readdirSync(dir)
  .filter((f) => f.endsWith('.hbs'))
  .sort()
  .map(
    (f) => `  ${JSON.stringify(f.slice(0, -'.hbs'.length))}: ${Handlebars.precompile(readFileSync(join(dir, f), 'utf8'), { ...options })},`,
  );
const text = [
  '// @ts-nocheck — precompiled template functions, untyped by nature.',
  '// Generated from templates/*.hbs by scripts/bundle-templates.mjs (npm run build); do not edit.',
  `// Handlebars ${Handlebars.VERSION}, options ${JSON.stringify(options)}.`,
  'export const TEMPLATE_SPECS: Readonly<Record<string, object>> = {',
  ...entries,
  '};',
  '',
].join('\n');

if (process.argv.includes('--check')) {
  let current = '';
  try {
    current = readFileSync(target, 'utf8');
  } catch {}
  if (current !== text) {
    process.stderr.write('generator/emit/templates.generated.ts is out of date with templates/: run `npm run build`\n');
    process.exit(1);
  }
} else {
  writeFileSync(target, text);
}
