// scripts/check-sizes.mjs, the size budget of `npm run lint` and CI: run on a scratch tree of sources
// (too long, reasoned, skipped), then on the repository itself.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from './helpers.js';

const script = join(repoRoot, 'scripts', 'check-sizes.mjs');

/** `n` statements, one a line. */
const lines = (n: number): string => Array.from({ length: n }, (_, i) => `  const v${i} = ${i};`).join('\n');
/** A function declaration of exactly `n` lines (its braces included). */
const fn = (name: string, n: number, opening = ''): string => `${opening}export function ${name}(): void {\n${lines(n - 2)}\n}\n`;

interface Case {
  readonly name: string;
  /** Path (under a scratch `generator/`) to text. */
  readonly files: Record<string, string>;
  /** The messages expected, in order (empty: the check passes). */
  readonly fails: readonly string[];
}

const CASES: readonly Case[] = [
  { name: 'short files and functions pass', files: { 'a.ts': fn('short', 100) }, fails: [] },
  {
    name: 'a function over 100 lines fails, named, at its first line',
    files: { 'a.ts': `// head\n${fn('tooLong', 101)}` },
    fails: ['generator/a.ts:2 tooLong (101 lines): split it or give the reason'],
  },
  {
    name: 'a JSDoc with the reason marker lets it pass',
    files: { 'a.ts': fn('reasoned', 150, '/**\n * One table.\n * Long because: one case a line.\n */\n') },
    fails: [],
  },
  {
    name: 'a comment without the marker does not',
    files: { 'a.ts': fn('vague', 150, '/** It is long. */\n') },
    fails: ['generator/a.ts:2 vague (150 lines)'],
  },
  {
    name: 'the reason may open the body instead',
    files: { 'a.ts': `export function inBody(): void {\n  // Long because: one case a line.\n${lines(120)}\n}\n` },
    fails: [],
  },
  {
    name: 'arrow functions are named by their variable and take the comment of its statement',
    files: {
      'a.ts': `export const arrow = (): void => {\n${lines(110)}\n};\n// Long because: generated table.\nexport const kept = (): void => {\n${lines(110)}\n};\n`,
    },
    fails: ['generator/a.ts:1 arrow (112 lines)'],
  },
  {
    name: 'methods and constructors count, each on its own',
    files: { 'a.ts': `export class K {\n  constructor() {\n${lines(100)}\n  }\n  run(): void {\n${lines(5)}\n  }\n}\n` },
    fails: ['generator/a.ts:2 constructor (102 lines)'],
  },
  {
    name: 'a file over 600 lines fails even when its functions are short',
    files: { 'a.ts': `${fn('one', 90)}${fn('two', 90)}${lines(430)}\n` },
    fails: ['generator/a.ts:1 file (610 lines): split it or give the reason'],
  },
  {
    name: 'dist/, node_modules/, *.generated.ts and *.d.ts are skipped',
    files: {
      'dist/a.ts': fn('built', 200),
      'node_modules/x/a.ts': fn('dependency', 200),
      'a.generated.ts': fn('generated', 200),
      'a.d.ts': lines(700),
      'a.js': fn('notTypeScript', 200),
    },
    fails: [],
  },
];

const scratchDirs: string[] = [];
afterAll(() => {
  for (const dir of scratchDirs) rmSync(dir, { recursive: true, force: true });
});

/** Runs the checker in `cwd` over `dirs`: its exit code and stderr. */
function check(cwd: string, dirs: string[]): { code: number; stderr: string } {
  try {
    execFileSync(process.execPath, [script, ...dirs], { cwd, encoding: 'utf8', stdio: 'pipe' });
    return { code: 0, stderr: '' };
  } catch (error) {
    const failed = error as { status: number; stderr: string };
    return { code: failed.status, stderr: failed.stderr };
  }
}

describe('scripts/check-sizes.mjs', () => {
  it.each(CASES)('$name', ({ files, fails }) => {
    const dir = mkdtempSync(join(tmpdir(), 'keiyaku-sizes-'));
    scratchDirs.push(dir);
    for (const [path, text] of Object.entries(files)) {
      const file = join(dir, 'generator', path);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, text);
    }
    const { code, stderr } = check(dir, ['generator']);
    expect(code).toBe(fails.length > 0 ? 1 : 0);
    const reported = stderr.split('\n').filter((line) => line.startsWith('generator/'));
    expect(reported).toHaveLength(fails.length);
    fails.forEach((message, i) => {
      expect(reported[i]).toContain(message);
    });
  });

  it('runtime/testing/, the conformance suites, is left to the test rules', () => {
    const dir = mkdtempSync(join(tmpdir(), 'keiyaku-sizes-'));
    scratchDirs.push(dir);
    mkdirSync(join(dir, 'runtime', 'testing'), { recursive: true });
    writeFileSync(join(dir, 'runtime', 'testing', 'suite.ts'), fn('suite', 300));
    writeFileSync(join(dir, 'runtime', 'entry.ts'), fn('entry', 300));
    const { code, stderr } = check(dir, ['runtime']);
    expect(code).toBe(1);
    expect(stderr).toContain('runtime/entry.ts:1 entry (300 lines)');
    expect(stderr).not.toContain('suite');
  });

  it('the repository is within its budget', () => {
    const { code, stderr } = check(repoRoot, []);
    expect(stderr.split('\n').filter((line) => !line.startsWith('note: ') && line !== '')).toEqual([]);
    expect(code).toBe(0);
  });
});
