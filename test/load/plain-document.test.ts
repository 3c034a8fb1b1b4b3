// The contract reader that never loads @asyncapi/parser (generator/load/plain-document.ts):
// every contract it takes becomes exactly the model the parser's document becomes, and it steps
// aside for every contract with a problem, so the parser reports it as before.
import { readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { compileContract, readContract } from 'keiyaku';
import { describe, expect, it } from 'vitest';
import { sharedSyntheticContract, syntheticContract } from '../../bench/synthetic.js';
import { readPlainDocument } from '../../generator/load/plain-document.js';
import { SourceLocator } from '../../generator/load/source-locator.js';
import { fixturesDir, repoRoot, run, scratch } from '../helpers.js';

const extra = scratch('plain-document');
writeFileSync(join(extra, 'synthetic.json'), JSON.stringify(syntheticContract(12, 4), null, 2));
writeFileSync(join(extra, 'shared.json'), JSON.stringify(sharedSyntheticContract(12, 4)));
writeFileSync(
  join(extra, 'v2-anonymous.yaml'),
  [
    "asyncapi: '2.6.0'",
    'info: { title: T, version: 1.0.0 }',
    'channels:',
    '  a/{id}:',
    '    parameters:',
    '      id: { schema: { type: string, pattern: "^[0-9]+$" } }',
    '    publish:',
    '      message:',
    '        oneOf:',
    '          - payload: { type: string }',
    '          - $ref: "#/components/messages/Named"',
    '    subscribe:',
    '      operationId: sendA',
    '      message: { messageId: m1, payload: { $ref: "#/components/schemas/Thing" } }',
    'components:',
    '  schemas:',
    '    Thing: { type: object, properties: { self: { $ref: "#/components/schemas/Thing" } } }',
    '  messages:',
    '    Named: { payload: { type: integer } }',
    '',
  ].join('\n'),
);

const cases: [string, string, string][] = [
  ['repository contract', repoRoot, 'asyncapi.yaml'],
  ...readdirSync(fixturesDir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e): [string, string, string] => [e.name, join(fixturesDir, e.name), 'asyncapi.yaml']),
  ['synthetic JSON', extra, 'synthetic.json'],
  ['synthetic JSON with shared schemas', extra, 'shared.json'],
  ['2.6 anonymous and oneOf messages, recursive schema', extra, 'v2-anonymous.yaml'],
];

/** Contracts the reader leaves to the parser although they are valid: traits and schema formats are applied by the parser. */
const PARSER_ONLY = new Set(['streetlights-v3', 'avro', 'protobuf']);

describe('the plain contract reader', () => {
  for (const [name, cwd, file] of cases) {
    it(`${name}: the same model as through the parser, or the parser reports it`, async () => {
      const absolute = resolve(cwd, file);
      const plain = readPlainDocument(absolute, new SourceLocator(absolute, cwd));
      // lint: the parser's path (with its full rulesets, whose findings are diagnostics, not model).
      const [loaded, viaParser, viaPlain] = await Promise.all([
        readContract(file, { cwd, lint: true }),
        compileContract(file, { cwd, lint: true }),
        compileContract(file, { cwd }),
      ]);
      if (loaded.contract === undefined || PARSER_ONLY.has(name)) {
        expect(plain, 'a contract the parser rejects or must transform is left to it').toBeUndefined();
        return;
      }
      expect(plain, 'a valid contract is read without the parser').toBeDefined();
      expect(JSON.stringify(viaPlain.model)).toBe(JSON.stringify(viaParser.model));
      const codes = (diagnostics: readonly { code: string; severity: string }[]) =>
        diagnostics.filter((d) => !d.code.startsWith('asyncapi')).map((d) => `${d.severity} ${d.code}`);
      expect(codes(viaPlain.diagnostics)).toEqual(codes(viaParser.diagnostics));
    });
  }

  it('keiyaku generate --check on the repository contract never loads @asyncapi/parser', async () => {
    const script = [
      "import { createRequire } from 'node:module';",
      "const { generateFromFile } = await import('./generator/dist/index.js');",
      "const result = await generateFromFile('asyncapi.yaml');",
      "if (result.files.length === 0) throw new Error('nothing generated');",
      'const loaded = Object.keys(createRequire(import.meta.url).cache);',
      'process.stdout.write(JSON.stringify(loaded.filter((k) => /@asyncapi[\\\\/]parser|@stoplight/.test(k)).length));',
    ].join('\n');
    const result = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: repoRoot });
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe('0');
  });
});
