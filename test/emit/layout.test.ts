// Generated files come out in their final layout without prettier at run time
// (generator/emit/format.ts): prettier, with keiyaku's options, leaves every emitted file of the
// fixtures, the repository's contract and the synthetic benchmark contracts unchanged, and none
// of them needs prettier except where a fixture is written to have lines only prettier lays out.
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateFromFile } from 'keiyaku';
import * as prettier from 'prettier';
import { describe, expect, it } from 'vitest';
import { sharedSyntheticContract, syntheticContract } from '../../bench/synthetic.js';
import { prettierFileCount } from '../../generator/emit/format.js';
import { fixturesDir, repoRoot, scratch } from '../helpers.js';

const OPTIONS: prettier.Options = { printWidth: 120, singleQuote: false, trailingComma: 'all', endOfLine: 'lf' };

const extra = scratch('layout');
writeFileSync(join(extra, 'synthetic.json'), JSON.stringify(syntheticContract(40, 4)));
writeFileSync(join(extra, 'shared.json'), JSON.stringify(sharedSyntheticContract(40, 4)));

const cases: [string, string, string][] = [
  ['repository contract', repoRoot, 'asyncapi.yaml'],
  ...readdirSync(fixturesDir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && !e.name.startsWith('invalid'))
    .map((e): [string, string, string] => [e.name, join(fixturesDir, e.name), 'asyncapi.yaml']),
  ['synthetic 40 x 4', extra, 'synthetic.json'],
  ['synthetic 40 x 4, shared schemas', extra, 'shared.json'],
];

/**
 * Files that go through prettier, by case: the hostile fixture's names and addresses need quotes
 * prettier chooses; the Avro fixture's messages.ts holds each payload's schema as an object
 * literal, which prettier lays out; the Protobuf fixture's messages.ts holds each codec call with
 * its long descriptor and source strings, and its types.ts the long unions of oneofs.
 */
const THROUGH_PRETTIER: Record<string, number> = { hostile: 2, avro: 1, protobuf: 2 };

describe('generated layout', () => {
  for (const [name, cwd, spec] of cases) {
    it(`${name}: prettier leaves every emitted file unchanged`, async () => {
      const before = prettierFileCount();
      const result = await generateFromFile(spec, { cwd });
      const through = prettierFileCount() - before;
      expect(result.files.length).toBeGreaterThan(3);
      expect(through, 'files laid out by prettier').toBe(THROUGH_PRETTIER[name] ?? 0);
      for (const file of result.files) {
        if (file.path === 'validators.ts') continue; // indented statement by statement, never prettier's layout
        const parser = file.path.endsWith('.json') ? 'json' : 'typescript';
        const formatted = await prettier.format(file.content, { ...OPTIONS, parser });
        expect(file.content, file.path).toBe(formatted);
      }
    });
  }
});
