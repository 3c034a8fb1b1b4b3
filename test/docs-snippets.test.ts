// Every ```ts block of README.md and docs/*.md is checked: it compiles as a module under the
// repo's strict tsconfig against the repo's generated code and runtime (`./generated/index.js`
// means the repo's generated/), or — when its first line names a file (`// examples/x.ts`) — each
// of its lines appears, in order, in that file, which the project's own typecheck compiles.
// A block that cannot stand alone is marked by the line `<!-- docs: fragment -->` before its fence.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './helpers.js';

const FRAGMENT_MARKER = '<!-- docs: fragment -->';

interface Block {
  readonly doc: string;
  readonly line: number;
  readonly code: string;
  readonly fragment: boolean;
}

function blocks(doc: string): Block[] {
  const lines = readFileSync(join(repoRoot, doc), 'utf8').split('\n');
  const found: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.trim() !== '```ts') continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && lines[i]!.trim() !== '```'; i++) body.push(lines[i]!);
    let before = start - 1;
    while (before >= 0 && lines[before]!.trim() === '') before--;
    found.push({ doc, line: start + 1, code: body.join('\n'), fragment: lines[before]?.trim() === FRAGMENT_MARKER });
  }
  return found;
}

const docs = [
  'README.md',
  ...readdirSync(join(repoRoot, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const all = docs.flatMap(blocks);
const excerptOf = (block: Block) =>
  /^\/\/ ((?:examples|test|runtime|generator)\/[\w./-]+\.ts)\s*$/.exec(block.code.split('\n')[0] ?? '')?.[1];
const standalone = all.filter((b) => !b.fragment && excerptOf(b) === undefined);

describe('code blocks of the documentation', () => {
  it('are there, and few are fragments', () => {
    expect(all.length).toBeGreaterThan(10);
    expect(standalone.length).toBeGreaterThanOrEqual(5);
    expect(all.filter((b) => b.fragment).length).toBeLessThanOrEqual(Math.ceil(all.length / 5));
  });

  it('that name an example file are excerpts of it, line by line in order', () => {
    const wrong: string[] = [];
    for (const block of all.filter((b) => excerptOf(b) !== undefined)) {
      const file = readFileSync(join(repoRoot, excerptOf(block)!), 'utf8');
      let at = 0;
      for (const line of block.code.split('\n').slice(1)) {
        // Comments in the excerpt explain it; the code must be the file's.
        const wanted = line.replace(/\s\/\/ .*$/, '').trim();
        if (wanted === '' || wanted.startsWith('//')) continue;
        const found = file.indexOf(wanted, at);
        if (found < 0) {
          wrong.push(`${block.doc}:${block.line}: "${wanted}" is not in ${excerptOf(block)} (after what precedes it)`);
          break;
        }
        at = found + wanted.length;
      }
    }
    expect(wrong).toEqual([]);
  });

  it('compile under strict against the generated code and the runtime', () => {
    const dir = join(repoRoot, 'test', '.tmp', 'docs');
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const generated = relative(dir, join(repoRoot, 'generated', 'index.js')).replace(/\\/g, '/');
    const files = standalone.map((block, i) => {
      const path = join(dir, `${block.doc.replace(/[^\w]+/g, '-')}-${block.line}.ts`);
      let code = block.code.replace(/(['"])\.\/generated\/index\.js\1/g, `'${generated}'`);
      if (!/^\s*(import|export)\s/m.test(code)) code += '\nexport {};';
      writeFileSync(path, `${code}\n`);
      return { path, block, i };
    });
    const config = ts.readConfigFile(join(repoRoot, 'tsconfig.json'), ts.sys.readFile);
    const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, repoRoot);
    const program = ts.createProgram(
      files.map((f) => f.path),
      { ...parsed.options, noEmit: true, noUnusedLocals: false, noUnusedParameters: false },
    );
    const problems = ts
      .getPreEmitDiagnostics(program)
      .filter((d) => d.file !== undefined && files.some((f) => f.path === d.file!.fileName))
      .map((d) => {
        const file = files.find((f) => f.path === d.file!.fileName)!;
        const { line } = d.file!.getLineAndCharacterOfPosition(d.start ?? 0);
        return `${file.block.doc}:${file.block.line + 1 + line}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
      });
    expect(problems).toEqual([]);
    expect(dirname(files[0]!.path)).toBe(dir);
  });
});
