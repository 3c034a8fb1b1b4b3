// The source locator's cursors (generator/load/source-locator.ts): stepping from where a parent
// was written to a child gives exactly the location a walk from the root gives, through `$ref`s
// across YAML and JSON files, for paths that end early and for files that cannot be read.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { syntheticContract } from '../../bench/synthetic.js';
import { readPlainDocument } from '../../generator/load/plain-document.js';
import { SourceLocator } from '../../generator/load/source-locator.js';
import { fixturesDir, repoRoot, scratch } from '../helpers.js';

const extra = scratch('source-locator');
writeFileSync(join(extra, 'synthetic.json'), JSON.stringify(syntheticContract(6, 3), null, 2));
writeFileSync(
  join(extra, 'dangling.yaml'),
  [
    'asyncapi: 3.0.0',
    'info: { title: T, version: 1.0.0 }',
    'channels:',
    '  a:',
    '    messages:',
    '      m: { $ref: "./missing.yaml#/components/messages/M" }',
    '',
  ].join('\n'),
);

/** Every path of the resolved document (each shared or cyclic node once), root first. */
function paths(value: unknown, prefix: string[] = [], seen = new Set<object>(), out: string[][] = []): string[][] {
  out.push(prefix);
  if (typeof value !== 'object' || value === null || seen.has(value)) return out;
  seen.add(value);
  for (const [key, child] of Object.entries(value)) paths(child, [...prefix, key], seen, out);
  return out;
}

describe('source locator cursors', () => {
  it.each([
    ['asyncapi.yaml (YAML, $refs into JSON schema files)', join(repoRoot, 'asyncapi.yaml'), repoRoot],
    ['payments', join(fixturesDir, 'payments', 'asyncapi.yaml'), join(fixturesDir, 'payments')],
    ['a synthetic JSON contract', join(extra, 'synthetic.json'), extra],
  ])('%s: a step from the parent lands where a walk from the root does, for every node', (_name, file, cwd) => {
    const locator = new SourceLocator(file, cwd);
    expect(readPlainDocument(file, locator)).toBeDefined();
    const resolved = locator.read(file)!.value;
    const all = paths(resolved);
    expect(all.length).toBeGreaterThan(50);
    let lines = 0;
    for (const path of all) {
      const whole = locator.locate(path);
      if (whole.line > 0) lines++;
      for (const split of new Set([0, path.length >> 1, path.length - 1, path.length].filter((k) => k >= 0))) {
        const cursor = locator.step(locator.step(locator.start(), path.slice(0, split)), path.slice(split));
        expect(locator.location(cursor), `${path.join('/')} split at ${split}`).toEqual(whole);
      }
      // A path that goes on past the document ends where the document does, however it is split.
      const beyond = [...path, 'no-such-key', 'deeper'];
      expect(locator.location(locator.step(locator.step(locator.start(), path), beyond.slice(path.length)))).toEqual(
        locator.locate(beyond),
      );
    }
    expect(lines).toBe(all.length);
  });

  it('locates a node where it is written: in the contract, and in a JSON file a $ref leads to', () => {
    const locator = new SourceLocator(join(repoRoot, 'asyncapi.yaml'), repoRoot);
    const text = readFileSync(join(repoRoot, 'asyncapi.yaml'), 'utf8').split('\n');
    const titleLine = text.findIndex((line) => /^ {2}title:/.test(line)) + 1;
    expect(locator.locate(['info', 'title'])).toEqual({ file: 'asyncapi.yaml', line: titleLine, column: 10, pointer: '/info/title' });
    const payload = locator.locate(['components', 'messages', 'BookBorrowed', 'payload']);
    expect(payload.file).toMatch(/^schemas[\\/].+\.json$/);
    expect(payload.pointer).toBe('');
    expect(payload.line).toBe(1);
  });

  it('names the unread file of a dangling $ref at line 0, with the whole pointer, however the path is split', () => {
    const file = join(extra, 'dangling.yaml');
    const locator = new SourceLocator(file, extra);
    const path = ['channels', 'a', 'messages', 'm', 'payload', 'type'];
    const whole = locator.locate(path);
    expect(whole).toEqual({ file: 'missing.yaml', line: 0, column: 0, pointer: '/components/messages/M/payload/type' });
    for (let split = 0; split <= path.length; split++)
      expect(locator.location(locator.step(locator.step(locator.start(), path.slice(0, split)), path.slice(split)))).toEqual(whole);
  });
});
