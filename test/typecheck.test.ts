// Every golden output and the repo's own generated/ compile under the strict tsconfig
// (strict, exactOptionalPropertyTypes, noUncheckedIndexedAccess, verbatimModuleSyntax, noUnusedLocals).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot, run } from './helpers.js';

const tsc = join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');

describe('generated code type-checks', () => {
  it('golden outputs of every fixture (tsconfig.golden.json)', async () => {
    const result = await run(process.execPath, [tsc, '-p', 'tsconfig.golden.json', '--listFilesOnly']);
    expect(result.code).toBe(0);
    const files = result.stdout.split('\n').filter((f) => f.includes('/test/fixtures/'));
    expect(files.length).toBeGreaterThanOrEqual(4 * 5);
    const check = await run(process.execPath, [tsc, '-p', 'tsconfig.golden.json']);
    expect(check.stdout + check.stderr).toBe('');
    expect(check.code).toBe(0);
  });

  it('the whole repository, generated/ included (tsconfig.json)', async () => {
    const check = await run(process.execPath, [tsc, '-p', 'tsconfig.json']);
    expect(check.stdout + check.stderr).toBe('');
    expect(check.code).toBe(0);
  });
});
