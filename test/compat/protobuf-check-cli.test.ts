// `keiyaku check` end to end on a contract with Protobuf payloads (test/fixtures/protobuf: a
// $ref'd .proto file and an inline one): against a file on disk and a git ref, the findings in
// each output format, `x-keiyaku.protobuf`, and an acknowledged break.
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixturesDir, gitIn, scratch } from '../helpers.js';
import { codesIn, keiyaku } from './known-codes.js';

const root = scratch('check-protobuf');
const dir = join(root, 'work');
const v1 = join(root, 'v1');
const git = gitIn(dir);
const edit = (file: string, from: string | RegExp, to: string): void => {
  const path = join(dir, file);
  const text = readFileSync(path, 'utf8');
  const next = text.replace(from, to);
  if (next === text) throw new Error(`edit did not apply to ${file}: ${String(from)}`);
  writeFileSync(path, next);
};

beforeAll(() => {
  for (const target of [dir, v1]) {
    cpSync(join(fixturesDir, 'protobuf', 'asyncapi.yaml'), join(target, 'asyncapi.yaml'));
    cpSync(join(fixturesDir, 'protobuf', 'protos'), join(target, 'protos'), { recursive: true });
  }
  git('init', '-q', '-b', 'main');
  git('add', '.');
  git('commit', '-qm', 'v1.0.0');
  git('tag', 'v1.0.0');
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function reset(): void {
  git('checkout', '-q', '--', '.');
  git('clean', '-qfd');
}

describe('keiyaku check on Protobuf payloads', () => {
  it('passes an unchanged contract against a file and a git ref', async () => {
    for (const against of [join(v1, 'asyncapi.yaml'), 'v1.0.0']) {
      const result = await keiyaku(['check', '--against', against], { cwd: dir });
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/keiyaku check: 0 breaking, 0 acknowledged, 0 compatible, 0 info against/);
    }
  });

  it("fails on a field removed from a $ref'd .proto file, once for a message type used in three places, and says how to pass", async () => {
    reset();
    edit('protos/library.proto', /\n {4}uint32 quantity = 2;/, '');
    const result = await keiyaku(['check', '--against', join(v1, 'asyncapi.yaml')], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      'BREAKING protobuf_field_removed (forward): field quantity = 2 removed without reserving its number and name: a later field may take it and misread messages that still carry the old one',
    );
    expect(codesIn(result.stdout)).toEqual(['protobuf_field_removed']);
    expect(result.stdout).toContain('at /payload/fields/items/fields/quantity — asyncapi.yaml:');
    expect(result.stdout).toContain('fix: reserve it where the field was: `reserved 2;` and `reserved "quantity";`');
    // The fix passes.
    edit('protos/library.proto', /(\n {4}string sku = 1;)/, '$1\n    reserved 2;\n    reserved "quantity";');
    const fixed = await keiyaku(['check', '--against', join(v1, 'asyncapi.yaml')], { cwd: dir });
    expect(fixed.stdout).toContain('compatible protobuf_field_removed_and_reserved (forward)');
    expect(fixed.code).toBe(0);
  });

  it('locates a changed field in its .proto file', async () => {
    reset();
    edit('protos/library.proto', 'string sku = 1;', 'bytes sku = 1;');
    const result = await keiyaku(['check', '--against', 'v1.0.0'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('BREAKING protobuf_field_type_changed (forward): field sku string → bytes: its JSON form differs');
    expect(result.stdout).toContain('at /payload/fields/items/fields/sku — protos/library.proto:40:11\n');
  });

  it('judges a renamed field by the JSON mapping by default, by the binary encoding under x-keiyaku.protobuf: wire', async () => {
    reset();
    edit('asyncapi.yaml', 'string shelf_id = 1;', 'string shelf = 1;');
    const json = await keiyaku(['check', '--against', 'v1.0.0', '--format', 'json'], { cwd: dir });
    expect(json.code).toBe(1);
    expect(codesIn(json.stdout)).toEqual(['protobuf_field_renamed']);
    const report = JSON.parse(json.stdout) as { findings: { id: string; severity: string; pointer: string }[] };
    expect(report.findings.map((f) => [f.severity, f.id])).toEqual([
      ['breaking', 'books/ShelfAudited/protobuf_field_renamed/payload/fields/shelf'],
    ]);
    edit('asyncapi.yaml', /^info:/m, 'x-keiyaku:\n  protobuf: wire\ninfo:');
    const wire = await keiyaku(['check', '--against', 'v1.0.0'], { cwd: dir });
    expect(wire.stdout).toContain('compatible protobuf_field_renamed (forward): field 1 renamed shelf_id → shelf');
    expect(wire.code).toBe(0);
  });

  it('lets an acknowledged break through, and prints it in every format', async () => {
    reset();
    edit('asyncapi.yaml', 'uint64 robot = 6;', 'string robot = 6;');
    const failing = await keiyaku(['check', '--against', 'v1.0.0', '--format', 'github'], { cwd: dir });
    expect(failing.code).toBe(1);
    expect(codesIn(failing.stdout)).toEqual(['protobuf_field_type_changed']);
    expect(failing.stdout).toContain('books/ShelfAudited/protobuf_field_type_changed/payload/fields/robot');
    edit('asyncapi.yaml', 'version: 1.0.0', 'version: 2.0.0');
    edit(
      'asyncapi.yaml',
      /^info:/m,
      [
        'x-keiyaku:',
        '  acknowledge:',
        '    - id: books/ShelfAudited/protobuf_field_type_changed/payload/fields/robot',
        '      reason: robots report their serial numbers as text now; every consumer reads 2.0',
        '      version: 2.0.0',
        'info:',
      ].join('\n'),
    );
    const text = await keiyaku(['check', '--against', 'v1.0.0'], { cwd: dir });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('ACKNOWLEDGED protobuf_field_type_changed (forward): field robot uint64 → string: the encodings differ');
    for (const format of ['json', 'github', 'junit']) {
      const out = await keiyaku(['check', '--against', 'v1.0.0', '--format', format], { cwd: dir });
      expect(out.code, format).toBe(0);
      expect(codesIn(out.stdout), format).toEqual(format === 'junit' ? [] : ['protobuf_field_type_changed']);
    }
  });
});
