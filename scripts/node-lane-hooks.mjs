// Loaded by scripts/node-lane through NODE_OPTIONS: the packages installed for the lane's Node line
// (the node_modules directory in the `modules` parameter of this module's URL) replace the same
// packages wherever they would otherwise resolve, under any node_modules (the repository's, a
// workspace's, a test's temporary install), for import and require alike. module.registerHooks runs
// in every lane (Node 22.15+, 23.5+); on an older Node this does nothing.
import { existsSync, readFileSync } from 'node:fs';
import * as nodeModule from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

const modules = new URL(import.meta.url).searchParams.get('modules');

if (modules && typeof nodeModule.registerHooks === 'function') {
  const laneURL = pathToFileURL(modules).href;
  // The packages the lane installed by name (its package.json), not their own dependencies.
  const { dependencies = {} } = JSON.parse(readFileSync(join(dirname(modules), 'package.json'), 'utf8'));
  const moves = Object.keys(dependencies).map((name) => ({
    mark: `/node_modules/${name}/`,
    to: `${laneURL}/${name}/`,
  }));
  nodeModule.registerHooks({
    resolve(specifier, context, nextResolve) {
      const result = nextResolve(specifier, context);
      const { url } = result;
      if (!url?.startsWith('file:') || url.startsWith(laneURL)) return result;
      for (const { mark, to } of moves) {
        const at = url.lastIndexOf(mark);
        if (at < 0) continue;
        const moved = to + url.slice(at + mark.length);
        // A file the lane's version does not have stays where it was found.
        if (existsSync(new URL(moved))) return { ...result, url: moved };
      }
      return result;
    },
  });
}
