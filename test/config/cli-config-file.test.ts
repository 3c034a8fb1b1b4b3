// keiyaku.config.json: every unknown or mistyped key is reported at once, an unknown one with the
// closest known key, and nothing is generated. (Runs the CLI from its sources, so it checks the
// code in the tree rather than the last build.)
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it, onTestFinished } from 'vitest';
import { repoRoot, run, scratch } from '../helpers.js';

const tsx = join(repoRoot, 'node_modules', '.bin', 'tsx');
const cli = join(repoRoot, 'generator', 'cli', 'run.ts');

it('lists every problem of keiyaku.config.json with a suggestion, exits 2 and writes nothing', async () => {
  const dir = scratch('keiyaku-config-file');
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'keiyaku.config.json'), JSON.stringify({ output: 'x', strict: 'yes', Spec: 'a.yaml', runtime: 'kafka' }));
  const result = await run(tsx, ['--conditions=keiyaku-source', cli, 'generate'], { cwd: dir, timeout: 60_000 });
  expect(result.code).toBe(2);
  expect(result.stdout).toBe('');
  const known = '(known: spec, out, strict, allowRefOutside, runtime)';
  expect(result.stderr).toBe(
    `keiyaku: ${join(dir, 'keiyaku.config.json')} has 4 problems:\n` +
      `  - unknown option "output"; did you mean "out"? ${known}\n` +
      '  - "strict" must be a boolean\n' +
      `  - unknown option "Spec"; did you mean "spec"? ${known}\n` +
      `  - "runtime" must be an object: the service's runtime configuration, as configure() takes it\n`,
  );
  expect(existsSync(join(dir, 'generated'))).toBe(false);
  expect(existsSync(join(dir, 'x'))).toBe(false);
}, 90_000);
