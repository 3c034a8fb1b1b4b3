// The fast load path (no Spectral rulesets; the document checked against the official AsyncAPI
// JSON Schema with validators compiled at build time) rejects every document the parser's full
// rulesets reject, with a location, and accepts every document they accept.
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readContract } from 'keiyaku';
import { describe, expect, it } from 'vitest';
import { sharedSyntheticContract, syntheticContract } from '../../bench/synthetic.js';
import { checkDocument, documentPasses } from '../../generator/load/asyncapi-schema.js';
import { readPlainDocument } from '../../generator/load/plain-document.js';
import { SourceLocator } from '../../generator/load/source-locator.js';
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
      const [full, fast] = await Promise.all([readContract(file, { cwd, lint: true }), readContract(file, { cwd })]);
      const fullErrors = full.diagnostics.filter((d) => d.severity === 'error');
      const fastErrors = fast.diagnostics.filter((d) => d.severity === 'error');
      expect(fast.contract === undefined).toBe(full.contract === undefined);
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

describe('the plain reader checks each shared channel and message object once', () => {
  // Resolved documents as the reader leaves them: a `$ref` replaced by the very object it names.
  const document = (message: Record<string, unknown>, channel: Record<string, unknown>, messageKey = 'Borrowed') => {
    const shared = { address: 'books', ...channel, messages: { borrowed: message } };
    return {
      asyncapi: '3.0.0',
      info: { title: 'T', version: '1.0.0' },
      channels: { books: shared },
      operations: { send: { action: 'send', channel: shared, messages: [message] } },
      components: { messages: { [messageKey]: message }, channels: { Books: shared } },
    };
  };
  const good = { payload: { type: 'object', properties: { id: { type: 'string' } } }, contentType: 'application/json' };

  it('passes a valid document, and agrees with the whole-document check on it', () => {
    const doc = document(good, {});
    expect(documentPasses(doc, '3.0.0', false)).toBe(true);
    expect(checkDocument(doc, '3.0.0', false)).toEqual([]);
  });

  it.each([
    ['a message with a misspelt field', document({ ...good, contentTyp: 'x' }, {})],
    ['a message under a components key its schema does not check', document({ ...good, contentTyp: 'x' }, {}, 'my message')],
    ['a channel with a field of the wrong type', document(good, { title: 42 })],
    ['a message payload that is not a schema', document({ payload: { type: 'strng' } }, {})],
  ])('fails %s, as the whole-document check does', (_name, doc) => {
    expect(documentPasses(doc, '3.0.0', false)).toBe(false);
    expect(checkDocument(doc, '3.0.0', false)!.length).toBeGreaterThan(0);
  });

  it('agrees with the whole-document check on every fixture and on the synthetic contracts', () => {
    const files = [...cases.map(([, cwd, file]) => join(cwd, file)), join(extra, 'synthetic.json'), join(extra, 'shared.json')];
    writeFileSync(join(extra, 'synthetic.json'), JSON.stringify(syntheticContract(8, 3)));
    writeFileSync(join(extra, 'shared.json'), JSON.stringify(sharedSyntheticContract(8, 3)));
    let compared = 0;
    for (const file of files) {
      const locator = new SourceLocator(file, extra);
      if (readPlainDocument(file, locator) === undefined) continue;
      const resolved = locator.read(file)!.value as { asyncapi: string };
      expect(documentPasses(resolved, resolved.asyncapi), file).toBe(checkDocument(resolved, resolved.asyncapi)!.length === 0);
      compared++;
    }
    expect(compared).toBeGreaterThan(3);
  });
});
