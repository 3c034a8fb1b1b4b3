import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KeiyakuError } from './errors.js';

let cached: string | undefined;

/** The folder of keiyaku's own package.json, from source (`generator/`) or build (`dist/generator/`). */
export function packageRoot(): string {
  if (cached !== undefined) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  while (true) {
    const candidate = join(dir, 'package.json');
    if (
      existsSync(candidate) &&
      (JSON.parse(readFileSync(candidate, 'utf8')) as { name?: string }).name === 'keiyaku' &&
      existsSync(join(dir, 'templates'))
    ) {
      cached = dir;
      return dir;
    }
    const parent = dirname(dir);
    if (parent === dir)
      throw new KeiyakuError(
        'package_root_not_found',
        'cannot find the keiyaku package root (templates/ next to package.json); the installation is incomplete',
      );
    dir = parent;
  }
}

export function packageVersion(): string {
  return (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
}
