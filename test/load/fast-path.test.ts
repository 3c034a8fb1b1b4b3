// The fast load path (no Spectral rulesets; the document checked against the official AsyncAPI
// JSON Schema with validators compiled at build time) rejects every document the parser's full
// rulesets reject, with a location, and accepts every document they accept.
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadContract } from 'keiyaku';
import { describe, expect, it } from 'vitest';
import { fixturesDir, scratch } from '../helpers.js';

const extra = scratch('fast-path');
const documents: Record<string, string> = {
  'v3-missing-info.yaml': 'asyncapi: 3.0.0\nchannels:\n  a:\n    address: a\n',
  'v3-bad-action.yaml':
    'asyncapi: 3.0.0\ninfo:\n  title: T\n  version: 1.0.0\nchannels:\n  a:\n    address: a\noperations:\n  go:\n    action: shout\n    channel:\n      $ref: "#/channels/a"\n',
  'v3-wrong-type.yaml': 'asyncapi: 3.0.0\ninfo:\n  title: T\n  version: 1.0.0\nchannels:\n  a:\n    address: 42\n    messages: []\n',
  'v3-bad-message.yaml':
    'asyncapi: 3.0.0\ninfo:\n  title: T\n  version: 1.0.0\nchannels:\n  a:\n    address: a\n    messages:\n      M:\n        payload:\n          type: object\n        contentTyp: application/json\n',
  'v2-unknown-field.yaml':
    "asyncapi: '2.6.0'\ninfo:\n  title: T\n  version: 1.0.0\nchannels:\n  a:\n    subscribe:\n      mesage:\n        payload:\n          type: string\n",
  'v2-valid.yaml':
    "asyncapi: '2.6.0'\ninfo:\n  title: T\n  version: 1.0.0\nchannels:\n  a:\n    subscribe:\n      message:\n        payload:\n          type: string\n",
  'v3-info-version-number.yaml': 'asyncapi: 3.0.0\ninfo:\n  title: T\n  version: 1\nchannels: {}\n',
};
for (const [name, text] of Object.entries(documents)) writeFileSync(join(extra, name), text);

const cases = [
  ...readdirSync(fixturesDir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => [e.name, join(fixturesDir, e.name), 'asyncapi.yaml'] as const),
  ...Object.keys(documents).map((name) => [name, extra, name] as const),
];

describe('fast load path against the full Spectral rulesets', () => {
  it('covers rejected and accepted documents', () => {
    expect(cases.length).toBeGreaterThan(10);
  });

  for (const [name, cwd, file] of cases) {
    it(`${name}: same verdict; every rejection located`, async () => {
      const [full, fast] = await Promise.all([loadContract(file, { cwd, lint: true }), loadContract(file, { cwd })]);
      const fullErrors = full.diagnostics.filter((d) => d.severity === 'error');
      const fastErrors = fast.diagnostics.filter((d) => d.severity === 'error');
      expect(fast.document === undefined).toBe(full.document === undefined);
      expect(fastErrors.length > 0).toBe(fullErrors.length > 0);
      for (const error of fastErrors) {
        expect(error.location?.line, `${error.code}: ${error.message}`).toBeGreaterThan(0);
        expect(error.location?.file).toBeTruthy();
      }
      // The same places are named: the same file, and the line the rulesets name or the next one
      // (they point at a key whose block value starts on the line below, where the fast path points).
      for (const error of fullErrors) {
        const near = fastErrors.some(
          (f) => f.location?.file === error.location?.file && [0, 1].includes((f.location?.line ?? 0) - (error.location?.line ?? 0)),
        );
        expect(near, `${error.location?.file}:${error.location?.line} ${error.message}`).toBe(true);
      }
    });
  }
});
