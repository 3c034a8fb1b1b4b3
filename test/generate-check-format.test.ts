// `keiyaku generate --check` after a project formats generated/ with its own prettier: a
// reformatted file is not stale, a changed one is.
import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateFromFile } from 'keiyaku';
import * as prettier from 'prettier';
import { describe, expect, it } from 'vitest';
import { compareOutput } from '../generator/cli/output.js';
import { repoRoot, run, scratch } from './helpers.js';

/** Options far from keiyaku's own: single quotes, no semicolons, tabs, narrow lines, no trailing commas, `x => …`. */
const projectStyle: prettier.Options = {
  singleQuote: true,
  semi: false,
  useTabs: true,
  printWidth: 60,
  trailingComma: 'none',
  arrowParens: 'avoid',
  quoteProps: 'consistent',
  bracketSpacing: false,
};

async function reformat(dir: string): Promise<number> {
  let changed = 0;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = join(entry.parentPath, entry.name);
    const parser = file.endsWith('.json') ? 'json' : 'typescript';
    const before = readFileSync(file, 'utf8');
    const after = await prettier.format(before, { ...projectStyle, parser });
    if (after !== before) changed++;
    writeFileSync(file, after);
  }
  return changed;
}

describe('generate --check and a project formatter', () => {
  for (const fixture of ['generated', 'test/fixtures/payments/expected', 'test/fixtures/hostile/expected']) {
    it(`${fixture}: reformatted output is not stale; a changed token is`, async () => {
      const cwd = fixture === 'generated' ? repoRoot : join(repoRoot, fixture, '..');
      const result = await generateFromFile('asyncapi.yaml', { cwd });
      const dir = scratch('format');
      cpSync(join(repoRoot, fixture), dir, { recursive: true });
      expect(await reformat(dir)).toBeGreaterThan(3);
      expect(compareOutput(dir, result.files)).toEqual({ stale: [], missing: [], extra: [] });

      const messages = join(dir, 'messages.ts');
      const text = readFileSync(messages, 'utf8');
      const schemaHash = /schemaHash:\s*'sha256:([0-9a-f]{64})'/.exec(text)?.[1];
      expect(schemaHash).toBeDefined();
      writeFileSync(messages, text.replace(schemaHash!, `${schemaHash!.slice(0, -1)}${schemaHash!.endsWith('0') ? '1' : '0'}`));
      expect(compareOutput(dir, result.files).stale).toEqual(['messages.ts']);
    });
  }

  it('the CLI agrees: exit 0 after reformatting, 1 after an edit', async () => {
    const dir = scratch('format-cli');
    cpSync(join(repoRoot, 'generated'), join(dir, 'generated'), { recursive: true });
    await reformat(join(dir, 'generated'));
    const bin = join(repoRoot, 'generator', 'bin', 'keiyaku.js');
    const args = [bin, 'generate', '--check', '--spec', join(repoRoot, 'asyncapi.yaml'), '--out', join(dir, 'generated')];
    const ok = await run(process.execPath, args);
    expect(ok.stderr).toBe('');
    expect(ok.code).toBe(0);
    const index = join(dir, 'generated', 'index.ts');
    writeFileSync(index, readFileSync(index, 'utf8').replace('export const channels', 'export const channelList'));
    const stale = await run(process.execPath, args);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain('stale:');
  });
});
