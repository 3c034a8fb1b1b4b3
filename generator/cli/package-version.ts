import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KeiyakuError } from '../errors.js';

/** keiyaku's own version, from its package.json (found from source, `generator/cli/`, or build, `generator/dist/cli/`). */
export function packageVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (true) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'keiyaku' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // no package.json here: look further up
    }
    const parent = dirname(dir);
    if (parent === dir)
      throw new KeiyakuError('package_root_not_found', "cannot find keiyaku's package.json; the installation is incomplete");
    dir = parent;
  }
}
